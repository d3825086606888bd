// Structural check of a decoded body against the kind's OpenAPI schema, reporting what upstream's decoders report:
// unknown field paths (`spec.template.spec.containers[0].foo`) and type mismatches, worded as the decoder that
// meets them words them (see type-errors.ts). Schemas resolve lazily and are cached; nothing runs at import time.
import { isRecord, type GroupVersionKind } from '../../machinery/types.js';
import { resolveSchema, schemaForKind, type OpenApiDocument, type OpenApiSchema } from '../../openapi/documents.js';
import { parseQuantity } from '../../machinery/quantity.js';
import { hasOwn, setOwn } from '../../util/own.js';
import { mismatchText, listKeyElement, type Shape, type TypeErrorWording } from './type-errors.js';

export type { TypeErrorWording } from './type-errors.js';

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
    const listType = s['x-kubernetes-list-type'];
    const keys = listType === 'map' ? s['x-kubernetes-list-map-keys'] : undefined;
    shape = { t: 'array', items: s.items, goType: `[]${goTypeOfShape(shapeOf(doc, s.items))}`, keys: keys?.length ? keys : undefined, set: listType === 'set' };
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

interface Walk {
  doc: OpenApiDocument;
  wording: TypeErrorWording;
  unknown: string[];
  typeErrors: string[];
  /**
   * Decode as the typed struct does: drop unknown fields, drop struct fields holding null (for Go a null field is
   * an absent, nil or zero, one), and turn nulls inside lists and maps into the element type's zero value (Go
   * decodes `[null]` into a zero struct, `{"k": null}` into "").
   */
  prune: boolean;
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

/**
 * Where a value sits: the step from its parent (a struct field, a list item or a map key), spelt out in each
 * decoder's notation only when something is reported there.
 */
interface At {
  up: At | undefined;
  step: 'field' | 'item' | 'key';
  /** The field name, the item's index or the map key. */
  key: string;
  /** A list item's element in structured-merge-diff's notation (`[name="web"]`, default `[i]`). */
  element?: string;
  /** The innermost struct's name (encoding/json names the Go struct field by it). */
  struct: string;
  depth: number;
}

/** `spec.containers[0].image`: unknown-field paths. */
function pathOf(at: At): string {
  if (!at.up) return '';
  const p = pathOf(at.up);
  return at.step === 'field' ? (p ? `${p}.${at.key}` : at.key) : `${p}[${at.key}]`;
}

/** `spec.containers.image`: encoding/json's Go struct field path (list items and map keys leave no trace). */
function goPathOf(at: At): string {
  if (!at.up) return '';
  const p = goPathOf(at.up);
  return at.step !== 'field' ? p : p ? `${p}.${at.key}` : at.key;
}

/** `.spec.containers[name="web"].image`: structured-merge-diff's path. */
function typedOf(at: At): string {
  if (!at.up) return '';
  const p = typedOf(at.up);
  return at.step === 'item' ? `${p}${at.element ?? `[${at.key}]`}` : `${p}.${at.key}`;
}

/** encoding/json and the unstructured converter stop at the first error; structured-merge-diff reports them all. */
function report(w: Walk, at: At, text: string): void {
  if (w.wording !== 'typed') {
    if (!w.typeErrors.length) w.typeErrors.push(text);
    return;
  }
  const typed = typedOf(at);
  w.typeErrors.push(typed ? `${typed}: ${text}` : text);
}

const base64Re = /^[A-Za-z0-9+/]*={0,2}$/;

function badBase64(s: string): string | undefined {
  const t = s.replace(/[\r\n]/g, '');
  if (base64Re.test(t) && t.length % 4 === 0) return undefined;
  const bad = t.search(/[^A-Za-z0-9+/=]/);
  return `illegal base64 data at input byte ${bad >= 0 ? bad : t.length - (t.length % 4)}`;
}

function walk(w: Walk, value: unknown, raw: OpenApiSchema | undefined, at: At): void {
  if (value === null || value === undefined || at.depth > maxSchemaDepth) return;
  const depth = at.depth + 1;
  const shape = shapeOf(w.doc, raw);
  const mismatch = mismatchText(w.wording, shape, value, at.struct, () => goPathOf(at));
  if (mismatch !== undefined) return report(w, at, mismatch);
  switch (shape.t) {
    case 'quantity': {
      if (typeof value === 'number') return;
      const q = parseQuantity(typeof value === 'string' ? value : JSON.stringify(value));
      if ('error' in q && w.wording !== 'typed') report(w, at, q.error);
      return;
    }
    case 'scalar':
      if (shape.json === 'bytes' && w.wording !== 'typed' && typeof value === 'string') {
        const bad = badBase64(value);
        if (bad) report(w, at, bad);
      }
      return;
    case 'array': {
      if (!Array.isArray(value)) return;
      const keyed = w.wording === 'typed' && (shape.keys || shape.set);
      const seen = keyed ? new Set<string>() : undefined;
      const zero = w.prune && value.includes(null) ? zeroValue(shapeOf(w.doc, shape.items)) : null;
      for (let i = 0; i < value.length; i++) {
        if (value[i] === null && zero !== null) value[i] = structuredClone(zero);
        let element: string | undefined;
        if (seen) {
          const key = listKeyElement(shape, value[i], (s) => resolveSchema(w.doc, s));
          if ('error' in key) return report(w, at, `element ${i}: ${key.error}`);
          element = key.element;
          if (seen.has(element)) report(w, at, `duplicate entries for key ${element}`);
          seen.add(element);
        }
        walk(w, value[i], shape.items, { up: at, step: 'item', key: String(i), element, struct: at.struct, depth });
      }
      return;
    }
    case 'map': {
      if (!isRecord(value)) return;
      const zero = w.prune ? zeroValue(shapeOf(w.doc, shape.values)) : null;
      // (for-in over own keys: no entry arrays allocated per node.)
      for (const k in value) {
        if (!hasOwn(value, k)) continue;
        if (value[k] === null && zero !== null) setOwn(value, k, structuredClone(zero));
        walk(w, value[k], shape.values, { up: at, step: 'key', key: k, struct: at.struct, depth });
      }
      return;
    }
    case 'struct':
      if (!isRecord(value)) return;
      for (const k in value) {
        if (!hasOwn(value, k)) continue;
        const v = value[k];
        const prop = hasOwn(shape.props, k) ? shape.props[k] : undefined;
        if (prop === undefined) {
          const here: At = { up: at, step: 'field', key: k, struct: shape.name, depth };
          w.unknown.push(pathOf(here));
          if (w.prune) delete value[k];
          if (w.wording === 'typed') {
            // structured-merge-diff stops looking at an object once it meets a field it does not know.
            report(w, here, 'field not declared in schema');
            return;
          }
        } else if (v === null && w.prune) delete value[k];
        else walk(w, v, prop, { up: at, step: 'field', key: k, struct: shape.name, depth });
      }
      return;
    default:
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
 * Unknown field paths (every one, in document order) and type errors of `obj` against the OpenAPI schema of `gvk`,
 * worded as `wording`'s decoder words them: the first one for encoding/json (`json`, bodies of creates and updates,
 * JSON and merge patches) and the unstructured converter (`unstructured`, strategic merge patches); every one,
 * unknown fields included, for structured-merge-diff (`typed`, server-side apply). Kinds without a schema (custom
 * resources) report nothing.
 */
export function checkAgainstSchema(gvk: GroupVersionKind, obj: unknown, prune = false, wording: TypeErrorWording = 'json'): { unknownFields: string[]; typeErrors: string[] } {
  const root = rootFor(gvk);
  if (!root) return { unknownFields: [], typeErrors: [] };
  const w: Walk = { doc: root.doc, wording, unknown: [], typeErrors: [], prune };
  walk(w, obj, root.schema, { up: undefined, step: 'field', key: '', struct: gvk.kind, depth: 0 });
  return { unknownFields: w.unknown, typeErrors: w.typeErrors };
}
