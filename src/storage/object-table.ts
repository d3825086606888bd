// The in-memory index of one resource's current objects: each key holds the parsed object, or a reference to its
// stored text (kept until the write is committed, then read back from the change log by revision when needed).
import type { KObject } from '../machinery/types.js';

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
  private sorted: string[] | undefined;

  constructor(
    readonly resource: string,
    readonly cold: boolean,
  ) {}

  set(key: string, entry: Entry): void {
    const prev = this.items.get(key);
    if (prev === undefined) this.sorted = undefined;
    else if (!this.cold && !isParsed(prev)) this.unparsed--;
    if (!this.cold && !isParsed(entry)) this.unparsed++;
    this.items.set(key, entry);
  }

  delete(key: string): void {
    const prev = this.items.get(key);
    if (prev === undefined) return;
    if (!this.cold && !isParsed(prev)) this.unparsed--;
    this.items.delete(key);
    this.sorted = undefined;
  }

  keys(): string[] {
    if (!this.sorted) this.sorted = [...this.items.keys()].sort();
    return this.sorted;
  }

  /** The sorted keys of one namespace (all keys when `namespace` is undefined). */
  keysIn(namespace: string | undefined): string[] {
    const keys = this.keys();
    if (namespace === undefined) return keys;
    const prefix = `${namespace}/`;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keys[mid] < prefix) lo = mid + 1;
      else hi = mid;
    }
    let end = lo;
    while (end < keys.length && keys[end].startsWith(prefix)) end++;
    return keys.slice(lo, end);
  }
}
