// Garbage collection through ownerReferences: background deletion of orphans-to-be, foreground and orphan finalizers.
// On the controller runtime, but not a reconciler of one resource: the collector keeps a graph (uid -> object,
// owner -> dependents) over every resource, so it follows each served resource's shared informer (one more for each
// CRD established later, found on CRD changes) and reconciles its nodes (`key|namespace|name`) through its queue.
import type { KObject, OwnerReference } from '../machinery/types.js';
import type { ResourceDef } from '../client/types.js';
import type { Change } from '../client/types.js';
import { jsonEqual } from '../util/json-tree.js';
import { defineController, type ControllerContext, type Reconciler } from './runtime/index.js';

const crdsRef = 'apiextensions.k8s.io/v1/customresourcedefinitions';

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

export const garbageCollectorController = defineController({
  name: 'garbage-collector',
  setup: (ctx) => new GarbageCollector(ctx),
});

export class GarbageCollector implements Reconciler {
  /** uid -> where the object lives. */
  private readonly byUid = new Map<string, Ref>();
  /** owner uid -> dependents. */
  private readonly dependents = new Map<string, Set<string>>();
  /** Storage keys followed, with how to stop following them. */
  private readonly monitors = new Map<string, () => void>();
  private stopCrdWatch: (() => void) | undefined;

  constructor(private readonly ctx: ControllerContext) {
    const { client } = ctx;
    // Objects of stored resources no longer served can still own others: indexed once (nothing writes them).
    for (const key of client.storedResources()) {
      if (!ignoredKeys.has(key) && !client.resourceForKey(key)) for (const o of client.listByKey(key)) this.index(key, o, undefined);
    }
    for (const key of this.syncMonitors()) {
      for (const o of client.listByKey(key)) if (o.metadata.ownerReferences?.length || o.metadata.deletionTimestamp) ctx.queue.add(refId(this.refOf(key, o)));
    }
    if (ctx.informers.serves(crdsRef)) {
      const crds = ctx.informers.informer(crdsRef);
      this.stopCrdWatch = crds.onChange(() => this.resyncMonitors());
    }
  }

  stop(): void {
    this.stopCrdWatch?.();
    for (const stop of this.monitors.values()) stop();
    this.monitors.clear();
  }

  /** Follows every served resource not followed yet (indexing its objects first); returns their storage keys. */
  private syncMonitors(): string[] {
    const { client, informers } = this.ctx;
    const added: string[] = [];
    for (const def of client.resources()) {
      const key = client.storageKeyOf(def);
      if (key === undefined || ignoredKeys.has(key) || this.monitors.has(key)) continue;
      const informer = informers.informer(client.resourceForKey(key) ?? def);
      for (const o of client.listByKey(key)) this.index(key, o, undefined);
      this.monitors.set(key, informer.onChange((c) => this.onChange(c)));
      added.push(key);
    }
    return added;
  }

