// Pruning of custom objects (upstream's pruning.PruneWithOptions plus the ObjectMeta coercion that reports unknown
// metadata fields, and PruneNonNullableNullsWithoutDefaults): unknown fields are removed in place and their paths
// returned in upstream's order, e.g. `metadata.foo`, then `spec.bar`, `spec.list[0].baz` (sorted), then unknown
// fields of embedded objects' metadata.
import { isRecord } from '../../machinery/types.js';
import { hasOwn } from '../../util/own.js';
import { childNode, maxSchemaDepth, type Node } from './node.js';

/** metav1.ObjectMeta's JSON fields: what the root `metadata` (and an embedded object's) keeps. */
export const objectMetaFields: ReadonlySet<string> = new Set([
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
]);
const metaFields: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'metadata']);
/** Nested arrays under no schema are walked this deep at most (their objects are emptied). */
const maxDataDepth = maxSchemaDepth + 50;

interface Walk {
  unknown: string[];
  embeddedMeta: string[];
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** Drops the keys of an object's `metadata` that ObjectMeta does not have. */
function pruneMeta(obj: Record<string, unknown>, path: string, out: string[]): void {
  const meta = hasOwn(obj, 'metadata') ? obj.metadata : undefined;
  if (!isRecord(meta)) return;
  const at = join(path, 'metadata');
  for (const k of Object.keys(meta)) {
    if (!objectMetaFields.has(k)) {
      out.push(`${at}.${k}`);
      delete meta[k];
    }
  }
}

function prune(w: Walk, x: unknown, s: Node | undefined, path: string, depth: number): void {
  if (depth > maxDataDepth) return;
  if (s?.preserveUnknown) return skipPrune(w, x, s, path, depth);
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) prune(w, x[i], s?.items, `${path}[${i}]`, depth + 1);
    return;
  }
  if (!isRecord(x)) return;
  if (!s) {
    for (const k of Object.keys(x)) {
      w.unknown.push(join(path, k));
      delete x[k];
    }
    return;
  }
  if (s.embedded && path) pruneMeta(x, path, w.embeddedMeta);
  for (const k of Object.keys(x)) {
    if (s.embedded && metaFields.has(k)) continue;
    const prop = s.properties?.get(k);
    if (prop) prune(w, x[k], prop, join(path, k), depth + 1);
    else if (s.additional !== undefined) {
      if (typeof s.additional === 'object') prune(w, x[k], s.additional, join(path, k), depth + 1);
    } else {
      if (!metaFields.has(k) || path) w.unknown.push(join(path, k));
      delete x[k];
    }
  }
}

/** Below x-kubernetes-preserve-unknown-fields: unknown fields stay, known ones are still pruned by their schema. */
function skipPrune(w: Walk, x: unknown, s: Node, path: string, depth: number): void {
  if (depth > maxDataDepth) return;
  if (Array.isArray(x)) {
    if (s.items) for (let i = 0; i < x.length; i++) skipPrune(w, x[i], s.items, `${path}[${i}]`, depth + 1);
    return;
  }
  if (!isRecord(x)) return;
  if (s.embedded && path) pruneMeta(x, path, w.embeddedMeta);
  for (const k of Object.keys(x)) {
    if (s.embedded && metaFields.has(k)) continue;
    const prop = s.properties?.get(k);
    if (prop) prune(w, x[k], prop, join(path, k), depth + 1);
    else if (typeof s.additional === 'object') prune(w, x[k], s.additional, join(path, k), depth + 1);
  }
}

/** Removes nulls where the schema neither allows them (nullable) nor defaults them. */
export function pruneNulls(x: unknown, s: Node | undefined, depth = 0): void {
  if (!s || depth > maxDataDepth) return;
  if (Array.isArray(x)) {
    for (const v of x) pruneNulls(v, s.items, depth + 1);
    return;
  }
  if (!isRecord(x)) return;
  for (const k of Object.keys(x)) {
    const sub = childNode(s, k);
    const v = x[k];
    if (v === null && sub && !sub.nullable && !sub.hasDefault) delete x[k];
    else pruneNulls(v, sub, depth + 1);
  }
}

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Prunes a custom object (the resource root: apiVersion and kind stay, metadata keeps ObjectMeta's fields) and
 * returns the unknown field paths: root metadata's first, then the pruned ones sorted, then embedded metadata's.
 */
export function pruneObject(obj: unknown, root: Node): string[] {
  const w: Walk = { unknown: [], embeddedMeta: [] };
  const rootMeta: string[] = [];
  if (isRecord(obj)) pruneMeta(obj, '', rootMeta);
  const asRoot: Node = { ...root, embedded: true };
  prune(w, obj, asRoot, '', 0);
  pruneNulls(obj, root);
  return [...rootMeta, ...w.unknown.sort(byteOrder), ...w.embeddedMeta.sort(byteOrder)];
}

/** Pruning of a value under a schema (not a resource root), as upstream checks defaults: true if nothing was removed. */
export function pruneValue(x: unknown, s: Node): string[] {
  const w: Walk = { unknown: [], embeddedMeta: [] };
  prune(w, x, s, '', 0);
  return [...w.unknown, ...w.embeddedMeta];
}
