// The in-memory index of one resource's current objects: each key holds the parsed object, or a reference to its
// stored text (kept until the write is committed, then read back from the change log by revision when needed).
import type { KObject } from '../machinery/types.js';
import { SortedKeys } from './sorted-keys.js';

/** An object not held parsed: its revision, and its JSON text while the change log does not have it yet. */
export class StoredRef {
  constructor(
    readonly rv: number,
    public json: string | undefined,
  ) {}
}

/** A parsed object; a StoredRef (text not committed yet); or a committed revision (the text is in the change log). */
export type Entry = KObject | StoredRef | number;

export const isParsed = (e: Entry): e is KObject => typeof e === 'object' && !(e instanceof StoredRef);

export const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;

/**
 * Objects of one resource, with a lazily rebuilt sorted key list for stable listing. A `cold` table (Events) holds
 * only revisions and StoredRefs and parses on every read; a hot one holds parsed objects, revisions being only those
 * loaded at start-up and not read yet (`unparsed` counts them). `loadFrom` is set while the keys are still being
 * loaded from the database (after that key, in (namespace, name) order); readers complete the load first.
 */
export class ResourceTable {
  readonly items = new Map<string, Entry>();
  unparsed = 0;
  loadFrom: [string, string] | undefined;
  /** Keys deleted while the keys are still loading: the rest of the load must not bring them back. */
  gone: Set<string> | undefined;
  private readonly order = new SortedKeys((k) => this.items.has(k), () => this.items.keys(), () => this.items.size);

  constructor(
    readonly resource: string,
    readonly cold: boolean,
  ) {}

  set(key: string, entry: Entry): void {
    const prev = this.items.get(key);
    if (prev === undefined) this.order.noteAdded(key);
    else if (!this.cold && !isParsed(prev)) this.unparsed--;
    if (!this.cold && !isParsed(entry)) this.unparsed++;
    this.items.set(key, entry);
  }

  delete(key: string): void {
    const prev = this.items.get(key);
    if (this.loadFrom) (this.gone ??= new Set()).add(key);
    if (prev === undefined) return;
    if (!this.cold && !isParsed(prev)) this.unparsed--;
    this.items.delete(key);
    this.order.noteDeleted(key);
  }

  /** The keys in sorted order (a snapshot: never changed once returned). */
  keys(): string[] {
    return this.order.keys();
  }
}
