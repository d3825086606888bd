// Deletion: preconditions, propagation finalizers, graceful pod deletion, namespace termination.
import { conflict, notFound } from '../machinery/errors.js';
import { StorageError } from '../storage/errors.js';
import type { KObject } from '../machinery/types.js';
import { jsonEqual } from '../util/json-tree.js';
import { maxObjectDepth } from '../machinery/depth-limits.js';
import { rfc3339 } from '../util/clock.js';
import { storageKey, type ResourceDef } from './resource.js';
import type { RegistryCore as Registry } from './registry-core.js';
import { admitNow, settled, type Steps } from '../admission/chain.js';
import { admissionAttributes } from './write.js';

export interface DeleteOptions {
  /** false: the server's own delete, no admission webhook is called (see WriteOptions). */
  webhooks?: false;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  orphanDependents?: boolean;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

interface PodLike {
  spec?: { nodeName?: string; terminationGracePeriodSeconds?: number };
  status?: { phase?: string };
}

/** The latest time metav1.Time can carry (RFC 3339 years end at 9999). */
const maxTimeMs = Date.UTC(9999, 11, 31, 23, 59, 59);
const deadline = (now: Date, graceSeconds: number) => new Date(Math.min(maxTimeMs, now.getTime() + graceSeconds * 1000));

function podGrace(def: ResourceDef, obj: KObject, opts: DeleteOptions): number {
  if (def.group !== '' || def.plural !== 'pods') return 0;
  const pod = obj as PodLike;
  if (!pod.spec?.nodeName) return 0; // never scheduled: nothing runs, delete at once
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return 0;
  return Math.max(0, opts.gracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30);
}

export function* deleteSteps(reg: Registry, def: ResourceDef, namespace: string, name: string, opts: DeleteOptions & { canWait?: boolean; warnings?: string[] }, attempt = 0): Steps<{ object: KObject; deleted: boolean }> {
  try {
    return yield* deleteOnce(reg, def, namespace, name, opts);
  } catch (e) {
    // The object changed between the read and the write (another process's write landed first, on etcd): decided
    // again on the newer object, as upstream's deletion retries its preconditioned write.
    if (!(e instanceof StorageError)) throw e;
    if (e.code === 'Conflict' && attempt < 9) return yield* deleteSteps(reg, def, namespace, name, opts, attempt + 1);
    throw e.code === 'Conflict' ? conflict({ group: def.group, resource: def.plural }, name) : reg.translate(e, def, name);
  }
}

function* deleteOnce(reg: Registry, def: ResourceDef, namespace: string, name: string, opts: DeleteOptions & { canWait?: boolean; warnings?: string[] }): Steps<{ object: KObject; deleted: boolean }> {
  const key = storageKey(def);
  const ns = def.namespaced ? namespace : '';
  const cur = reg.getStored(key, ns, name);
  const ref = { group: def.group, resource: def.plural };
  if (!cur) throw notFound(ref, name);
  const pre = opts.preconditions;
  if (pre?.uid && pre.uid !== cur.metadata.uid) {
    throw conflict(ref, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${cur.metadata.uid}`);
  }
  if (pre?.resourceVersion && pre.resourceVersion !== cur.metadata.resourceVersion) {
    throw conflict(ref, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${cur.metadata.resourceVersion}`);
  }
  const attrs = admissionAttributes(reg, def, 'DELETE', namespace, name, undefined, cur, opts);
  const mutating = admitNow(reg.admission, 'mutate', attrs);
  if (mutating) yield* mutating;
  const validating = admitNow(reg.admission, 'validate', attrs);
  if (validating) yield* validating;
  if (reg.getStored(key, ns, name)?.metadata.resourceVersion !== cur.metadata.resourceVersion) {
    // Admission waited and the object changed meanwhile: decide again on the current object. (Compared by revision:
    // a store may hand out a fresh copy on every read, as SQLite does for Events.)
    return yield* deleteOnce(reg, def, namespace, name, opts);
  }
  const now = reg.clock.now();
  if (def.group === '' && def.plural === 'namespaces') return yield* terminateNamespace(reg, def, cur, opts, now);

  const policy = opts.propagationPolicy ?? (opts.orphanDependents === true ? 'Orphan' : opts.orphanDependents === false ? 'Background' : def.defaultPropagation ?? 'Background');
  const finalizers = [...(cur.metadata.finalizers ?? [])];
  if (policy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
  if (policy === 'Foreground' && !finalizers.includes('foregroundDeletion')) finalizers.push('foregroundDeletion');
  for (const f of def.deleteFinalizers ?? []) if (!cur.metadata.deletionTimestamp && !finalizers.includes(f)) finalizers.push(f);
  const grace = podGrace(def, cur, opts);

  if (finalizers.length || grace > 0) {
    // Only the metadata changes: the rest is the stored object's own, shared (never changed in place).
    const m = { ...cur.metadata };
    const next: KObject = { ...cur, metadata: m };
    if (!m.deletionTimestamp) {
      m.deletionTimestamp = rfc3339(deadline(now, grace));
      m.deletionGracePeriodSeconds = grace;
      if (m.generation !== undefined) m.generation += 1;
    } else if (grace < (m.deletionGracePeriodSeconds ?? 0)) {
      m.deletionTimestamp = rfc3339(deadline(now, grace));
      m.deletionGracePeriodSeconds = grace;
    }
    if (finalizers.length) m.finalizers = finalizers;
    if (opts.dryRun) return { object: next, deleted: false };
    if (jsonEqual(m, cur.metadata, maxObjectDepth)) return { object: cur, deleted: false };
    return { object: yield* settled(reg.store.update(key, next)), deleted: false };
  }
  if (opts.dryRun) return { object: cur, deleted: true };
  const gone = yield* settled(reg.store.delete(key, ns, name));
  def.afterDelete?.(gone, reg.ctx());
  return { object: gone, deleted: true };
}

function* terminateNamespace(reg: Registry, def: ResourceDef, cur: KObject, opts: DeleteOptions, now: Date): Steps<{ object: KObject; deleted: boolean }> {
  const specFinalizers = (cur.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];
  const key = storageKey(def);
  if (!specFinalizers.length && !cur.metadata.finalizers?.length) {
    if (opts.dryRun) return { object: cur, deleted: true };
    const name = cur.metadata.name ?? '';
    return { object: yield* settled(reg.store.delete(key, '', name)), deleted: true };
  }
  if (cur.metadata.deletionTimestamp) return { object: cur, deleted: false };
  const next: KObject = { ...cur, metadata: { ...cur.metadata, deletionTimestamp: rfc3339(now), deletionGracePeriodSeconds: 0 } };
  next.status = { ...(cur.status as object), phase: 'Terminating' };
  if (opts.dryRun) return { object: next, deleted: false };
  return { object: yield* settled(reg.store.update(key, next)), deleted: false };
}
