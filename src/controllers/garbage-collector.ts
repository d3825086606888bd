// Garbage collection through ownerReferences: background deletion of orphans-to-be, foreground and orphan finalizers.
import type { KObject, OwnerReference } from '../machinery/types.js';
import type { Client } from '../client/client.js';
import type { ResourceDef } from '../client/types.js';
import type { Change } from '../client/types.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { WorkQueue } from '../util/work-queue.js';
import { jsonEqual } from '../util/json-tree.js';

interface Ref {
  key: string; // storage key
  namespace: string;
  name: string;
}
const refId = (r: Ref) => `${r.key}|${r.namespace}|${r.name}`;
const parseRef = (id: string): Ref => {
  const [key, namespace, name] = id.split('|');
  return { key, namespace, name };
};

/**
 * Storage keys the collector does not follow, as upstream's DefaultIgnoredResources (core and events.k8s.io Events,
 * which share one key here): with hundreds of thousands of Events, indexing them would dominate a restart.
 */
const ignoredKeys = new Set(['core/events']);

/** Depth enough for ownerReferences (a list of flat records). */
const refsDepth = 4;

/** Neither object is being deleted and both hold the same ownerReferences (and uid). */
function unchangedForCollector(before: KObject, after: KObject): boolean {
  const a = before.metadata;
  const b = after.metadata;
  if (a.deletionTimestamp || b.deletionTimestamp || a.uid !== b.uid) return false;
  return a.ownerReferences === b.ownerReferences || jsonEqual(a.ownerReferences ?? [], b.ownerReferences ?? [], refsDepth);
}

export class GarbageCollector {
  /** uid -> where the object lives. */
  private readonly byUid = new Map<string, Ref>();
  /** owner uid -> dependents. */
  private readonly dependents = new Map<string, Set<string>>();
  private readonly queue: WorkQueue;
  private readonly unsubscribe: () => void;

  constructor(private readonly client: Client, clock: Clock, log: Logger) {
    this.queue = new WorkQueue('garbage-collector', (id) => this.reconcile(id), clock, log);
    const keys = client.storedResources().filter((k) => !ignoredKeys.has(k));
    for (const key of keys) for (const o of client.listByKey(key)) this.index(key, o, undefined);
    this.unsubscribe = client.watchAll((c) => this.onChange(c));
    for (const key of keys) {
      for (const o of client.listByKey(key)) if (o.metadata.ownerReferences?.length || o.metadata.deletionTimestamp) this.queue.add(refId(this.refOf(key, o)));
    }
  }

  private refOf(key: string, o: KObject): Ref {
    return { key, namespace: o.metadata.namespace ?? '', name: o.metadata.name ?? '' };
  }

  private index(key: string, o: KObject, previous: KObject | undefined): void {
    const id = refId(this.refOf(key, o));
    for (const r of previous?.metadata.ownerReferences ?? []) this.dependents.get(r.uid)?.delete(id);
    if (o.metadata.uid) this.byUid.set(o.metadata.uid, this.refOf(key, o));
    for (const r of o.metadata.ownerReferences ?? []) {
      let s = this.dependents.get(r.uid);
      if (!s) this.dependents.set(r.uid, (s = new Set()));
      s.add(id);
    }
  }

  private onChange(c: Change): void {
    if (ignoredKeys.has(c.resource)) return;
    const o = c.object;
    const id = refId(this.refOf(c.resource, o));
    if (c.type === 'DELETED') {
      if (o.metadata.uid) this.byUid.delete(o.metadata.uid);
      for (const r of o.metadata.ownerReferences ?? []) {
        this.dependents.get(r.uid)?.delete(id);
        const owner = this.byUid.get(r.uid);
        if (owner) this.queue.add(refId(owner)); // a foreground owner may be waiting for this dependent
      }
      for (const dep of this.dependents.get(o.metadata.uid ?? '') ?? []) this.queue.add(dep);
      return;
    }
    // An update that leaves the owners alone and deletes nothing (a Lease renewal, a status write) changes nothing
    // the collector decides on: as upstream, only changed references or a deletion are processed.
    if (c.previous && unchangedForCollector(c.previous, o)) return;
    this.index(c.resource, o, c.previous);
    if (o.metadata.ownerReferences?.length || o.metadata.deletionTimestamp) this.queue.add(id);
  }

