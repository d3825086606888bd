// The etcd store's in-memory copy of every object, per resource, with a sorted key list kept for listing.
// Deletions made ahead of the watch leave a tombstone so that an older event arriving later cannot revive the key.
import type { KObject } from '../../machinery/types.js';
import { listSorted, scanSorted } from '../key-order.js';
import { SortedKeys } from '../sorted-keys.js';

class Table {
  readonly items = new Map<string, KObject>();
  private readonly order = new SortedKeys((k) => this.items.has(k), () => this.items.keys(), () => this.items.size);
  set(key: string, obj: KObject): void {
    if (!this.items.has(key)) this.order.noteAdded(key);
    this.items.set(key, obj);
  }
  delete(key: string): void {
    if (this.items.delete(key)) this.order.noteDeleted(key);
  }
  keys(): string[] {
    return this.order.keys();
  }
}

const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;
export const rvOf = (obj: KObject): number => Number(obj.metadata.resourceVersion ?? 0);

export class Mirror {
  private readonly tables = new Map<string, Table>();
  /** resource -> key -> revision of a deletion the watch has not delivered yet. */
  private readonly tombstones = new Map<string, number>();

  private table(resource: string): Table {
    let t = this.tables.get(resource);
    if (!t) this.tables.set(resource, (t = new Table()));
    return t;
  }

  get(resource: string, namespace: string, name: string): KObject | undefined {
    return this.tables.get(resource)?.items.get(keyOf(namespace, name));
  }

  /** The revision the mirror holds for a key (its object's, or a pending deletion's; 0 when unknown). */
  revisionOf(resource: string, namespace: string, name: string): number {
    const cur = this.get(resource, namespace, name);
    return cur ? rvOf(cur) : this.tombstones.get(`${resource}\0${keyOf(namespace, name)}`) ?? 0;
  }

  /** Sets (or, with `obj` undefined, deletes) a key at revision `rv` unless the mirror already holds a newer state. */
  apply(resource: string, namespace: string, name: string, obj: KObject | undefined, rv: number): boolean {
    if (this.revisionOf(resource, namespace, name) >= rv) return false;
    const tomb = `${resource}\0${keyOf(namespace, name)}`;
    if (obj) {
      this.table(resource).set(keyOf(namespace, name), obj);
      this.tombstones.delete(tomb);
    } else {
      this.tables.get(resource)?.delete(keyOf(namespace, name));
      this.tombstones.set(tomb, rv);
    }
    return true;
  }

  /** Forgets tombstones the watch has caught up with. */
  settle(published: number): void {
    if (!this.tombstones.size) return;
    for (const [k, rv] of this.tombstones) if (rv <= published) this.tombstones.delete(k);
  }

  list(resource: string, namespace?: string): KObject[] {
    const t = this.tables.get(resource);
    return t ? listSorted(t.keys(), (k) => t.items.get(k)!, namespace) : [];
  }

  scan(resource: string, namespace: string | undefined, after: string, visit: (obj: KObject) => boolean): number {
    const t = this.tables.get(resource);
    return t ? scanSorted(t.keys(), (k) => t.items.get(k)!, namespace, after, visit) : 0;
  }

  count(resource: string): number {
    return this.tables.get(resource)?.items.size ?? 0;
  }

  resources(): string[] {
    return [...this.tables.keys()].filter((r) => this.count(r) > 0);
  }

  /** Every object, as [resource, namespace, name, object]. */
  *entries(): Generator<[string, KObject]> {
    for (const [resource, t] of this.tables) for (const obj of t.items.values()) yield [resource, obj];
  }
}
