// Server-side apply: merges an applied configuration into the live object with structured-merge semantics,
// removes fields this manager applied before but no longer specifies (unless someone else manages them),
// detects conflicts with other managers and records the manager's fields in metadata.managedFields.
import { ApiError } from '../../machinery/errors.js';
import { isRecord, type GroupVersionKind, type KObject } from '../../machinery/types.js';
import { FieldSet, pathString, type FieldPath } from './fieldset.js';
import { rootNodeOrMeta, type SchemaNode } from './schema.js';
import type { CustomOpenApiStore } from '../../openapi/custom-store.js';
import { isGranular, mergeValues, toFieldSet } from './structured.js';
import { Locator } from './locate.js';
import { clone, deepEqual } from './util.js';
import { hasOwn } from '../../util/own.js';
import { sortEntries, type ManagedFieldsEntry } from './update-managers.js';

export interface ApplyOptions {
  fieldManager: string;
  force: boolean;
  now: string;
  /** The server's published custom resources (their schemas give custom kinds' list keys). */
  openapi?: CustomOpenApiStore;
}

/** Paths never recorded for a manager (identity and bookkeeping metadata). */
const STRIPPED: FieldPath[] = [
  ['f:apiVersion'], ['f:kind'], ['f:metadata'],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => ['f:metadata', `f:${f}`]),
];

/** `…k:{"name":"a"}.f:name`: removing it would orphan the list item it identifies. */
function isItemKeyField(p: FieldPath): boolean {
  const parent = p[p.length - 2];
  const last = p[p.length - 1];
  if (!parent?.startsWith('k:') || !last.startsWith('f:')) return false;
  try {
    return hasOwn(JSON.parse(parent.slice(2)) as object, last.slice(2));
  } catch {
    return false;
  }
}

const isApplier = (e: ManagedFieldsEntry, manager: string) => e.manager === manager && e.operation === 'Apply' && !e.subresource;

/**
 * `o` as the merge reads it: without its managedFields. Only the top level and the metadata are copied (the merge
 * copies what it takes, and neither the applied configuration nor the live object is written to); a CRD of 600 KiB
 * was copied whole twice per apply before.
 */
function withoutManagedFields(o: KObject): KObject {
  if (!isRecord(o.metadata) || !hasOwn(o.metadata, 'managedFields')) return o;
  const { managedFields: _dropped, ...metadata } = o.metadata;
  return { ...o, metadata };
}

function managerLabel(e: ManagedFieldsEntry): string {
  let s = JSON.stringify(e.manager ?? '');
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  // Upstream names a manager by its identity, which leaves the time out.
  if (e.operation === 'Update') s += ` using ${e.apiVersion}`;
  return s;
}

function conflictError(conflicts: { entry: ManagedFieldsEntry; path: FieldPath }[]): ApiError {
  const causes = conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${managerLabel(c.entry)}`, field: pathString(c.path) }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${managerLabel(conflicts[0].entry)}: ${pathString(conflicts[0].path)}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const c of conflicts) {
      const label = managerLabel(c.entry);
      byManager.set(label, [...(byManager.get(label) ?? []), pathString(c.path)]);
    }
    const lines: string[] = [];
    for (const label of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${label}:`, ...byManager.get(label)!.map((p) => `- ${p}`));
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, { causes: causes as never });
}

/** How the object changed at `path` between live and merged: 'added' | 'modified' | 'removed' | undefined. */
function change(at: Locator, live: KObject, merged: KObject, path: FieldPath, root: SchemaNode | undefined): string | undefined {
  const before = at.locate(live, path, root);
  const after = at.locate(merged, path, root);
  if (!after.found) return before.found ? 'removed' : undefined;
  if (!before.found) return 'added';
  if (isGranular(after.value, after.node) && isGranular(before.value, before.node)) return undefined;
  return deepEqual(before.value, after.value) ? undefined : 'modified';
}

const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Whether a path is one the live object's last-applied configuration (client-side apply's annotation, in the same
 * apiVersion) sets to the value the object still has: such conflicts of kubectl's server-side apply are overridden.
 */
