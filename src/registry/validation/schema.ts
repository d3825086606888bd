// Structural check of a decoded body against the kind's OpenAPI schema, reporting what upstream's strict JSON
// decoder reports: unknown field paths (`spec.template.spec.containers[0].foo`) and the first type mismatch in
// encoding/json's wording. Schemas resolve lazily and are cached; nothing runs at import time.
import { isRecord, type GroupVersionKind } from '../../machinery/types.js';
import { hasOwn, setOwn } from '../../util/own.js';
import { resolveSchema, schemaForKind, type OpenApiDocument, type OpenApiSchema } from '../../openapi/documents.js';
import { parseQuantity } from './quantity.js';

type Shape =
  | { t: 'free' }
  | { t: 'struct'; name: string; goType: string; props: Record<string, OpenApiSchema> }
  | { t: 'map'; values: OpenApiSchema | undefined; goType: string }
  | { t: 'array'; items: OpenApiSchema | undefined; goType: string }
  | { t: 'scalar'; json: 'string' | 'bytes' | 'int' | 'number' | 'bool'; goType: string }
  | { t: 'intOrString' }
  | { t: 'quantity' };

const shapes = new WeakMap<OpenApiSchema, Shape>();
const refName = (s: OpenApiSchema | undefined) => {
  const ref = s?.$ref ?? (s?.allOf?.length === 1 ? s.allOf[0].$ref : undefined);
  return ref ? ref.replace('#/components/schemas/', '') : undefined;
};
/** `io.k8s.api.apps.v1.DeploymentSpec` → `v1.DeploymentSpec`. */
const goTypeOfRef = (name: string) => name.split('.').slice(-2).join('.');

function shapeOf(doc: OpenApiDocument, raw: OpenApiSchema | undefined, componentName?: string): Shape {
  if (!raw) return { t: 'free' };
  const cached = shapes.get(raw);
  if (cached) return cached;
  const name = componentName ?? refName(raw);
  const s = resolveSchema(doc, raw) ?? {};
  let shape: Shape;
  const oneOf = Array.isArray(s.oneOf) ? (s.oneOf as OpenApiSchema[]).map((x) => x.type) : [];
  if (s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-embedded-resource']) shape = { t: 'free' };
  else if (s.format === 'int-or-string' || s['x-kubernetes-int-or-string']) shape = { t: 'intOrString' };
  else if (oneOf.includes('string') && oneOf.includes('number')) shape = { t: 'quantity' };
  else if (s.type === 'object' || s.properties) {
    if (s.properties) {
      const goType = name ? goTypeOfRef(name) : 'struct';
      shape = { t: 'struct', name: goType.split('.').pop() ?? goType, goType, props: s.properties };
    } else if (isRecord(s.additionalProperties)) {
      const elem = shapeOf(doc, s.additionalProperties);
      shape = { t: 'map', values: s.additionalProperties, goType: `map[string]${goTypeOfShape(elem)}` };
    } else shape = { t: 'free' };
  } else if (s.type === 'array') {
    shape = { t: 'array', items: s.items, goType: `[]${goTypeOfShape(shapeOf(doc, s.items))}` };
  } else if (s.type === 'string') {
    shape = s.format === 'byte' ? { t: 'scalar', json: 'bytes', goType: '[]uint8' } : { t: 'scalar', json: 'string', goType: 'string' };
  } else if (s.type === 'integer') shape = { t: 'scalar', json: 'int', goType: s.format === 'int32' ? 'int32' : 'int64' };
  else if (s.type === 'number') shape = { t: 'scalar', json: 'number', goType: 'float64' };
  else if (s.type === 'boolean') shape = { t: 'scalar', json: 'bool', goType: 'bool' };
  else shape = { t: 'free' };
  shapes.set(raw, shape);
  return shape;
}

function goTypeOfShape(s: Shape): string {
  switch (s.t) {
    case 'struct': case 'map': case 'array': case 'scalar': return s.goType;
    case 'intOrString': return 'intstr.IntOrString';
    case 'quantity': return 'resource.Quantity';
    default: return 'interface {}';
  }
}

function jsonKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'array' : 'object';
}

interface Walk {
  doc: OpenApiDocument;
  unknown: string[];
  typeErrors: string[];
  /**
   * Decode as the typed struct does: drop unknown fields, and turn nulls inside lists and maps into the
   * element type's zero value (Go decodes `[null]` into a zero struct, `{"k": null}` into "").
   */
  prune: boolean;
  /** Drop struct fields holding null: for Go a null field is an absent (nil or zero) one. */
  dropNulls: boolean;
}

/** Built-in kinds nest a few dozen levels; the walk goes no deeper (what lies below is left as it is). */
const maxSchemaDepth = 100;

/** The JSON form of a Go zero value of the element shape, or null where Go keeps a nil. */
function zeroValue(shape: Shape): unknown {
  switch (shape.t) {
    case 'struct':
      return {};
    case 'scalar':
      return shape.json === 'bool' ? false : shape.json === 'int' || shape.json === 'number' ? 0 : '';
    case 'intOrString':
      return 0;
    case 'quantity':
      return '0';
    default:
      return null;
  }
}

