// Structural schemas for CustomResourceDefinitions: the CRD-side checks (checkStructural) and, per CRD version, a
// compiled schema that validates, prunes and defaults custom objects as kube-apiserver does. Importing this module
// is cheap: ajv is loaded on the first compile or check (or by loadSchemaMachinery()).
//
// Order for a custom object on create/update (and prune+default on read from storage), as upstream's handler runs it:
//   const unknown = compiled.prune(obj);   // unknown field paths, for fieldValidation Warn/Strict
//   compiled.default(obj);
//   const errs = compiled.validate(obj);   // plus the generic ObjectMeta validation and CEL rules, elsewhere
import { fieldForbidden, type FieldError } from '../../machinery/errors.js';
import { isRecord } from '../../machinery/types.js';
import { getOwn } from '../../util/own.js';
import { validateCrdSchemaRules } from './crd-rules.js';
import { applyDefaults } from './defaults.js';
import { validateDefaults } from './default-check.js';
import { validateEmbeddedAndLists } from './embedded.js';
import { toNode, type RawSchema } from './node.js';
import { pruneObject } from './prune.js';
import { validateStructural } from './structural.js';
import { ajvLoaded, compileValidatorSync, loadAjv } from './validator.js';

export { toOpenApiV2, toOpenApiV3, type Gvk } from './openapi.js';
export { maxSchemaDepth, type RawSchema } from './node.js';

export interface CompiledSchema {
  /** The openAPIV3Schema it was compiled from (not copied: do not mutate it). */
  readonly schema: RawSchema;
  /** Field errors of a custom object (or of a value under the schema when `fieldPrefix` names its path). */
  validate(obj: unknown, fieldPrefix?: string): FieldError[];
  /** Removes unknown fields in place; returns their paths (`metadata.foo`, `spec.bar`, `spec.list[0].baz`). */
  prune(obj: unknown): string[];
  /** Applies the schema's defaults in place. */
  default(obj: unknown): void;
}

/** Loads what compiling needs (ajv); await it once at start-up to make the *Sync functions usable. */
export const loadSchemaMachinery = (): Promise<void> => loadAjv();

const compiled = new WeakMap<RawSchema, CompiledSchema>();

/** The compiled schema; needs loadSchemaMachinery() resolved. Compiling the same schema object again is free. */
export function compileStructuralSync(schema: RawSchema): CompiledSchema {
  const hit = compiled.get(schema);
  if (hit) return hit;
  const root = toNode(schema);
  const validator = compileValidatorSync(schema);
  const c: CompiledSchema = {
    schema,
    validate(obj, fieldPrefix) {
      const errs = validator.validate(obj, fieldPrefix);
      if (fieldPrefix === undefined) errs.push(...validateEmbeddedAndLists(obj, root));
      return errs;
    },
    prune: (obj) => pruneObject(obj, root),
    default: (obj) => applyDefaults(obj, root),
  };
  compiled.set(schema, c);
  return c;
}

export async function compileStructural(schema: RawSchema): Promise<CompiledSchema> {
  if (!ajvLoaded()) await loadAjv();
  return compileStructuralSync(schema);
}

export interface CheckOptions {
  /** Structural and default errors only; the keyword rules of CRD validation are skipped. */
  structuralOnly?: boolean;
}

/**
 * The schema errors CRD validation reports for one version's openAPIV3Schema at `fieldPath`
 * (e.g. `spec.versions[0].schema.openAPIV3Schema`): nullable root, structural invariants (or, when those hold,
 * defaults that do not validate or are not pruned), then the keyword and x-kubernetes-* rules. Needs ajv loaded.
 */
export function checkStructuralSync(schema: unknown, fieldPath: string, opts: CheckOptions = {}): FieldError[] {
  if (!isRecord(schema)) return [];
  const errs: FieldError[] = [];
  if (getOwn(schema, 'nullable') === true) errs.push(fieldForbidden(`${fieldPath}.nullable`, 'nullable cannot be true at the root'));
  const structural = validateStructural(schema, fieldPath);
  if (structural.length) errs.push(...structural);
  else errs.push(...validateDefaults(schema, fieldPath));
  if (!opts.structuralOnly) errs.push(...validateCrdSchemaRules(schema, fieldPath));
  return errs;
}

export async function checkStructural(schema: unknown, fieldPath: string, opts: CheckOptions = {}): Promise<FieldError[]> {
  if (!ajvLoaded()) await loadAjv();
  return checkStructuralSync(schema, fieldPath, opts);
}
