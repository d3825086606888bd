// The in-memory current state of every resource, backed by the change log: hot objects held parsed (interned,
// parsed on first read after a restart), cold ones (Events) held as revisions and parsed on each read. The store
// (sqlite-store.ts) owns writes, commits and watches; this owns what reads see. See the notes atop sqlite-store.ts.
import type { Database, Statement } from 'better-sqlite3';
import type { KObject } from '../machinery/types.js';
import { StringInterner } from './intern.js';
import { ResourceTable, StoredRef, isParsed, keyOf, type Entry } from './object-table.js';
import { listSorted, scanSorted } from './key-order.js';
import { nextTurn } from '../util/next-turn.js';

/** The JSON text of objects just written (until published) and of cold objects read back, so they are not re-serialized. */
export const jsonOf = new WeakMap<KObject, string>();

/** The most keys of a cold table still loading that are remembered as deleted before the load is completed. */
const maxGone = 10_000;

/** How many hot objects `warm()` parses between two turns of the event loop. */
const warmPage = 1000;

export class ObjectCache {
  readonly tables = new Map<string, ResourceTable>();
  private readonly interner = new StringInterner();
  private readonly stmts: { valueAt: Statement; currentPage: Statement; currentFrom: Statement; keysPage: Statement; keysRest: Statement; keyRv: Statement };

  constructor(
    private readonly db: Database,
    private readonly cold: ReadonlySet<string>,
    private readonly isClosed: () => boolean,
  ) {
    this.stmts = {
      valueAt: db.prepare('SELECT value FROM changes WHERE rv = ?').pluck(),
      currentPage: db.prepare(
        `SELECT o.namespace, o.name, o.rv, c.value FROM objects o JOIN changes c ON c.rv = o.rv
         WHERE o.resource = ? AND (o.namespace, o.name) > (?, ?) ORDER BY o.namespace, o.name LIMIT ?`,
      ).raw(),
      currentFrom: db.prepare(
        `SELECT o.namespace, o.name, o.rv, c.value FROM objects o JOIN changes c ON c.rv = o.rv
         WHERE o.resource = ? AND (o.namespace, o.name) >= (?, ?) ORDER BY o.namespace, o.name LIMIT ?`,
      ).raw(),
      keysPage: db.prepare('SELECT namespace, name, rv FROM objects WHERE resource = ? AND (namespace, name) > (?, ?) ORDER BY namespace, name LIMIT ?').raw(),
      keysRest: db.prepare('SELECT namespace, name, rv FROM objects WHERE resource = ? AND (namespace, name) > (?, ?)').raw(),
      keyRv: db.prepare('SELECT rv FROM objects WHERE resource = ? AND namespace = ? AND name = ?').pluck(),
    };
  }

  /** Loads the stored keys and revisions (no texts). */
  load(): void {
    // Keys and revisions only (texts are read when objects are); cold resources' keys (hundreds of thousands of
    // Events) are loaded by their first list or count; a single key is looked up alone meanwhile (entryOf).
    const keys = this.db.prepare("SELECT resource, namespace || '/' || name, rv FROM objects WHERE resource NOT IN (SELECT value FROM json_each(?))").raw();
    let t: ResourceTable | undefined;
    for (const [resource, key, rv] of keys.all(JSON.stringify([...this.cold])) as Array<[string, string, number]>) {
      if (t?.resource !== resource) t = this.table(resource);
      t.set(key, rv);
    }
    for (const resource of this.cold) {
      const c = new ResourceTable(resource, true);
      c.loadFrom = ['', ''];
      this.tables.set(resource, c);
    }
  }

  /** Loads up to `max` more keys of a table still loading (all of them without `max`). */
  private loadKeys(t: ResourceTable, max?: number): void {
    const from = t.loadFrom;
    if (!from) return;
    const rows = (max === undefined ? this.stmts.keysRest.all(t.resource, from[0], from[1]) : this.stmts.keysPage.all(t.resource, from[0], from[1], max)) as Array<[string, string, number]>;
    for (const [namespace, name, rv] of rows) {
      // A key written since start-up already holds its newer state (every write completes the load first).
      const key = keyOf(namespace, name);
      if (!t.items.has(key) && !t.gone?.has(key)) t.set(key, rv);
    }
    t.loadFrom = max !== undefined && rows.length === max ? [rows[max - 1][0], rows[max - 1][1]] : undefined;
    if (!t.loadFrom) t.gone = undefined;
  }

