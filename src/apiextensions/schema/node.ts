// The structural view of a CRD schema (upstream's schema.Structural, trimmed to what pruning, defaulting, list
// checks and embedded-resource checks need), built once per schema with own-property reads only.
import { isRecord } from '../../machinery/types.js';
import { getOwn, hasOwn } from '../../util/own.js';

/** Schemas of real CRDs nest deeply (LeaderWorkerSet embeds a pod template); nothing below this is looked at. */
export const maxSchemaDepth = 300;

export type RawSchema = Record<string, unknown>;

export interface Node {
  raw: RawSchema;
  type: string;
  nullable: boolean;
  /** `properties`, in the schema's order. */
  properties?: Map<string, Node>;
  /** `additionalProperties`: a schema, `true` (any value, nothing to prune) or `false` (none allowed). */
  additional?: Node | boolean;
  items?: Node;
  preserveUnknown: boolean;
  embedded: boolean;
  intOrString: boolean;
  listType?: string;
  listMapKeys?: string[];
  hasDefault: boolean;
  default?: unknown;
}

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const raw = (s: RawSchema, key: string): unknown => getOwn(s, key);
export const rawRecord = (s: RawSchema, key: string): RawSchema | undefined => {
  const v = getOwn(s, key);
  return isRecord(v) ? v : undefined;
};

/** The own keys of a `properties`-like map whose values are schemas. */
export function schemaEntries(v: unknown): [string, RawSchema][] {
  if (!isRecord(v)) return [];
  const out: [string, RawSchema][] = [];
  for (const k of Object.keys(v)) {
    const s = v[k];
    if (isRecord(s)) out.push([k, s]);
  }
  return out;
}

const cache = new WeakMap<RawSchema, Node>();

/** The structural node of `s`; schemas nested deeper than maxSchemaDepth end in a node that keeps everything. */
export function toNode(s: RawSchema, depth = 0): Node {
  const cached = cache.get(s);
  if (cached) return cached;
  const n: Node = {
    raw: s,
    type: str(raw(s, 'type')),
    nullable: raw(s, 'nullable') === true,
    preserveUnknown: raw(s, 'x-kubernetes-preserve-unknown-fields') === true,
    embedded: raw(s, 'x-kubernetes-embedded-resource') === true,
    intOrString: raw(s, 'x-kubernetes-int-or-string') === true,
    hasDefault: hasOwn(s, 'default') && getOwn(s, 'default') !== null,
  };
  if (n.hasDefault) n.default = getOwn(s, 'default');
  const lt = raw(s, 'x-kubernetes-list-type');
  if (typeof lt === 'string') n.listType = lt;
  const keys = raw(s, 'x-kubernetes-list-map-keys');
  if (Array.isArray(keys)) n.listMapKeys = keys.filter((k): k is string => typeof k === 'string');
  if (depth >= maxSchemaDepth) {
    n.preserveUnknown = true;
    cache.set(s, n);
    return n;
  }
  const props = schemaEntries(raw(s, 'properties'));
  if (props.length || isRecord(raw(s, 'properties'))) {
    n.properties = new Map();
    for (const [k, v] of props) n.properties.set(k, toNode(v, depth + 1));
  }
  const ap = raw(s, 'additionalProperties');
  if (typeof ap === 'boolean') n.additional = ap;
  else if (isRecord(ap)) n.additional = toNode(ap, depth + 1);
  const items = raw(s, 'items');
  if (isRecord(items)) n.items = toNode(items, depth + 1);
  cache.set(s, n);
  return n;
}

/** The schema that applies to `key` of an object of schema n: its property, else additionalProperties. */
export function childNode(n: Node | undefined, key: string): Node | undefined {
  if (!n) return undefined;
  const p = n.properties?.get(key);
  if (p) return p;
  return typeof n.additional === 'object' ? n.additional : undefined;
}

/** JSON deep copy (values are JSON: no cycles, no prototypes). */
export function deepCopy<T>(v: T, depth = 0): T {
  if (v === null || typeof v !== 'object' || depth > 1_000) return v;
  if (Array.isArray(v)) return v.map((x) => deepCopy(x, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    if (k === '__proto__') Object.defineProperty(out, k, { value: deepCopy(x, depth + 1), writable: true, enumerable: true, configurable: true });
    else out[k] = deepCopy(x, depth + 1);
  }
  return out as T;
}