  private defOf(key: string): ResourceDef | undefined {
    return this.client.resourceForKey(key);
  }

  private ownerExists(r: OwnerReference, namespace: string): boolean {
    const at = this.byUid.get(r.uid);
    if (!at) return false;
    // Namespaced dependents can only be owned by objects in their namespace or cluster-scoped ones.
    return at.namespace === '' || at.namespace === namespace;
  }

  private reconcile(id: string): void | number {
    const ref = parseRef(id);
    const def = this.defOf(ref.key);
    const obj = this.client.getByKey(ref.key, ref.namespace, ref.name);
    if (!def || !obj) return;
    const fin = obj.metadata.finalizers ?? [];
    if (obj.metadata.deletionTimestamp && fin.includes('orphan')) return this.orphanDependents(def, obj);
    if (obj.metadata.deletionTimestamp && fin.includes('foregroundDeletion')) return this.deleteDependentsFirst(def, obj);
    const owners = obj.metadata.ownerReferences ?? [];
    if (!owners.length) return;
    const dangling = owners.filter((r) => !this.ownerExists(r, ref.namespace));
    if (!dangling.length) return;
    if (dangling.length === owners.length) {
      this.tryDelete(def, obj, 'Background');
      return;
    }
    this.client.guaranteedUpdate(def, ref.namespace, ref.name, (cur) => {
      cur.metadata.ownerReferences = (cur.metadata.ownerReferences ?? []).filter((r) => this.ownerExists(r, ref.namespace));
      return cur;
    });
  }

  private tryDelete(def: ResourceDef, obj: KObject, policy: 'Background' | 'Foreground'): void {
    if (obj.metadata.deletionTimestamp) return;
    try {
      this.client.delete(def, obj.metadata.namespace ?? '', obj.metadata.name ?? '', { propagationPolicy: policy, preconditions: { uid: obj.metadata.uid } });
    } catch {
      /* gone or changed: the next event requeues */
    }
  }

  private dependentObjects(uid: string): Array<{ def: ResourceDef; obj: KObject }> {
    const out: Array<{ def: ResourceDef; obj: KObject }> = [];
    for (const id of this.dependents.get(uid) ?? []) {
      const r = parseRef(id);
      const def = this.defOf(r.key);
      const obj = this.client.getByKey(r.key, r.namespace, r.name);
      if (def && obj) out.push({ def, obj });
    }
    return out;
  }

  private removeFinalizer(def: ResourceDef, obj: KObject, finalizer: string): void {
    this.client.guaranteedUpdate(def, obj.metadata.namespace ?? '', obj.metadata.name ?? '', (cur) => {
      cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== finalizer);
      return cur;
    });
  }

  private orphanDependents(def: ResourceDef, owner: KObject): void {
    const uid = owner.metadata.uid ?? '';
    for (const { def: d, obj } of this.dependentObjects(uid)) {
      this.client.guaranteedUpdate(d, obj.metadata.namespace ?? '', obj.metadata.name ?? '', (cur) => {
        cur.metadata.ownerReferences = (cur.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
        if (!cur.metadata.ownerReferences.length) delete cur.metadata.ownerReferences;
        return cur;
      });
    }
    this.removeFinalizer(def, owner, 'orphan');
  }

  private deleteDependentsFirst(def: ResourceDef, owner: KObject): void | number {
    const uid = owner.metadata.uid ?? '';
    const deps = this.dependentObjects(uid);
    for (const { def: d, obj } of deps) {
      const hasOwnDependents = (this.dependents.get(obj.metadata.uid ?? '')?.size ?? 0) > 0;
      this.tryDelete(d, obj, hasOwnDependents ? 'Foreground' : 'Background');
    }
    const blocking = this.dependentObjects(uid).filter(({ obj }) => obj.metadata.ownerReferences?.some((r) => r.uid === uid && r.blockOwnerDeletion));
    if (blocking.length) return 1000;
    this.removeFinalizer(def, owner, 'foregroundDeletion');
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }
}