  /** The table of `resource`, its keys all loaded. */
  loaded(resource: string): ResourceTable | undefined {
    const t = this.tables.get(resource);
    if (t?.loadFrom) this.loadKeys(t);
    return t;
  }

  /**
   * The table of `resource` for a write. A cold table still loading is not loaded first: the write's key was looked up
   * on its own by the `get` before it (see entryOf), and the rest of the load skips the keys written meanwhile.
   */
  table(resource: string): ResourceTable {
    let t = this.tables.get(resource);
    // The keys deleted meanwhile are remembered until the load completes: past a bound, complete it now.
    if (t?.loadFrom && (t.gone?.size ?? 0) >= maxGone) this.loadKeys(t);
    if (!t) this.tables.set(resource, (t = new ResourceTable(resource, this.cold.has(resource))));
    return t;
  }

  private textOf(ref: StoredRef | number): string {
    const json = typeof ref === 'number' ? (this.stmts.valueAt.get(ref) as string | undefined) : ref.json ?? (this.stmts.valueAt.get(ref.rv) as string | undefined);
    // The change log keeps every current object's entry (compaction spares them): a miss is a broken database.
    if (json === undefined) throw new Error(`revision ${typeof ref === 'number' ? ref : ref.rv} is missing from the change log`);
    return json;
  }

  /** The object of `entry`, parsed if needed: a hot one is kept parsed, a cold one is parsed afresh with its text. */
  materialize(t: ResourceTable, key: string, entry: Entry): KObject {
    if (isParsed(entry)) return entry;
    const json = this.textOf(entry);
    const obj = JSON.parse(json) as KObject;
    if (t.cold) {
      jsonOf.set(obj, json);
      return obj;
    }
    this.internAll(obj);
    if (t.items.get(key) === entry) t.set(key, obj);
    return obj;
  }

  internAll(obj: KObject): void {
    try {
      this.interner.internValues(obj);
    } catch {
      // A frozen part refuses the equal string: it keeps its own copy.
    }
  }

  /**
   * The object of `entry` as a walk in key order reads it: a hot object loaded at start-up and not parsed yet is
   * parsed with the next `warmPage` keys from it, in one read (instead of one read per object).
   */
  private materializeAhead(t: ResourceTable, key: string, entry: Entry): KObject {
    if (typeof entry !== 'number' || t.cold) return this.materialize(t, key, entry);
    const slash = key.indexOf('/');
    this.parseRows(t, this.stmts.currentFrom.all(t.resource, key.slice(0, slash), key.slice(slash + 1), warmPage) as Array<[string, string, number, string]>);
    const now = t.items.get(key) ?? entry;
    return this.materialize(t, key, now);
  }

  /** As materializeAhead, for a hot object loaded at start-up; undefined when its text is no longer in the change log. */
  private materializeAheadIfPresent(t: ResourceTable, key: string, entry: number): KObject | undefined {
    const slash = key.indexOf('/');
    this.parseRows(t, this.stmts.currentFrom.all(t.resource, key.slice(0, slash), key.slice(slash + 1), warmPage) as Array<[string, string, number, string]>);
    const now = t.items.get(key);
    if (now === undefined) return undefined;
    if (isParsed(now)) return now;
    if (typeof now === 'number' && this.stmts.valueAt.get(now) === undefined) return undefined;
    return this.materialize(t, key, now);
  }

  private parseRows(t: ResourceTable, rows: Array<[string, string, number, string]>): void {
    for (const [namespace, name, rv, json] of rows) {
      const key = keyOf(namespace, name);
      if (t.items.get(key) !== rv) continue;
      const obj = JSON.parse(json) as KObject;
      this.internAll(obj);
      t.set(key, obj);
    }
  }

  /** Parses every not yet parsed hot object of `resource`, reading their texts in pages of `page` rows. */
  private parseTable(t: ResourceTable, after: [string, string], page: number): [string, string] | undefined {
    const rows = this.stmts.currentPage.all(t.resource, after[0], after[1], page) as Array<[string, string, number, string]>;
    this.parseRows(t, rows);
    return rows.length < page ? undefined : [rows[rows.length - 1][0], rows[rows.length - 1][1]];
  }

  /**
   * Parses, in the background, the hot objects loaded at start-up and not read yet, `warmPage` at a time with a
   * turn of the event loop in between (reads meanwhile parse what they need themselves). Resolves when done.
   */
  async warm(): Promise<void> {
    for (const t of this.tables.values()) {
      // A cold table's keys are left to load with their first reader (a single key is looked up alone).
      if (t.cold) continue;
      while (t.loadFrom && !this.isClosed()) {
        this.loadKeys(t, 10 * warmPage);
        await nextTurn();
      }
      let after: [string, string] | undefined = ['', ''];
      while (after && t.unparsed > 0 && !this.isClosed()) {
        after = this.parseTable(t, after, warmPage);
        await nextTurn();
      }
    }
  }

