// Walks a kind's OpenAPI v3 schema one field at a time, resolving $ref/allOf at each step, and derives the
// per-field merge information both patch engines need.
import { resolveSchema, schemaForKind, type OpenApiDocument, type OpenApiSchema } from '../../openapi/documents.js';
import type { CustomOpenApiStore } from '../../openapi/custom-store.js';
import type { GroupVersionKind } from '../../machinery/types.js';
import { hasOwn } from '../../util/own.js';

/** A resolved schema position. `undefined` everywhere means "unknown": no schema information. */
export interface SchemaNode {
  doc: OpenApiDocument;
  s: OpenApiSchema;
}

const resolved = new WeakMap<OpenApiSchema, OpenApiSchema | null>();

function node(doc: OpenApiDocument, raw: OpenApiSchema | boolean | undefined): SchemaNode | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  let s = resolved.get(raw);
  if (s === undefined) {
    s = resolveSchema(doc, raw) ?? null;
    resolved.set(raw, s);
  }
  return s ? { doc, s } : undefined;
}

/** Root nodes of the built-in kinds by GVK (the static documents never change). */
const builtinRoots = new Map<string, SchemaNode | null>();
/** Root nodes of a server's custom kinds, dropped whenever its documents change (published or removed). */
const customRoots = new WeakMap<CustomOpenApiStore, { generation: number; roots: Map<string, SchemaNode | null> }>();

/** The root of a kind's schema: a built-in kind's, else (given a server's store) a published custom kind's. */
export function rootNode(gvk: GroupVersionKind, custom?: CustomOpenApiStore): SchemaNode | undefined {
  const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
  let r = builtinRoots.get(key);
  if (r === undefined) {
    const found = schemaForKind(gvk);
    r = (found && node(found.doc, found.schema)) ?? null;
    if (builtinRoots.size < 10_000) builtinRoots.set(key, r);
  }
  if (r || !custom) return r ?? undefined;
  let c = customRoots.get(custom);
  const generation = custom.currentGeneration();
  if (!c || c.generation !== generation || c.roots.size >= 10_000) {
    c = { generation, roots: new Map() };
    customRoots.set(custom, c);
  }
  let cr = c.roots.get(key);
  if (cr === undefined) {
    const found = custom.schemaForKind(gvk);
    cr = (found && node(found.doc, found.schema)) ?? null;
    c.roots.set(key, cr);
  }
  return cr ?? undefined;
}

/** For kinds without a schema (custom resources without one): only metadata is known, as ObjectMeta. */
export function rootNodeOrMeta(gvk: GroupVersionKind, custom?: CustomOpenApiStore): SchemaNode | undefined {
  const known = rootNode(gvk, custom);
  if (known) return known;
  const core = schemaForKind({ group: '', version: 'v1', kind: 'ConfigMap' });
  if (!core) return undefined;
  const meta = core.schema.properties?.metadata;
  return meta ? { doc: core.doc, s: { type: 'object', properties: { metadata: meta } } } : undefined;
}

/** The schema of `key` inside an object schema: a declared property, else the map's value schema. */
export function fieldNode(n: SchemaNode | undefined, key: string): SchemaNode | undefined {
  if (!n) return undefined;
  if (n.s.properties && hasOwn(n.s.properties, key)) return node(n.doc, n.s.properties[key]);
  return node(n.doc, n.s.additionalProperties);
}

/** True when `key` is a declared property (not a map entry or an unknown field). */
export function isDeclaredField(n: SchemaNode | undefined, key: string): boolean {
  return !!n?.s.properties && hasOwn(n.s.properties, key);
}

export function itemNode(n: SchemaNode | undefined): SchemaNode | undefined {
  return n ? node(n.doc, n.s.items) : undefined;
}

// ---- strategic merge patch metadata ----

export interface PatchMeta {
  mergeKey: string;
  strategies: string[];
}

export function patchMeta(n: SchemaNode | undefined): PatchMeta {
  const mk = n?.s['x-kubernetes-patch-merge-key'];
  const st = n?.s['x-kubernetes-patch-strategy'];
  return { mergeKey: typeof mk === 'string' ? mk : '', strategies: typeof st === 'string' && st ? st.split(',') : [] };
}

// ---- structured-merge (server-side apply) types ----

export type StructKind =
  | { kind: 'scalar' }
  | { kind: 'map'; atomic: boolean }
  | { kind: 'list'; listType: 'atomic' | 'set' | 'map'; keys: string[] }
  | { kind: 'deduced' };

const deduced: StructKind = { kind: 'deduced' };
const kinds = new WeakMap<OpenApiSchema, StructKind>();

/** Classifies a schema position as structured-merge-diff would (deduced when there is no usable schema). */
export function structKind(n: SchemaNode | undefined): StructKind {
  if (!n) return deduced;
  let k = kinds.get(n.s);
  if (!k) kinds.set(n.s, (k = classify(n)));
  return k;
}

function classify(n: SchemaNode): StructKind {
  const s = n.s;
  if (s.type === 'array') {
    const lt = s['x-kubernetes-list-type'];
    if (lt === 'map') return { kind: 'list', listType: 'map', keys: s['x-kubernetes-list-map-keys'] ?? [] };
    if (lt === 'set') return { kind: 'list', listType: 'set', keys: [] };
    if (lt === 'atomic') return { kind: 'list', listType: 'atomic', keys: [] };
    const pm = patchMeta(n);
    if (pm.strategies.includes('merge')) {
      return pm.mergeKey ? { kind: 'list', listType: 'map', keys: [pm.mergeKey] } : { kind: 'list', listType: 'set', keys: [] };
    }
    return { kind: 'list', listType: 'atomic', keys: [] };
  }
  if (s.type === 'object' || s.properties || (s.additionalProperties && typeof s.additionalProperties === 'object')) {
    if (!s.properties && !s.additionalProperties) return { kind: 'deduced' };
    return { kind: 'map', atomic: s['x-kubernetes-map-type'] === 'atomic' };
  }
  if (s['x-kubernetes-int-or-string'] || s.type === 'string' || s.type === 'integer' || s.type === 'number' || s.type === 'boolean') {
    return { kind: 'scalar' };
  }
  return { kind: 'deduced' };
}
