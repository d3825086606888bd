// metadata.managedFields after a create, update or non-apply patch, as upstream's field manager records them: the
// writer (its fieldManager, else its User-Agent up to the first '/') takes the fields it added or changed, in one
// `operation: Update` entry per manager, apiVersion and subresource; every manager loses the fields the write changed
// or removed, and entries left empty go. The entry's time moves only when the writer took fields. At most ten
// Update entries are kept: the oldest are merged into an `ancient-changes` entry per apiVersion.
import { isRecord } from '../../machinery/types.js';
import { hasOwn } from '../../util/own.js';
import { FieldSet } from './fieldset.js';
import type { ChangeNode, FieldChanges } from './field-changes.js';

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
  [k: string]: unknown;
}

export interface UpdateWriter {
  manager: string;
  apiVersion: string;
  subresource?: string;
  /** Unset for scale writes: upstream's scale handler leaves their entries without a time. */
  time?: string;
}

const maxUpdateManagers = 10;
const maxManagerLength = 128;

/**
 * The manager name of a write that names none: the User-Agent before its first '/', printable characters only, cut at
 * the fieldManager length limit; `unknown` when nothing is left.
 */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const prefix = (userAgent ?? '').split('/')[0];
  // The usual case (kubectl, client-go, a component): printable ASCII, within the limit, kept whole.
  if (prefix.length <= maxManagerLength && /^[\x20-\x7e]+$/.test(prefix)) return prefix;
  let out = '';
  let bytes = 0;
  for (const ch of prefix) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) continue;
    const size = Buffer.byteLength(ch);
    if (bytes + size > maxManagerLength) break;
    out += ch;
    bytes += size;
  }
  return out || 'unknown';
}

const cmp = (a = '', b = '') => (a < b ? -1 : a > b ? 1 : 0);
const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) || 0 : 0);

/** Upstream's order of entries: by operation, time, manager, apiVersion, subresource. */
export function sortEntries<T extends ManagedFieldsEntry>(entries: T[]): T[] {
  return entries.sort((p, q) =>
    cmp(p.operation, q.operation) || seconds(p.time) - seconds(q.time) || cmp(p.manager, q.manager) || cmp(p.apiVersion, q.apiVersion) || cmp(p.subresource, q.subresource));
}

const isEmptySet = (v: unknown) => !isRecord(v) || Object.keys(v).length === 0;

/** `fv` (a FieldsV1 value) without the members the change tree marks; `fv` itself when it loses none. */
export function withoutChanged(fv: unknown, c: ChangeNode, depth = 0): unknown {
  if (!isRecord(fv) || !c.children || depth > 512) return fv;
  let out: Record<string, unknown> | undefined;
  for (const [pe, cn] of c.children) {
    if (!hasOwn(fv, pe)) continue;
    const before = fv[pe];
    if (!isRecord(before)) continue;
    let next: Record<string, unknown> | undefined = before;
    if (cn.change) {
      const keys = Object.keys(before);
      if (keys.length === 0) next = undefined;
      else if (hasOwn(before, '.')) {
        next = { ...before };
        delete next['.'];
      }
    }
    if (next) {
      const sub = withoutChanged(next, cn, depth + 1) as Record<string, unknown>;
      if (sub !== before && Object.keys(sub).length === 0) next = undefined;
      else next = sub;
    }
    if (next === before) continue;
    out ??= { ...fv };
    if (next) out[pe] = next;
    else delete out[pe];
  }
  return out ?? fv;
}

function union(a: unknown, b: Record<string, unknown>): Record<string, unknown> {
  if (isEmptySet(a)) return b;
  const set = FieldSet.fromFieldsV1(a);
  for (const p of FieldSet.fromFieldsV1(b).paths()) set.insert(p);
  return set.toFieldsV1();
}

const sameWriter = (e: ManagedFieldsEntry, w: UpdateWriter) =>
  e.operation === 'Update' && e.manager === w.manager && e.apiVersion === w.apiVersion && (e.subresource ?? '') === (w.subresource ?? '');

/** The writer's entry holding `fieldsV1` (keys in upstream's order). */
export function entryOf(writer: UpdateWriter, fieldsV1: Record<string, unknown>): ManagedFieldsEntry {
  const entry: ManagedFieldsEntry = { manager: writer.manager, operation: 'Update', apiVersion: writer.apiVersion };
  if (writer.time) entry.time = writer.time;
  entry.fieldsType = 'FieldsV1';
  entry.fieldsV1 = fieldsV1;
  if (writer.subresource) entry.subresource = writer.subresource;
  return entry;
}

/** The entries after a write by `writer` that made `changes`; `entries` itself when the write changed no field. */
export function recordUpdate(entries: ManagedFieldsEntry[], changes: FieldChanges, writer: UpdateWriter): ManagedFieldsEntry[] {
  if (changes.isEmpty()) return entries;
  const out: ManagedFieldsEntry[] = [];
  let mine: ManagedFieldsEntry | undefined;
  for (const e of entries) {
    const fv = withoutChanged(e.fieldsV1, changes.root);
    if (!mine && sameWriter(e, writer)) {
      mine = fv === e.fieldsV1 ? e : { ...e, fieldsV1: fv };
      continue;
    }
    if (fv === e.fieldsV1) out.push(e);
    else if (!isEmptySet(fv)) out.push({ ...e, fieldsV1: fv });
  }
  const owned = changes.ownedFieldsV1();
  if (owned) out.push(entryOf(writer, mine ? union(mine.fieldsV1, owned) : owned));
  else if (mine && !isEmptySet(mine.fieldsV1)) out.push(mine);
  return out.length > 1 ? sortEntries(capUpdateManagers(out)) : out;
}

/** Merges the oldest Update entries into `ancient-changes` ones (one per apiVersion) until ten are left. */
function capUpdateManagers(entries: ManagedFieldsEntry[]): ManagedFieldsEntry[] {
  const updates = entries.filter((e) => e.operation !== 'Apply');
  if (updates.length <= maxUpdateManagers) return entries;
  updates.sort((p, q) => seconds(p.time) - seconds(q.time) || cmp(JSON.stringify([p.manager, p.apiVersion, p.subresource]), JSON.stringify([q.manager, q.apiVersion, q.subresource])));
  const drop = new Set<ManagedFieldsEntry>();
  const buckets = new Map<string, ManagedFieldsEntry>();
  let count = updates.length;
  for (const e of updates) {
    if (count <= maxUpdateManagers) break;
    if (e.manager === 'ancient-changes' && !e.subresource) continue;
    const version = e.apiVersion ?? '';
    let bucket = buckets.get(version) ?? entries.find((x) => x.manager === 'ancient-changes' && x.operation === 'Update' && x.apiVersion === version && !x.subresource);
    drop.add(e);
    if (!bucket) {
      bucket = { manager: 'ancient-changes', operation: 'Update', apiVersion: version, time: e.time, fieldsType: 'FieldsV1', fieldsV1: e.fieldsV1 };
    } else {
      drop.add(bucket);
      bucket = { ...bucket, time: e.time ?? bucket.time, fieldsV1: union(bucket.fieldsV1, isRecord(e.fieldsV1) ? e.fieldsV1 : {}) };
      count--;
    }
    buckets.set(version, bucket);
  }
  return [...entries.filter((e) => !drop.has(e)), ...new Set(buckets.values())];
}