  /** How many hot objects loaded at start-up are not parsed yet. */
  unparsedCount(): number {
    let n = 0;
    for (const t of this.tables.values()) n += t.unparsed;
    return n;
  }

  /** The current object. Hot objects are shared (never mutate them); a cold one is a fresh copy on every call. */
  get(resource: string, namespace: string, name: string): KObject | undefined {
    const t = this.tables.get(resource);
    if (!t) return undefined;
    const key = keyOf(namespace, name);
    const entry = this.entryOf(t, key, namespace, name);
    return entry === undefined ? undefined : this.materialize(t, key, entry);
  }

  /**
   * One key's entry. In a cold table whose keys are still loading (hundreds of thousands of Events after a restart)
   * a key not in memory yet is looked up in the database alone and kept, instead of loading every key first.
   */
  private entryOf(t: ResourceTable, key: string, namespace: string, name: string): Entry | undefined {
    const entry = t.items.get(key);
    if (entry !== undefined || !t.loadFrom || t.gone?.has(key)) return entry;
    const rv = this.stmts.keyRv.get(t.resource, namespace, name) as number | undefined;
    if (rv === undefined) return undefined;
    t.set(key, rv);
    return rv;
  }

  /** Objects in key order (namespace, then name); `namespace` undefined means all. Returned objects are shared: never mutate them. */
  list(resource: string, namespace?: string): KObject[] {
    const t = this.loaded(resource);
    if (!t) return [];
    if (!t.cold && t.unparsed > 0 && namespace === undefined) {
      for (let after: [string, string] | undefined = ['', '']; after && t.unparsed > 0; ) after = this.parseTable(t, after, 10 * warmPage);
    }
    return listSorted(t.keys(), (k) => this.materializeAhead(t, k, t.items.get(k)!), namespace);
  }

  /**
   * Visits the objects `list` would return in key order from the first key after `after`, until `visit` returns false;
   * objects are parsed as they are reached (a page of 750k Events parses only the page). Entries compacted away
   * meanwhile (an object rewritten, then its old revision compacted, while a scan is under way) are skipped. Returns
   * how many objects of the range were left unvisited.
   */
  scan(resource: string, namespace: string | undefined, after: string, visit: (obj: KObject) => boolean, compacted: () => number): number {
    const t = this.loaded(resource);
    if (!t) return 0;
    const gone = (entry: Entry) => {
      const rv = typeof entry === 'number' ? entry : entry instanceof StoredRef && entry.json === undefined ? entry.rv : undefined;
      return rv !== undefined && rv <= compacted() && this.stmts.valueAt.get(rv) === undefined;
    };
    return scanSorted(t.keys(), (k) => t.items.get(k), namespace, after, (entry, k) => {
      if (entry === undefined) return true;
      if (typeof entry === 'number' && !t.cold) {
        // Parsed with the page ahead of it; still a revision only when its text has been compacted away meanwhile.
        const obj = this.materializeAheadIfPresent(t, k, entry);
        return obj === undefined ? true : visit(obj);
      }
      return gone(entry) ? true : visit(this.materialize(t, k, entry));
    });
  }

  /**
   * The committed JSON text of `obj`, an object of a hot table this cache returned, read back from the change log: the
   * entry at its resourceVersion is what its write stored, JSON.stringify of it (objects are never mutated; an object
   * parsed from the log after a restart came from that very text). Undefined when it is not there: cold (their texts
   * travel with them), not committed yet, or compacted away since it was replaced. Reading a text back costs about a
   * third of serializing the object again (a full list of 150k pods: 340 ms against 1 s); no per-object lookup of its
   * key, since a replaced object's entry is still its own text until compaction drops it.
   */
  committedText(resource: string, obj: KObject): string | undefined {
    const t = this.tables.get(resource);
    if (!t || t.cold) return undefined;
    const rv = Number(obj.metadata?.resourceVersion);
    if (!Number.isSafeInteger(rv) || rv <= 0) return undefined;
    return this.stmts.valueAt.get(rv) as string | undefined;
  }

  count(resource: string): number {
    return this.loaded(resource)?.items.size ?? 0;
  }

  resources(): string[] {
    return [...this.tables.keys()];
  }
}