  /** A resource served since the start (a CRD established): its objects join the graph and are processed. */
  private resyncMonitors(): void {
    for (const key of this.syncMonitors()) {
      for (const o of this.ctx.client.listByKey(key)) if (o.metadata.ownerReferences?.length || o.metadata.deletionTimestamp) this.ctx.queue.add(refId(this.refOf(key, o)));
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
        if (owner) this.ctx.queue.add(refId(owner)); // a foreground owner may be waiting for this dependent
      }
      for (const dep of this.dependents.get(o.metadata.uid ?? '') ?? []) this.ctx.queue.add(dep);
      return;
    }
    // An update that leaves the owners alone and deletes nothing (a Lease renewal, a status write) changes nothing
    // the collector decides on: as upstream, only changed references or a deletion are processed.
    if (c.previous && unchangedForCollector(c.previous, o)) return;
    this.index(c.resource, o, c.previous);
    if (o.metadata.ownerReferences?.length || o.metadata.deletionTimestamp) this.ctx.queue.add(id);
  }

  private defOf(key: string): ResourceDef | undefined {
    return this.ctx.client.resourceForKey(key);
  }

  private ownerExists(r: OwnerReference, namespace: string): boolean {
    const at = this.byUid.get(r.uid);
    if (!at) return false;
    // Namespaced dependents can only be owned by objects in their namespace or cluster-scoped ones.
    return at.namespace === '' || at.namespace === namespace;
  }

  async reconcile(id: string): Promise<void | number> {
    const ref = parseRef(id);
    const def = this.defOf(ref.key);
    const obj = this.ctx.client.getByKey(ref.key, ref.namespace, ref.name);
    if (!def || !obj) return;
    const fin = obj.metadata.finalizers ?? [];
    if (obj.metadata.deletionTimestamp && fin.includes('orphan')) return this.orphanDependents(def, obj);
    if (obj.metadata.deletionTimestamp && fin.includes('foregroundDeletion')) return this.deleteDependentsFirst(def, obj);
    const owners = obj.metadata.ownerReferences ?? [];
    if (!owners.length) return;
    const dangling = owners.filter((r) => !this.ownerExists(r, ref.namespace));
    if (!dangling.length) return;
    if (dangling.length === owners.length) {
      await this.tryDelete(def, obj, 'Background');
      return;
    }
    await this.ctx.client.guaranteedUpdate(def, ref.namespace, ref.name, (cur) => {
      cur.metadata.ownerReferences = (cur.metadata.ownerReferences ?? []).filter((r) => this.ownerExists(r, ref.namespace));
      return cur;
    });
  }

  private async tryDelete(def: ResourceDef, obj: KObject, policy: 'Background' | 'Foreground'): Promise<void> {
    if (obj.metadata.deletionTimestamp) return;
    try {
      await this.ctx.client.delete(def, obj.metadata.namespace ?? '', obj.metadata.name ?? '', { propagationPolicy: policy, preconditions: { uid: obj.metadata.uid } });
    } catch {
      /* gone or changed: the next event requeues */
    }
  }

  private dependentObjects(uid: string): Array<{ def: ResourceDef; obj: KObject }> {
    const out: Array<{ def: ResourceDef; obj: KObject }> = [];
    for (const id of this.dependents.get(uid) ?? []) {
      const r = parseRef(id);
      const def = this.defOf(r.key);
      const obj = this.ctx.client.getByKey(r.key, r.namespace, r.name);
      if (def && obj) out.push({ def, obj });
    }
    return out;
  }

  private async removeFinalizer(def: ResourceDef, obj: KObject, finalizer: string): Promise<void> {
    await this.ctx.client.guaranteedUpdate(def, obj.metadata.namespace ?? '', obj.metadata.name ?? '', (cur) => {
      cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== finalizer);
      return cur;
    });
  }

  private async orphanDependents(def: ResourceDef, owner: KObject): Promise<void> {
    const uid = owner.metadata.uid ?? '';
    for (const { def: d, obj } of this.dependentObjects(uid)) {
      await this.ctx.client.guaranteedUpdate(d, obj.metadata.namespace ?? '', obj.metadata.name ?? '', (cur) => {
        cur.metadata.ownerReferences = (cur.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
        if (!cur.metadata.ownerReferences.length) delete cur.metadata.ownerReferences;
        return cur;
      });
    }
    await this.removeFinalizer(def, owner, 'orphan');
  }

  private async deleteDependentsFirst(def: ResourceDef, owner: KObject): Promise<void | number> {
    const uid = owner.metadata.uid ?? '';
    const deps = this.dependentObjects(uid);
    for (const { def: d, obj } of deps) {
      const hasOwnDependents = (this.dependents.get(obj.metadata.uid ?? '')?.size ?? 0) > 0;
      await this.tryDelete(d, obj, hasOwnDependents ? 'Foreground' : 'Background');
    }
    const blocking = this.dependentObjects(uid).filter(({ obj }) => obj.metadata.ownerReferences?.some((r) => r.uid === uid && r.blockOwnerDeletion));
    if (blocking.length) return 1000;
    await this.removeFinalizer(def, owner, 'foregroundDeletion');
  }
}

