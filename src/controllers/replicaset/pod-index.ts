// Which pods each controller owns, and which pods have no controller, so a ReplicaSet sync looks at its own pods
// rather than every pod of the namespace. The index holds only names: reads always go to the store (current,
// read-your-writes), and a name whose pod is gone or now belongs to someone else is dropped when read. Membership
// follows the change feed, plus what the controller itself creates or adopts (the feed reports those a moment later).
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../machinery/types.js';
import type { SqliteStore } from '../../storage/sqlite-store.js';
import type { Change } from '../../storage/watch-hub.js';
import { controllerRef } from '../workload/owner.js';

export class PodIndex {
  private readonly byOwner = new Map<string, Set<string>>();
  private readonly orphans = new Map<string, Set<string>>();
  private readonly unsubscribe: () => void;

  constructor(private readonly store: SqliteStore) {
    this.unsubscribe = store.hub.subscribe('core/pods', (c) => this.observe(c));
    for (const p of store.list('core/pods')) this.place(p);
  }

  private static key(p: KObject): string {
    return `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`;
  }

  private place(p: KObject): void {
    const uid = controllerRef(p)?.uid;
    if (uid) this.add(uid, p);
    else {
      const ns = p.metadata.namespace ?? '';
      let set = this.orphans.get(ns);
      if (!set) this.orphans.set(ns, (set = new Set()));
      set.add(p.metadata.name ?? '');
    }
  }

  private observe(c: Change): void {
    const prevUid = c.previous ? controllerRef(c.previous)?.uid : undefined;
    const uid = controllerRef(c.object)?.uid;
    const key = PodIndex.key(c.object);
    if (c.type === 'DELETED') {
      if (uid) this.byOwner.get(uid)?.delete(key);
      this.orphans.get(c.object.metadata.namespace ?? '')?.delete(c.object.metadata.name ?? '');
      return;
    }
    if (prevUid && prevUid !== uid) this.byOwner.get(prevUid)?.delete(key);
    this.place(c.object);
  }

  /** Records that `owner` controls the pod (after creating or adopting it). */
  add(ownerUid: string, pod: KObject): void {
    let set = this.byOwner.get(ownerUid);
    if (!set) this.byOwner.set(ownerUid, (set = new Set()));
    set.add(PodIndex.key(pod));
  }

  /** The current pods `ownerUid` controls in `namespace`. */
  owned(ownerUid: string | undefined, namespace: string): Pod[] {
    const set = ownerUid ? this.byOwner.get(ownerUid) : undefined;
    if (!set) return [];
    const out: Pod[] = [];
    for (const key of set) {
      const name = key.slice(key.indexOf('/') + 1);
      const p = this.store.get('core/pods', namespace, name);
      if (!p || controllerRef(p)?.uid !== ownerUid) {
        set.delete(key);
        continue;
      }
      out.push(p as unknown as Pod);
    }
    if (!set.size) this.byOwner.delete(ownerUid!);
    return out;
  }

  /** The current pods of `namespace` that no controller owns. */
  orphansIn(namespace: string): Pod[] {
    const set = this.orphans.get(namespace);
    if (!set) return [];
    const out: Pod[] = [];
    for (const name of set) {
      const p = this.store.get('core/pods', namespace, name);
      if (!p || controllerRef(p)) {
        set.delete(name);
        continue;
      }
      out.push(p as unknown as Pod);
    }
    return out;
  }

  stop(): void {
    this.unsubscribe();
  }
}
