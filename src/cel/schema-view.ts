// A structural schema node reduced to what CEL needs (types, children, bounds, list and map semantics), built
// once from the CRD's JSON with a depth limit and without trusting its keys.
import { getOwn } from '../util/own.js';

export interface SchemaView {
  type: string;
  format?: string;
  properties?: Map<string, SchemaView>;
  additionalProperties?: SchemaView;
  items?: SchemaView;
  intOrString: boolean;
  preserveUnknown: boolean;
  embedded: boolean;
  maxLength?: number;
  maxItems?: number;
  maxProperties?: number;
  listType?: string;
  listMapKeys?: string[];
  mapType?: string;
  /** Property names the object requires. */
  required?: string[];
  /** Whether the node declares a default (the server fills it in, so a request may omit it). */
  hasDefault: boolean;
  /** The longest string among the node's enum values, when it has an enum. */
  enumMaxLength?: number;
  raw: Record<string, unknown>;
}

/** Schemas nest a few dozen levels in practice; deeper ones are cut here (treated as free-form). */
export const maxSchemaDepth = 64;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);

export function toSchemaView(raw: unknown, depth = 0): SchemaView {
  const s = isObj(raw) ? raw : {};
  const view: SchemaView = {
    type: typeof getOwn(s, 'type') === 'string' ? (getOwn(s, 'type') as string) : '',
    format: typeof getOwn(s, 'format') === 'string' ? (getOwn(s, 'format') as string) : undefined,
    intOrString: getOwn(s, 'x-kubernetes-int-or-string') === true,
    preserveUnknown: getOwn(s, 'x-kubernetes-preserve-unknown-fields') === true,
    embedded: getOwn(s, 'x-kubernetes-embedded-resource') === true,
    maxLength: num(getOwn(s, 'maxLength')),
    maxItems: num(getOwn(s, 'maxItems')),
    maxProperties: num(getOwn(s, 'maxProperties')),
    listType: typeof getOwn(s, 'x-kubernetes-list-type') === 'string' ? (getOwn(s, 'x-kubernetes-list-type') as string) : undefined,
    mapType: typeof getOwn(s, 'x-kubernetes-map-type') === 'string' ? (getOwn(s, 'x-kubernetes-map-type') as string) : undefined,
    hasDefault: getOwn(s, 'default') !== undefined,
    raw: s,
  };
  const required = getOwn(s, 'required');
  if (Array.isArray(required)) view.required = required.filter((k): k is string => typeof k === 'string');
  const values = getOwn(s, 'enum');
  if (Array.isArray(values) && values.length) view.enumMaxLength = values.reduce((m: number, v) => (typeof v === 'string' ? Math.max(m, v.length) : m), 0);
  const keys = getOwn(s, 'x-kubernetes-list-map-keys');
  if (Array.isArray(keys)) view.listMapKeys = keys.filter((k): k is string => typeof k === 'string');
  if (depth >= maxSchemaDepth) return { ...view, type: '', preserveUnknown: true };
  const props = getOwn(s, 'properties');
  if (isObj(props)) {
    view.properties = new Map();
    for (const k of Object.keys(props)) view.properties.set(k, toSchemaView(props[k], depth + 1));
  }
  const ap = getOwn(s, 'additionalProperties');
  if (isObj(ap)) view.additionalProperties = toSchemaView(ap, depth + 1);
  const items = getOwn(s, 'items');
  if (isObj(items)) view.items = toSchemaView(items, depth + 1);
  return view;
}
