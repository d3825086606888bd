// metadata.managedFields written by clients are kept only if they decode as the field manager decodes them:
// every entry an Apply or Update operation with an apiVersion, fieldsType FieldsV1, and a fieldsV1 that is a
// field set (keys `.`, `f:name`, `k:{json object}`, `v:json`, `i:index`, values objects). Otherwise upstream
// falls back to the live object's entries (none on create), and so does Bonsai.
import { isRecord } from '../machinery/types.js';
import { maxObjectDepth } from '../machinery/depth-limits.js';
import { jsonEqual } from '../util/json-tree.js';

function validPathElement(key: string): boolean {
  if (key === '.' || key.startsWith('f:')) return true;
  if (key.startsWith('i:')) return /^i:-?\d+$/.test(key);
  if (key.startsWith('k:') || key.startsWith('v:')) {
    try {
      const v = JSON.parse(key.slice(2)) as unknown;
      return key.startsWith('v:') || isRecord(v);
    } catch {
      return false;
    }
  }
  return false;
}

function isFieldSet(v: unknown): boolean {
  const work: unknown[] = [v];
  while (work.length) {
    const node = work.pop();
    if (!isRecord(node)) return false;
    for (const [k, child] of Object.entries(node)) {
      if (!validPathElement(k)) return false;
      work.push(child);
    }
  }
  return true;
}

export function managedFieldsDecodable(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  return entries.every((e) => isRecord(e)
    && (e.operation === 'Apply' || e.operation === 'Update')
    && typeof e.apiVersion === 'string' && e.apiVersion !== ''
    && e.fieldsType === 'FieldsV1'
    && (e.fieldsV1 === undefined || e.fieldsV1 === null || isFieldSet(e.fieldsV1)));
}

/**
 * The object as `next` but with `cur`'s managedFields, when the two differ in nothing but the `time` of managedFields
 * entries; otherwise `next` itself. As upstream (its field manager ignores timestamp-only changes), a write whose only
 * effect would be to move an entry's time (a no-op server-side apply whose applied fields differ from the stored ones
 * only by defaults) keeps the old times, so the store is spared it and resourceVersion stays.
 */
export function keepManagedTimesIfOnlyChange<T extends { metadata?: { managedFields?: unknown } }>(next: T, cur: T): T {
  const a = next.metadata?.managedFields;
  const b = cur.metadata?.managedFields;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length || a === b) return next;
  for (let i = 0; i < a.length; i++) {
    const x: unknown = a[i];
    const y: unknown = b[i];
    if (!isRecord(x) || !isRecord(y)) return next;
    const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
    keys.delete('time');
    for (const k of keys) if (!jsonEqual(x[k], y[k], maxObjectDepth)) return next;
  }
  return { ...next, metadata: { ...next.metadata, managedFields: b } };
}
