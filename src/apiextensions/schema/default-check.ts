// Upstream's structuraldefaulting.ValidateDefaults: every default must be pruned already (no field the schema would
// drop) and must validate against its own schema, e.g. `...properties[replicas].default: Invalid value: "string":
// in body must be of type integer: "string"`. Additional properties are not followed (defaults are refused there).
import { fieldInvalid, type FieldError } from '../../machinery/errors.js';
import { getOwn } from '../../util/own.js';
import { deepCopy, maxSchemaDepth, toNode, type RawSchema } from './node.js';
import { pruneValue } from './prune.js';
import { compileValidatorSync, newAjv, type AjvInstance } from './validator.js';
import { rawRecord, schemaEntries } from './node.js';

const metaFields = new Set(['metadata', 'kind', 'apiVersion']);

/** Keywords a scalar's schema may have for `plainlyValid` to judge its default without compiling a validator. */
const plainKeywords = new Set(['type', 'default', 'description', 'enum', 'nullable']);

/**
 * True when the default of a plain scalar schema (`type` and at most `enum` to check) is certainly valid: then it
 * needs no validator (nine defaults in ten of the CRDs real projects ship, e.g. a port's `protocol: TCP`). Anything
 * else, valid or not, is left to the validator, which also words the errors.
 */
function plainlyValid(s: RawSchema, def: unknown): boolean {
  for (const k of Object.keys(s)) if (!plainKeywords.has(k)) return false;
  const type = getOwn(s, 'type');
  const typed = (type === 'string' && typeof def === 'string') || (type === 'boolean' && typeof def === 'boolean')
    || (type === 'number' && typeof def === 'number' && Number.isFinite(def)) || (type === 'integer' && Number.isSafeInteger(def));
  if (!typed) return false;
  const choices = getOwn(s, 'enum');
  return choices === undefined || (Array.isArray(choices) && choices.includes(def));
}

function walk(s: RawSchema | undefined, path: string, insideMeta: boolean, ajv: { get(): AjvInstance }, errs: FieldError[], depth: number): void {
  if (!s || depth > maxSchemaDepth) return;
  const embedded = getOwn(s, 'x-kubernetes-embedded-resource') === true;
  if (embedded) insideMeta = false;
  const def = getOwn(s, 'default');
  if (def !== undefined && def !== null) {
    const at = `${path}.default`;
    let pruned = true;
    if (!insideMeta) {
      const copy = deepCopy(def);
      if (pruneValue(copy, toNode(s)).length) {
        errs.push(fieldInvalid(at, def, 'must not have unknown fields'));
        pruned = false;
      }
    }
    if (pruned && !plainlyValid(s, def)) errs.push(...compileValidatorSync(s, ajv.get()).validate(def, at));
  }
  const items = rawRecord(s, 'items');
  if (items) walk(items, `${path}.items`, insideMeta, ajv, errs, depth + 1);
  for (const [k, p] of schemaEntries(getOwn(s, 'properties'))) {
    walk(p, `${path}.properties[${k}]`, insideMeta || (embedded && metaFields.has(k)), ajv, errs, depth + 1);
  }
}

/** Errors of the defaults in a structural schema (the resource root counts as an embedded resource). Needs ajv loaded. */
export function validateDefaults(schema: RawSchema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let shared: AjvInstance | undefined;
  const ajv = { get: () => (shared ??= newAjv()) };
  const root = { ...schema, 'x-kubernetes-embedded-resource': true };
  walk(root, path, false, ajv, errs, 0);
  return errs;
}
