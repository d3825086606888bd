// An informer over one resource: the store's in-memory state is the cache (no copies), and named indexes are kept
// from the change feed. Index entries are names only and are checked when read, so an entry the feed has not
// removed yet (a lagging cache) is dropped rather than returned: byIndex always answers with current objects.
import type { KObject } from '../machinery/types.js';
import type { Storage } from '../storage/storage.js';
import type { Change, ChangeListener } from './types.js';
import { keyOf } from '../machinery/object-key.js';

/** The values an object is indexed under (none: undefined, '' or []). Must be cheap and must not mutate. */
export type IndexFn<T> = (obj: T) => readonly string[] | string | undefined;

export interface InformerOptions<T> {
  indexes?: Record<string, IndexFn<T>>;
}

interface Index<T> {
  fn: IndexFn<T>;
  byValue: Map<string, Set<string>>;
}

function valuesOf(v: readonly string[] | string | undefined): readonly string[] {
  if (v === undefined || v === '') return [];
  return typeof v === 'string' ? [v] : v;
}

function includes(v: readonly string[] | string | undefined, value: string): boolean {
  return typeof v === 'string' ? v === value : v !== undefined && v.includes(value);
}

export class Informer<T = KObject> {
  private readonly indexes = new Map<string, Index<T>>();
  private readonly listeners = new Set<ChangeListener>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly store: Storage, readonly resource: string, opts: InformerOptions<T> = {}) {
    for (const [name, fn] of Object.entries(opts.indexes ?? {})) this.indexes.set(name, { fn, byValue: new Map() });
    if (this.indexes.size) for (const o of store.list(resource)) this.track(o as T);
    this.unsubscribe = store.hub.subscribe(resource, (c) => this.observe(c));
  }

  /**
   * Adds a named index (informers shared by several controllers gather their indexes this way); the objects stored
   * now are indexed at once. Adding a name again with the same function does nothing; with another, throws.
   */
  addIndex(name: string, fn: IndexFn<T>): void {
    const existing = this.indexes.get(name);
    if (existing) {
      if (existing.fn !== fn) throw new Error(`informer of ${this.resource} has another index named ${name}`);
      return;
    }
    const index: Index<T> = { fn, byValue: new Map() };
    this.indexes.set(name, index);
    for (const o of this.store.list(this.resource)) for (const v of valuesOf(fn(o as T))) add(index.byValue, v, keyOf(o));
  }

  /** The current object, or undefined (shared: never mutate). */
  get(namespace: string, name: string): T | undefined {
    return this.store.get(this.resource, namespace, name) as T | undefined;
  }

  /** The current objects in key order; `namespace` undefined means all. */
  list(namespace?: string): T[] {
    return this.store.list(this.resource, namespace) as T[];
  }

  /** The current objects indexed under `value` by the index `indexName` (in no particular order). */
  byIndex(indexName: string, value: string): T[] {
    const index = this.index(indexName);
    const keys = index.byValue.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const key of keys) {
      const i = key.indexOf('/');
      const obj = this.store.get(this.resource, key.slice(0, i), key.slice(i + 1)) as T | undefined;
      if (obj === undefined || !includes(index.fn(obj), value)) keys.delete(key);
      else out.push(obj);
    }
    if (!keys.size) index.byValue.delete(value);
    return out;
  }

  /** The values the index holds entries for (some may have only lagging entries left). */
  indexValues(indexName: string): string[] {
    return [...this.index(indexName).byValue.keys()];
  }

  /**
   * Indexes an object this process has just written: the store has it already (read-your-writes) but the change
   * feed reports it only after the commit.
   */
  track(obj: T): void {
    if (!this.indexes.size) return;
    const key = keyOf(obj as KObject);
    for (const index of this.indexes.values()) for (const v of valuesOf(index.fn(obj))) add(index.byValue, v, key);
  }

  /** Calls `listener` with every change after the indexes have taken it in; returns the unsubscribe function. */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.listeners.clear();
    for (const index of this.indexes.values()) index.byValue.clear();
  }

  private index(name: string): Index<T> {
    const index = this.indexes.get(name);
    if (!index) throw new Error(`informer of ${this.resource} has no index ${name}`);
    return index;
  }

  private observe(c: Change): void {
    if (this.indexes.size) {
      const key = keyOf(c.object);
      const now = c.object as T;
      for (const index of this.indexes.values()) {
        const after = c.type === 'DELETED' ? [] : valuesOf(index.fn(now));
        const before = c.type === 'DELETED' ? valuesOf(index.fn(now)) : [];
        const previous = c.previous ? valuesOf(index.fn(c.previous as T)) : [];
        for (const v of before) remove(index.byValue, v, key);
        for (const v of previous) if (!after.includes(v)) remove(index.byValue, v, key);
        // A value the previous version was indexed under holds the key already (most changes keep every value).
        for (const v of after) if (!previous.includes(v)) add(index.byValue, v, key);
      }
    }
    let failure: unknown;
    for (const l of this.listeners) {
      try {
        l(c);
      } catch (err) {
        failure ??= err;
      }
    }
    // The hub reports a listener's failure; the other listeners have had the change regardless.
    if (failure !== undefined) throw failure;
  }
}

function add(byValue: Map<string, Set<string>>, value: string, key: string): void {
  let set = byValue.get(value);
  if (!set) byValue.set(value, (set = new Set()));
  set.add(key);
}

function remove(byValue: Map<string, Set<string>>, value: string, key: string): void {
  const set = byValue.get(value);
  if (!set) return;
  set.delete(key);
  if (!set.size) byValue.delete(value);
}
