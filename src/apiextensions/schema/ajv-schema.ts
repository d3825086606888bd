// Translates a CRD schema (OpenAPI v3.0 with Kubernetes extensions) into the JSON Schema ajv compiles, keeping for
// each translated node what the error texts need (upstream's type list, format and pattern as written):
// - `nullable` becomes a `null` member of the type list; `x-kubernetes-int-or-string` the type list integer,string
//   (as upstream's converter does);
// - boolean `exclusiveMaximum`/`exclusiveMinimum` (OpenAPI 3.0) become numeric limits;
// - only the formats upstream checks are kept (renamed without dashes); the rest are dropped as upstream strips them;
// - annotations (description, default, example ...) and `x-kubernetes-*` extensions are left out: pruning, defaulting,
//   list and embedded-object checks handle those beside ajv, and CEL rules are not this module's.
import { isRecord } from '../../machinery/types.js';
import { getOwn } from '../../util/own.js';
import { checkedFormat, effectiveFormat } from './formats.js';
import { maxSchemaDepth, schemaEntries, str, type RawSchema } from './node.js';

export interface NodeMeta {
  /** Upstream's type list for messages: `integer`, `integer,string`; empty when untyped. */
  types: string[];
  nullable: boolean;
  /** The format as written, when upstream keeps it (decides some type-error wording). */
  format: string;
  pattern: string;
}

export const metaOf = new WeakMap<object, NodeMeta>();

/** The patternProperties key standing for a property named __proto__ (see toAjvSchema). */
export const protoPattern = '^__proto__$';

const openapiTypes = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);

const count = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined);
const finite = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export function toAjvSchema(s: RawSchema, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const type = str(getOwn(s, 'type'));
  const intOrString = getOwn(s, 'x-kubernetes-int-or-string') === true;
  const nullable = getOwn(s, 'nullable') === true;
  const types = intOrString ? ['integer', 'string'] : openapiTypes.has(type) ? [type] : [];
  if (types.length) out.type = nullable ? [...types, 'null'] : types.length === 1 ? types[0] : types;
  const rawFormat = str(getOwn(s, 'format'));
  const meta: NodeMeta = { types, nullable, format: effectiveFormat(intOrString ? 'string' : type, rawFormat), pattern: '' };
  metaOf.set(out, meta);
  if (depth >= maxSchemaDepth) return out;

  const enumValues = getOwn(s, 'enum');
  if (Array.isArray(enumValues) && enumValues.length) out.enum = enumValues;
  const max = finite(getOwn(s, 'maximum'));
  if (max !== undefined) out[getOwn(s, 'exclusiveMaximum') === true ? 'exclusiveMaximum' : 'maximum'] = max;
  const min = finite(getOwn(s, 'minimum'));
  if (min !== undefined) out[getOwn(s, 'exclusiveMinimum') === true ? 'exclusiveMinimum' : 'minimum'] = min;
  const multipleOf = finite(getOwn(s, 'multipleOf'));
  if (multipleOf !== undefined && multipleOf > 0) out.multipleOf = multipleOf;
  for (const k of ['maxLength', 'minLength', 'maxItems', 'minItems', 'maxProperties', 'minProperties']) {
    const n = count(getOwn(s, k));
    if (n !== undefined) out[k] = n;
  }
  const pattern = getOwn(s, 'pattern');
  if (typeof pattern === 'string' && pattern) {
    out.pattern = pattern;
    meta.pattern = pattern;
  }
  if (getOwn(s, 'uniqueItems') === true) out.uniqueItems = true;
  const format = checkedFormat(intOrString ? '' : type, rawFormat);
  if (format) out.format = format;
  const required = getOwn(s, 'required');
  if (Array.isArray(required)) {
    const names = [...new Set(required.filter((r): r is string => typeof r === 'string'))];
    if (names.length) out.required = names;
  }

  const props = getOwn(s, 'properties');
  if (isRecord(props)) {
    const p: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of schemaEntries(props)) {
      // ajv loses a property named __proto__ (it builds plain objects from schemas): it is matched by name instead.
      if (k === '__proto__') out.patternProperties = { [protoPattern]: toAjvSchema(v, depth + 1) };
      else p[k] = toAjvSchema(v, depth + 1);
    }
    out.properties = p;
  }
  const ap = getOwn(s, 'additionalProperties');
  if (typeof ap === 'boolean') out.additionalProperties = ap;
  else if (isRecord(ap)) out.additionalProperties = toAjvSchema(ap, depth + 1);
  const items = getOwn(s, 'items');
  if (isRecord(items)) out.items = toAjvSchema(items, depth + 1);
  for (const k of ['allOf', 'anyOf', 'oneOf']) {
    const list = getOwn(s, k);
    if (Array.isArray(list)) {
      const subs = list.filter(isRecord).map((x) => toAjvSchema(x, depth + 1));
      if (subs.length) out[k] = subs;
    }
  }
  const not = getOwn(s, 'not');
  if (isRecord(not)) out.not = toAjvSchema(not, depth + 1);
  return out;
}
