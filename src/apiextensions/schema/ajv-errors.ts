// Maps ajv's errors to the field errors kube-apiserver returns for custom objects (kube-openapi's validator as
// apiextensions' kubeOpenAPIResultToFieldErrors renders it): `spec.replicas: Invalid value: "string": spec.replicas
// in body must be of type integer: "string"`, `spec.x: Required value`, `spec.y: Unsupported value: "z": supported
// values: "a", "b"`, `Too many: 6: must have at most 5 items` ...
import type { ErrorObject } from 'ajv';
import type { FieldError } from '../../machinery/errors.js';
import { fieldNotSupported, fieldRequired } from '../../machinery/errors.js';
import { goFloat, goQuote } from '../../util/go-format.js';
import { getOwn } from '../../util/own.js';
import { isRecord } from '../../machinery/types.js';
import { metaOf, type NodeMeta } from './ajv-schema.js';

/** field.Error's rendering of a bad value: strings quoted, numbers and booleans bare, the rest as JSON. */
function renderValue(v: unknown): string {
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : goFloat(v);
  if (typeof v === 'boolean') return String(v);
  return JSON.stringify(v) ?? 'null';
}

const invalid = (field: string, value: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, message: `Invalid value: ${renderValue(value)}: ${detail}` });
const typeInvalid = (field: string, value: unknown, detail: string): FieldError => ({ type: 'FieldValueTypeInvalid', field, message: `Invalid value: ${renderValue(value)}: ${detail}` });
const tooMany = (field: string, actual: number, max: number): FieldError => ({
  type: 'FieldValueTooMany', field, message: `Too many: ${actual}: must have at most ${max} ${max === 1 ? 'item' : 'items'}`,
});
const tooLong = (field: string, max: number): FieldError => ({ type: 'FieldValueTooLong', field, message: `Too long: may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}` });

/** The JSON type (and Go format) upstream's type validator infers from a decoded value. */
function dataType(v: unknown): { type: string; format: string } {
  if (v === null) return { type: 'null', format: '' };
  if (typeof v === 'boolean') return { type: 'boolean', format: '' };
  if (typeof v === 'string') return { type: 'string', format: '' };
  if (typeof v === 'number') return Number.isInteger(v) ? { type: 'integer', format: 'int64' } : { type: 'number', format: 'float64' };
  if (Array.isArray(v)) return { type: 'array', format: '' };
  return { type: 'object', format: '' };
}

/** kube-openapi's typeValidator: the wording changes to the format for a non-string, non-array value of a formatted schema. */
function typeError(field: string, name: string, meta: NodeMeta, data: unknown): FieldError {
  const t = dataType(data);
  if (data !== null && meta.format && t.type !== 'string' && t.type !== 'array' && !meta.types.includes(t.type) && t.format !== meta.format
    && !(t.type === 'integer' && meta.types.includes('number'))) {
    return typeInvalid(field, t.format, `${name} in body must be of type ${meta.format}: ${goQuote(t.format)}`);
  }
  return typeInvalid(field, t.type, `${name} in body must be of type ${meta.types.join(',')}: ${goQuote(t.type)}`);
}

/** A limit as upstream prints it: truncated to an integer for integer data (its int64 comparison), else %v of a float64. */
const limitText = (limit: number, data: unknown) => (typeof data === 'number' && Number.isInteger(data) ? String(Math.trunc(limit)) : goFloat(limit));

/** The go-openapi name of a value (`spec.containers[0].name`) from ajv's JSON pointer, resolved against the data. */
export function nameOf(root: unknown, pointer: string): string {
  if (!pointer) return '';
  let name = '';
  let cur: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      name += `[${seg}]`;
      cur = cur[Number(seg)];
    } else {
      name = name ? `${name}.${seg}` : seg;
      cur = isRecord(cur) ? getOwn(cur, seg) : undefined;
    }
  }
  return name;
}

const emptyMeta: NodeMeta = { types: [], nullable: false, format: '', pattern: '' };

/** Keeps, below each failed anyOf/oneOf, only the errors of the branch with the fewest (upstream keeps its best failure). */
function bestBranches(errors: ErrorObject[]): ErrorObject[] {
  let out = errors;
  for (const e of errors) {
    if (e.keyword !== 'anyOf' && e.keyword !== 'oneOf') continue;
    const prefix = `${e.schemaPath}/`;
    const counts = new Map<string, number>();
    for (const x of out) {
      if (x.instancePath.startsWith(e.instancePath) && x.schemaPath.startsWith(prefix)) {
        const branch = x.schemaPath.slice(prefix.length).split('/')[0];
        counts.set(branch, (counts.get(branch) ?? 0) + 1);
      }
    }
    if (counts.size <= 1) continue;
    let best = '';
    let bestCount = Infinity;
    for (const [b, c] of counts) if (c < bestCount) [best, bestCount] = [b, c];
    out = out.filter((x) => !(x.instancePath.startsWith(e.instancePath) && x.schemaPath.startsWith(prefix)) || x.schemaPath.startsWith(`${prefix}${best}/`));
  }
  return out;
}

const stringRank: Record<string, number> = { maxLength: 1, minLength: 2, pattern: 3 };

