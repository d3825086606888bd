// How upstream words a value of the wrong JSON type, by the decoder that meets it:
// - `json`: encoding/json (sigs.k8s.io/json) decoding a body into the typed struct (creates, updates, JSON and
//   merge patches): `json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string`;
// - `unstructured`: the unstructured converter turning a strategically merged map into the typed struct:
//   `cannot restore map from string`, `cannot restore struct from: slice`, `unrecognized type: int32`;
// - `typed`: structured-merge-diff validating a server-side apply configuration: `expected map, got &{oops}`.
import { isRecord } from '../../machinery/types.js';
import type { OpenApiSchema } from '../../openapi/documents.js';
import { goFloat, goKind, goQuote, goSharpValue, goTypeName, goValue, jsonKind } from '../../util/go-format.js';

export type TypeErrorWording = 'json' | 'unstructured' | 'typed';

export type Shape =
  | { t: 'free' }
  | { t: 'struct'; name: string; goType: string; props: Record<string, OpenApiSchema> }
  | { t: 'map'; values: OpenApiSchema | undefined; goType: string }
  | { t: 'array'; items: OpenApiSchema | undefined; goType: string; keys?: string[]; set?: boolean }
  | { t: 'scalar'; json: 'string' | 'bytes' | 'int' | 'number' | 'bool'; goType: string }
  | { t: 'intOrString' }
  | { t: 'quantity' };

const isObject = (v: unknown) => isRecord(v);

/** Whether a JSON number decodes into the Go integer type (int32, else int64). */
function fitsInteger(v: number, goType: string): boolean {
  if (!Number.isInteger(v)) return false;
  return goType === 'int32' ? v >= -(2 ** 31) && v <= 2 ** 31 - 1 : v >= -(2 ** 63) && v < 2 ** 63;
}

/** Whether a non-null value fits the shape at all (its JSON type), before any finer check. */
function fits(shape: Shape, v: unknown): boolean {
  switch (shape.t) {
    case 'struct': case 'map': return isObject(v);
    case 'array': return Array.isArray(v);
    case 'intOrString': return typeof v === 'string' || (typeof v === 'number' && fitsInteger(v, 'int32'));
    case 'scalar':
      if (shape.json === 'string' || shape.json === 'bytes') return typeof v === 'string';
      if (shape.json === 'bool') return typeof v === 'boolean';
      return typeof v === 'number' && (shape.json !== 'int' || fitsInteger(v, shape.goType));
    default: return true;
  }
}

function jsonMismatch(shape: Shape, v: unknown, struct: string, goPath: string): string {
  const at = `Go struct field ${struct}.${goPath}`;
  if (shape.t === 'intOrString') return `json: cannot unmarshal ${typeof v === 'number' ? `number ${v}` : jsonKind(v)} into ${at} of type int32`;
  if (shape.t === 'scalar' && shape.json === 'int' && typeof v === 'number') return `json: cannot unmarshal number ${String(v)} into ${at} of type ${shape.goType}`;
  const goType = shape.t === 'struct' || shape.t === 'map' || shape.t === 'array' || shape.t === 'scalar' ? shape.goType : 'interface {}';
  return `json: cannot unmarshal ${jsonKind(v)} into ${at} of type ${goType}`;
}

/** runtime.DefaultUnstructuredConverter.FromUnstructured, on values decoded with integers kept as int64. */
function unstructuredMismatch(shape: Shape, v: unknown): string {
  const kind = goKind(v, true);
  switch (shape.t) {
    case 'struct': return `cannot restore struct from: ${kind}`;
    case 'map': return `cannot restore map from ${kind}`;
    case 'array': return `cannot restore slice from ${kind}`;
    case 'intOrString': return `json: cannot unmarshal ${typeof v === 'number' ? `number ${goFloat(v)}` : jsonKind(v)} into Go value of type int32`;
    case 'scalar':
      if (shape.json === 'bytes') return `cannot restore slice from ${kind}`;
      // Go converts between the integer kinds, from integers to strings (then refuses) and from whole floats to ints.
      if (shape.json === 'string' && kind === 'int64') return 'cannot convert int64 to string';
      if (shape.json === 'int' && kind === 'float64') return `cannot convert float64 to ${shape.goType}`;
      return `unrecognized type: ${shape.goType}`;
    default: return '';
  }
}

/** structured-merge-diff's validation of an apply configuration (YAML numbers are float64 there). */
function typedMismatch(shape: Shape, v: unknown): string | undefined {
  // Printed only for a value that does not fit (printing every value visited would make the walk quadratic).
  const unstructured = () => `&{${goValue(v)}}`;
  switch (shape.t) {
    case 'struct': case 'map': return isObject(v) ? undefined : `expected map, got ${unstructured()}`;
    case 'array': return Array.isArray(v) ? undefined : `expected list, got ${unstructured()}`;
    case 'intOrString': case 'quantity':
      return isObject(v) || Array.isArray(v) ? `expected any scalar, got ${unstructured()}` : undefined;
    case 'scalar':
      if (shape.json === 'string' || shape.json === 'bytes') return typeof v === 'string' ? undefined : `expected string, got &value.valueUnstructured{Value:${goSharpValue(v)}}`;
      if (shape.json === 'bool') return typeof v === 'boolean' ? undefined : `expected boolean, got ${unstructured()}`;
      return typeof v === 'number' ? undefined : `expected numeric (int or float), got ${goTypeName(v)}`;
    default: return undefined;
  }
}

/** The error for a non-null value that does not fit `shape`, or undefined when it fits. */
export function mismatchText(wording: TypeErrorWording, shape: Shape, v: unknown, struct: string, goPath: () => string): string | undefined {
  if (wording === 'typed') return typedMismatch(shape, v);
  if (shape.t === 'quantity' || shape.t === 'free' || fits(shape, v)) return undefined;
  return wording === 'json' ? jsonMismatch(shape, v, struct, goPath()) : unstructuredMismatch(shape, v);
}

/** value.ToString of a key field: strings quoted, numbers and booleans as they are. */
function keyText(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/**
 * The structured-merge-diff path element of an item of an associative list: `[name="web"]`, `[containerPort=80,protocol="TCP"]`
 * (key fields sorted, missing ones from the schema's default) or `[="a"]` for a set; or why the item has none.
 */
export function listKeyElement(shape: Extract<Shape, { t: 'array' }>, item: unknown, resolve: (s: OpenApiSchema | undefined) => OpenApiSchema | undefined): { element: string } | { error: string } {
  if (shape.set) return { element: `[=${keyText(item)}]` };
  if (item === null || item === undefined) return { error: 'associative list with keys may not have a null element' };
  if (!isRecord(item)) return { error: 'associative list with keys may not have non-map elements' };
  const props = resolve(shape.items)?.properties ?? {};
  const parts: string[] = [];
  for (const k of [...(shape.keys ?? [])].sort()) {
    let v = Object.prototype.hasOwnProperty.call(item, k) ? item[k] : undefined;
    if (v === undefined || v === null) v = resolve(props[k])?.default;
    if (v === undefined || v === null) return { error: `associative list with keys has an element that omits key field ${goQuote(k)} (and doesn't have default value)` };
    parts.push(`${k}=${keyText(v)}`);
  }
  return { element: `[${parts.join(',')}]` };
}