function typeError(w: Walk, value: unknown, struct: string, goPath: string, goType: string, valueText = jsonKind(value)): void {
  if (w.typeErrors.length) return;
  w.typeErrors.push(`json: cannot unmarshal ${valueText} into Go struct field ${struct}.${goPath} of type ${goType}`);
}

const base64Re = /^[A-Za-z0-9+/]*={0,2}$/;

/** Whether a JSON number decodes into the Go integer type (int32, else int64). */
function fitsInteger(v: number, goType: string): boolean {
  if (!Number.isInteger(v)) return false;
  return goType === 'int32' ? v >= -(2 ** 31) && v <= 2 ** 31 - 1 : v >= -(2 ** 63) && v < 2 ** 63;
}

function walk(w: Walk, value: unknown, raw: OpenApiSchema | undefined, path: string, goPath: string, struct: string, depth = 0): void {
  if (value === null || value === undefined || depth > maxSchemaDepth) return;
  const shape = shapeOf(w.doc, raw);
  const join = (p: string, k: string) => (p ? `${p}.${k}` : k);
  switch (shape.t) {
    case 'free':
      return;
    case 'intOrString':
      if (typeof value === 'string') return;
      if (typeof value === 'number' && fitsInteger(value, 'int32')) return;
      return typeError(w, value, struct, goPath, 'int32', typeof value === 'number' ? `number ${value}` : jsonKind(value));
    case 'quantity': {
      if (typeof value === 'number') return;
      const q = parseQuantity(typeof value === 'string' ? value : JSON.stringify(value));
      if ('error' in q && !w.typeErrors.length) w.typeErrors.push(q.error);
      return;
    }
    case 'scalar': {
      const ok = shape.json === 'string' || shape.json === 'bytes' ? typeof value === 'string'
        : shape.json === 'bool' ? typeof value === 'boolean' : typeof value === 'number';
      if (!ok) return typeError(w, value, struct, goPath, shape.goType);
      if (shape.json === 'int' && !fitsInteger(value as number, shape.goType)) return typeError(w, value, struct, goPath, shape.goType, `number ${String(value)}`);
      if (shape.json === 'bytes') {
        const s = (value as string).replace(/[\r\n]/g, '');
        if (!base64Re.test(s) || s.length % 4 !== 0) {
          const bad = s.search(/[^A-Za-z0-9+/=]/);
          if (!w.typeErrors.length) w.typeErrors.push(`illegal base64 data at input byte ${bad >= 0 ? bad : s.length - (s.length % 4)}`);
        }
      }
      return;
    }
    case 'array': {
      if (!Array.isArray(value)) return typeError(w, value, struct, goPath, shape.goType);
      const zero = w.prune && value.includes(null) ? zeroValue(shapeOf(w.doc, shape.items)) : null;
      value.forEach((item, i) => {
        if (item === null && zero !== null) value[i] = structuredClone(zero);
        walk(w, value[i], shape.items, `${path}[${i}]`, goPath, struct, depth + 1);
      });
      return;
    }
    case 'map': {
      if (!isRecord(value)) return typeError(w, value, struct, goPath, shape.goType);
      const zero = w.prune ? zeroValue(shapeOf(w.doc, shape.values)) : null;
      for (const [k, v] of Object.entries(value)) {
        if (v === null && zero !== null) setOwn(value, k, structuredClone(zero));
        walk(w, value[k], shape.values, `${path}[${k}]`, goPath, struct, depth + 1);
      }
      return;
    }
    case 'struct':
      if (!isRecord(value)) return typeError(w, value, struct, goPath, shape.goType);
      for (const [k, v] of Object.entries(value)) {
        if (!hasOwn(shape.props, k)) {
          w.unknown.push(join(path, k));
          if (w.prune) delete value[k];
        } else if (v === null && w.dropNulls) delete value[k];
        else walk(w, v, shape.props[k], join(path, k), join(goPath, k), shape.name, depth + 1);
      }
  }
}

const roots = new Map<string, { doc: OpenApiDocument; schema: OpenApiSchema; name: string } | null>();

function rootFor(gvk: GroupVersionKind) {
  const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
  let r = roots.get(key);
  if (r === undefined) {
    const found = schemaForKind(gvk);
    if (found) {
      const name = Object.entries(found.doc.components?.schemas ?? {}).find(([, s]) => s === found.schema)?.[0] ?? gvk.kind;
      shapeOf(found.doc, found.schema, name);
      r = { doc: found.doc, schema: found.schema, name };
    } else r = null;
    roots.set(key, r);
  }
  return r;
}

/**
 * Unknown field paths (every one, in document order) and type errors (the first, as Go's decoder stops there) of
 * `obj` against the OpenAPI schema of `gvk`. Kinds without a schema (custom resources) report nothing.
 */
export function checkAgainstSchema(gvk: GroupVersionKind, obj: unknown, prune = false, dropNulls = prune): { unknownFields: string[]; typeErrors: string[] } {
  const root = rootFor(gvk);
  if (!root) return { unknownFields: [], typeErrors: [] };
  const w: Walk = { doc: root.doc, unknown: [], typeErrors: [], prune, dropNulls };
  walk(w, obj, root.schema, '', '', gvk.kind);
  return { unknownFields: w.unknown, typeErrors: w.typeErrors };
}