/** Converts ajv's errors for `data` into field errors; `prefix` is the field path of `data` itself (none: `<nil>`). */
export function toFieldErrors(errors: ErrorObject[], data: unknown, prefix: string, schema: unknown): FieldError[] {
  const fieldOf = (name: string) => (prefix ? (name ? `${prefix}.${name}` : prefix) : name || '<nil>');
  const composite = (detail: string): FieldError => invalid(prefix || '<nil>', '', detail);
  const kept = bestBranches(errors);
  // The string validator stops at its first failure: maxLength, then minLength, then pattern.
  const firstString = new Map<string, number>();
  for (const e of kept) {
    const r = stringRank[e.keyword];
    if (r && r < (firstString.get(e.instancePath) ?? Infinity)) firstString.set(e.instancePath, r);
  }
  const out: FieldError[] = [];
  const allOfFailures = new Map<string, { field: string; name: string; failed: Set<string>; total: number }>();
  for (const e of kept) {
    const rank = stringRank[e.keyword];
    if (rank && rank !== firstString.get(e.instancePath)) continue;
    const name = nameOf(data, e.instancePath);
    const field = fieldOf(name);
    const meta = (isRecord(e.parentSchema) ? metaOf.get(e.parentSchema) : undefined) ?? emptyMeta;
    const p = e.params as Record<string, unknown>;
    const v = e.data;
    // Failures inside an allOf branch also fail the allOf (reported after, as upstream adds it after merging).
    const allOf = /^(.*)\/allOf\/(\d+)\//.exec(e.schemaPath);
    if (allOf) {
      const key = `${e.instancePath}|${allOf[1]}`;
      let entry = allOfFailures.get(key);
      if (!entry) {
        const owner = e.instancePath;
        entry = { field: fieldOf(nameOf(data, owner)), name: nameOf(data, owner), failed: new Set(), total: 0 };
        allOfFailures.set(key, entry);
      }
      entry.failed.add(allOf[2]);
    }
    switch (e.keyword) {
      case 'type': out.push(typeError(field, name, meta, v)); break;
      case 'required': {
        const missing = String(p.missingProperty);
        out.push(fieldRequired(name ? fieldOf(`${name}.${missing}`) : fieldOf(missing)));
        break;
      }
      case 'enum': {
        const allowed = Array.isArray(p.allowedValues) ? p.allowedValues : [];
        out.push(fieldNotSupported(field, v, allowed.map((a) => (typeof a === 'string' ? a : JSON.stringify(a)))));
        break;
      }
      case 'maxLength': out.push(tooLong(field, Number(p.limit))); break;
      case 'minLength': out.push(invalid(field, v, `${name} in body should be at least ${Number(p.limit)} chars long`)); break;
      case 'pattern': out.push(invalid(field, v, `${name} in body should match '${meta.pattern}'`)); break;
      case 'format': out.push(typeInvalid(field, v, `${name} in body must be of type ${meta.format}: ${goQuote(String(v))}`)); break;
      case 'maximum': out.push(invalid(field, v, `${name} in body should be less than or equal to ${limitText(Number(p.limit), v)}`)); break;
      case 'exclusiveMaximum': out.push(invalid(field, v, `${name} in body should be less than ${limitText(Number(p.limit), v)}`)); break;
      case 'minimum': out.push(invalid(field, v, `${name} in body should be greater than or equal to ${limitText(Number(p.limit), v)}`)); break;
      case 'exclusiveMinimum': out.push(invalid(field, v, `${name} in body should be greater than ${limitText(Number(p.limit), v)}`)); break;
      case 'multipleOf': out.push(invalid(field, v, `${name} in body should be a multiple of ${limitText(Number(p.multipleOf), v)}`)); break;
      case 'maxItems': out.push(tooMany(field, Array.isArray(v) ? v.length : -1, Number(p.limit))); break;
      case 'minItems': out.push(invalid(field, Array.isArray(v) ? v.length : 0, `${name} in body should have at least ${Number(p.limit)} items`)); break;
      case 'maxProperties': out.push(tooMany(field, isRecord(v) ? Object.keys(v).length : -1, Number(p.limit))); break;
      case 'minProperties': out.push(invalid(field, isRecord(v) ? Object.keys(v).length : 0, `${name} in body should have at least ${Number(p.limit)} properties`)); break;
      case 'additionalProperties': out.push(invalid(field, String(p.additionalProperty), `${name}.${String(p.additionalProperty)} in body is a forbidden property`)); break;
      case 'uniqueItems': out.push(invalid(field, '', `${name} in body shouldn't contain duplicates`)); break;
      case 'anyOf': out.push(composite(`${goQuote(name)} must validate at least one schema (anyOf)`)); break;
      case 'oneOf': {
        const passing = Array.isArray(p.passingSchemas) ? p.passingSchemas.length : 0;
        out.push(composite(`${goQuote(name)} must validate one and only one schema (oneOf). ${passing ? `Found ${passing} valid alternatives` : 'Found none valid'}`));
        break;
      }
      case 'not': out.push(composite(`${goQuote(name)} must not validate the schema (not)`)); break;
      default: out.push(invalid(field, v ?? '', `${name} in body ${e.message ?? 'is invalid'}`));
    }
  }
  for (const [key, entry] of allOfFailures) {
    const schemaPath = key.slice(key.indexOf('|') + 1);
    const owner = resolveSchemaPath(schema, schemaPath);
    const list = isRecord(owner) ? owner.allOf : undefined;
    const total = Array.isArray(list) ? list.length : entry.failed.size + 1;
    out.push(composite(`${goQuote(entry.name)} must validate all the schemas (allOf)${entry.failed.size >= total ? '. None validated' : ''}`));
  }
  return out;
}

/** The translated schema node at ajv's schema path (`#/properties/spec`), or undefined. */
function resolveSchemaPath(root: unknown, path: string): unknown {
  let cur = root;
  for (const raw of path.replace(/^#\/?/, '').split('/')) {
    if (!raw) continue;
    const seg = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) cur = cur[Number(seg)];
    else if (isRecord(cur)) cur = getOwn(cur, seg);
    else return undefined;
  }
  return cur;
}