function lastAppliedFields(live: KObject, apiVersion: string | undefined, root: SchemaNode | undefined, at: Locator): ((p: FieldPath) => boolean) | undefined {
  const text = live.metadata?.annotations?.[lastAppliedAnnotation];
  if (typeof text !== 'string' || !text) return undefined;
  let last: unknown;
  let set: FieldSet;
  try {
    last = JSON.parse(text);
    if (!isRecord(last) || last.apiVersion !== apiVersion) return undefined;
    set = toFieldSet(last, root);
  } catch {
    return undefined;
  }
  const config = last as KObject;
  return (p) => {
    if (!set.has(p)) return false;
    const a = at.locate(config, p, root);
    const b = at.locate(live, p, root);
    if (!a.found || !b.found) return false;
    return (isGranular(a.value, a.node) && isGranular(b.value, b.node)) || deepEqual(a.value, b.value);
  };
}

/** Applies `applied` for `opts.fieldManager`; creates the object from it when `live` is undefined. */
export function applyServerSideApply(live: KObject | undefined, applied: KObject, gvk: GroupVersionKind, opts: ApplyOptions): KObject {
  const root = rootNodeOrMeta(gvk, opts.openapi);
  const config = withoutManagedFields(applied);
  const entries: ManagedFieldsEntry[] = (Array.isArray(live?.metadata?.managedFields) ? clone(live!.metadata.managedFields) : []) as ManagedFieldsEntry[];
  const base = live ? withoutManagedFields(live) : ({} as KObject);

  const mine = entries.find((e) => isApplier(e, opts.fieldManager));
  const others = entries.filter((e) => e !== mine);
  const lastSet = mine ? FieldSet.fromFieldsV1(mine.fieldsV1) : new FieldSet();
  const set = toFieldSet(config, root);
  for (const p of STRIPPED) set.remove(p);

  const merged = mergeValues(base, config, root) as KObject;

  // Prune what this manager applied last time, dropped now, and nobody else manages.
  const otherSets = others.map((e) => FieldSet.fromFieldsV1(e.fieldsV1));
  // Parents come first, so a removed list item takes its fields along; key fields of kept items stay.
  const at = new Locator();
  for (const p of lastSet.difference(set).paths()) {
    if (set.hasAtOrBelow(p) || otherSets.some((s) => s.hasAtOrBelow(p)) || isItemKeyField(p)) continue;
    at.removeAt(merged, p, root);
  }
  at.compact();

  // Conflicts: fields owned by others that this apply adds or changes. Removed fields leave their sets.
  const conflicts: { entry: ManagedFieldsEntry; path: FieldPath }[] = [];
  const keep: ManagedFieldsEntry[] = [];
  others.forEach((entry, i) => {
    const owned = otherSets[i];
    let changed = false;
    for (const p of owned.paths()) {
      const c = change(at, base, merged, p, root);
      if (c === 'added' || c === 'modified') {
        conflicts.push({ entry, path: p });
        owned.remove(p);
        changed = true;
      } else if (c === 'removed') {
        owned.remove(p);
        changed = true;
      }
    }
    if (owned.isEmpty() && changed) return;
    keep.push(changed ? { ...entry, fieldsV1: owned.toFieldsV1() } : entry);
  });
  if (conflicts.length && !opts.force) {
    // kubectl's first server-side apply of what it applied client-side takes over the fields it applied then.
    const allowed = opts.fieldManager === 'kubectl' ? lastAppliedFields(base, config.apiVersion, root, at) : undefined;
    const left = allowed ? conflicts.filter((c) => !allowed(c.path)) : conflicts;
    if (left.length) throw conflictError(left);
  }

  const objectChanged = !live || !deepEqual(base, merged);
  if (!isRecord(merged.metadata)) merged.metadata = {};
  if (!set.isEmpty()) {
    keep.push({
      manager: opts.fieldManager,
      operation: 'Apply',
      apiVersion: config.apiVersion ?? live?.apiVersion,
      time: objectChanged || !mine?.time || !lastSet.equals(set) ? opts.now : mine.time,
      fieldsType: 'FieldsV1',
      fieldsV1: set.toFieldsV1(),
    });
  }
  if (keep.length) merged.metadata.managedFields = sortEntries(keep) as never;
  else delete merged.metadata.managedFields;
  return merged;
}
