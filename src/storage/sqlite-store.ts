// SQLite-backed object store: one global revision, current state in memory, change log for watches.
import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { KObject } from '../machinery/types.js';
import { migrate } from './migrate.js';
import { listSorted, lowerBound, scanSorted } from './key-order.js';
import { StorageError } from './errors.js';
import { ChangeHistory } from './history.js';
import type { Storage, StoreWatch } from './storage.js';
import { WatchHub, type Change, type ChangeListener, type ChangeType, type Trigger } from './watch-hub.js';

export interface StoreOptions {
  /** File path, or ':memory:'. */
  path: string;
  synchronous?: 'NORMAL' | 'FULL';
  /** How many change-log entries survive a compaction. */
  retainChanges?: number;
  /** The clock change times are recorded by (ms; default the wall clock): the cluster's simulated clock. */
  now?: () => number;
}

export type { StoreWatch } from './storage.js';

interface Row {
  resource: string;
  namespace: string;
  name: string;
  rv: number;
  value: string;
}

const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;

/** The JSON text each stored object was written as, so lists can be served without re-serializing. */
const jsonOf = new WeakMap<KObject, string>();
/** The largest object stored, as etcd's default request limit (--max-request-bytes, 1.5 MiB) bounds it. */
export const maxObjectBytes = 1.5 * 1024 * 1024;

export function storedJson(obj: KObject): string | undefined {
  return jsonOf.get(obj);
}

/**
 * Objects of one resource, with a sorted key list for stable listing. The list is kept up to date lazily: a few keys
 * added or deleted since it was last asked for are spliced into a copy (binary search, one memmove each), more are
 * sorted alone and merged in, so a list or page between writes never sorts every key again. A list once returned is
 * never changed (lists and pages hold it as their snapshot).
 */
class ResourceTable {
  readonly items = new Map<string, KObject>();
  private sorted: string[] | undefined;
  /** Keys added and deleted since `sorted` was built (a key may be in both, or twice), until there are too many. */
  private added: string[] = [];
  private deleted: string[] = [];
  private rebuild = true;
  set(key: string, obj: KObject): void {
    if (!this.items.has(key)) this.note(this.added, key);
    this.items.set(key, obj);
  }
  delete(key: string): void {
    if (this.items.delete(key)) this.note(this.deleted, key);
  }
  private note(list: string[], key: string): void {
    if (this.rebuild) return;
    if (this.added.length + this.deleted.length >= Math.max(64, this.items.size / 4)) {
      this.rebuild = true;
      this.added = [];
      this.deleted = [];
    } else list.push(key);
  }
  keys(): string[] {
    if (this.rebuild || !this.sorted) this.sorted = [...this.items.keys()].sort();
    else if (this.added.length + this.deleted.length <= 256) this.sorted = this.spliced(this.sorted);
    else if (this.added.length || this.deleted.length) this.sorted = this.merged(this.sorted);
    this.added = [];
    this.deleted = [];
    this.rebuild = false;
    return this.sorted;
  }
  private spliced(old: string[]): string[] {
    if (!this.added.length && !this.deleted.length) return old;
    const out = old.slice();
    for (const k of this.deleted) {
      const i = lowerBound(out, k);
      if (out[i] === k && !this.items.has(k)) out.splice(i, 1);
    }
    for (const k of this.added) {
      const i = lowerBound(out, k);
      if (out[i] !== k && this.items.has(k)) out.splice(i, 0, k);
    }
    return out;
  }
  private merged(old: string[]): string[] {
    const add = this.added.sort();
    const check = this.deleted.length > 0;
    const out: string[] = [];
    let i = 0;
    let j = 0;
    let last: string | undefined;
    while (i < old.length || j < add.length) {
      const fromOld = j >= add.length || (i < old.length && old[i] <= add[j]);
      const k = fromOld ? old[i++] : add[j++];
      // Old keys are all live unless some were deleted; an added key may have been deleted again, or added twice.
      if (k !== last && ((fromOld && !check) || this.items.has(k))) out.push((last = k));
    }
    return out;
  }
}

/** The first index of `keys` (sorted) whose key is not before `k`. */
export class SqliteStore implements Storage {
  readonly hub = new WatchHub();
  private readonly db: Database;
  private readonly tables = new Map<string, ResourceTable>();
  private rev = 0;
  /** The revision of the last change told to watchers (writes after it are not committed yet). */
  private published = 0;
  private compacted = 0;
  private readonly retain: number;
  /** When a batch is committed, by the cluster's clock (the time of its revisions for time travel). */
  now: () => number;
  private historyReader: ChangeHistory | undefined;
  /** Writes applied in memory but not yet committed; they are committed together (group commit). */
  private pending: Array<{ change: Change; namespace: string; name: string; json: string }> = [];
  private flushScheduled = false;
  private closed = false;
  private waiters: Array<() => void> = [];
  /** One transaction for a batch of writes: each object's current revision and its change-log entry. */
  private readonly persist: (batch: SqliteStore['pending']) => void;
  private readonly stmts: {
    del: Statement;
    setMeta: Statement;
    changesPage: Statement;
    batchTime: Statement;
  };

  constructor(opts: StoreOptions) {
    if (opts.path !== ':memory:') mkdirSync(dirname(opts.path), { recursive: true });
    this.db = new BetterSqlite3(opts.path);
    if (opts.path !== ':memory:') this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${opts.synchronous ?? 'NORMAL'}`);
    this.db.pragma('cache_size = -65536');
    this.db.pragma('wal_autocheckpoint = 8192');
    this.retain = opts.retainChanges ?? 100_000;
    this.now = opts.now ?? Date.now;
    migrate(this.db);
    this.stmts = {
      del: this.db.prepare('DELETE FROM objects WHERE resource = ? AND namespace = ? AND name = ?'),
      setMeta: this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      changesPage: this.db.prepare('SELECT rv, resource, namespace, name, type, value FROM changes WHERE resource = ? AND rv > ? AND rv <= ? ORDER BY rv LIMIT ?'),
      batchTime: this.db.prepare('INSERT OR REPLACE INTO revision_times (rv, ms) VALUES (?, ?)'),
    };
    // Rows go in several to a statement (each statement run has a fixed cost): the change log in any order, the
    // object pointers in batch order (a later write of the same key wins; a delete runs alone, in its place).
    const changeRows = rowsStatements(this.db, 'INSERT INTO changes (rv, resource, namespace, name, type, value) VALUES ', '(?, ?, ?, ?, ?, ?)', '');
    const upsertRows = rowsStatements(this.db, 'INSERT INTO objects (resource, namespace, name, rv) VALUES ', '(?, ?, ?, ?)', ' ON CONFLICT (resource, namespace, name) DO UPDATE SET rv = excluded.rv');
    this.persist = this.db.transaction((batch: SqliteStore['pending']) => {
      runRows(changeRows, batch, (p) => [p.change.rv, p.change.resource, p.namespace, p.name, p.change.type, p.json]);
      let start = 0;
      batch.forEach((p, i) => {
        if (p.change.type !== 'DELETED') return;
        runRows(upsertRows, batch.slice(start, i), upsertParams);
        this.stmts.del.run(p.change.resource, p.namespace, p.name);
        start = i + 1;
      });
      runRows(upsertRows, start ? batch.slice(start) : batch, upsertParams);
      this.stmts.batchTime.run(batch[batch.length - 1].change.rv, Math.trunc(this.now()));
    });
    this.load();
  }

  private load(): void {
    const meta = new Map((this.db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>).map((r) => [r.key, r.value]));
    const maxChange = (this.db.prepare('SELECT MAX(rv) AS m FROM changes').get() as { m: number | null }).m ?? 0;
    this.rev = Math.max(Number(meta.get('revision') ?? 0), maxChange);
    this.compacted = Number(meta.get('compacted') ?? 0);
    this.published = this.rev;
    const current = 'SELECT o.resource, o.namespace, o.name, o.rv, c.value FROM objects o JOIN changes c ON c.rv = o.rv';
    for (const row of this.db.prepare(current).iterate() as IterableIterator<Row>) {
      const obj = JSON.parse(row.value) as KObject;
      jsonOf.set(obj, row.value);
      this.table(row.resource).set(keyOf(row.namespace, row.name), obj);
    }
  }

  private table(resource: string): ResourceTable {
    let t = this.tables.get(resource);
    if (!t) this.tables.set(resource, (t = new ResourceTable()));
    return t;
  }

  revision(): number {
    return this.rev;
  }
  /** The newest revision whose change watchers have been told about: what a bookmark may promise. */
  publishedRevision(): number {
    return this.published;
  }
  compactedRevision(): number {
    return this.compacted;
  }

  /** Reads of the change log for time travel (state at a revision, changes between two). */
  history(): ChangeHistory {
    return (this.historyReader ??= new ChangeHistory(this.db, this));
  }

  get(resource: string, namespace: string, name: string): KObject | undefined {
    return this.tables.get(resource)?.items.get(keyOf(namespace, name));
  }

  /** Objects in key order (namespace, then name); `namespace` undefined means all. Returned objects are shared: never mutate them. */
  list(resource: string, namespace?: string): KObject[] {
    const t = this.tables.get(resource);
    return t ? listSorted(t.keys(), (k) => t.items.get(k)!, namespace) : [];
  }


  /**
   * Visits objects in key order after the key `after` ('' for the first), in `namespace` if given, until `visit`
   * returns false; nothing is copied, so a page costs what it reads. Returns how many objects of the range were
   * not visited (the one `visit` refused included).
   */
  scan(resource: string, namespace: string | undefined, after: string, visit: (obj: KObject) => boolean): number {
    const t = this.tables.get(resource);
    return t ? scanSorted(t.keys(), (k) => t.items.get(k)!, namespace, after, visit) : 0;
  }

  count(resource: string): number {
    return this.tables.get(resource)?.items.size ?? 0;
  }

  resources(): string[] {
    return [...this.tables.keys()];
  }

  create(resource: string, obj: KObject): KObject {
    const { namespace, name } = ident(obj);
    if (this.get(resource, namespace, name)) throw new StorageError('AlreadyExists', `${resource} ${namespace}/${name} exists`);
    return this.write(resource, obj, 'ADDED', undefined);
  }

  /** Replaces the stored object; `expectedRv` (if given) must equal the stored resourceVersion. */
  update(resource: string, obj: KObject, expectedRv?: number): KObject {
    const { namespace, name } = ident(obj);
    const cur = this.get(resource, namespace, name);
    if (!cur) throw new StorageError('NotFound', `${resource} ${namespace}/${name} not found`);
    if (expectedRv !== undefined && Number(cur.metadata.resourceVersion) !== expectedRv) {
      throw new StorageError('Conflict', `${resource} ${namespace}/${name} changed`);
    }
    return this.write(resource, obj, 'MODIFIED', cur);
  }

  delete(resource: string, namespace: string, name: string, expectedRv?: number): KObject {
    const cur = this.get(resource, namespace, name);
    if (!cur) throw new StorageError('NotFound', `${resource} ${namespace}/${name} not found`);
    if (expectedRv !== undefined && Number(cur.metadata.resourceVersion) !== expectedRv) {
      throw new StorageError('Conflict', `${resource} ${namespace}/${name} changed`);
    }
    return this.write(resource, cur, 'DELETED', cur);
  }

  private write(resource: string, input: KObject, type: ChangeType, previous: KObject | undefined): KObject {
    // A timer that fires while the process shuts down must not write what can no longer be saved.
    if (this.closed) throw new StorageError('Closed', 'the store is closed');
    const rv = this.rev + 1;
    const obj: KObject = { ...input, metadata: { ...input.metadata, resourceVersion: String(rv) } };
    const { namespace, name } = ident(obj);
    const json = JSON.stringify(obj);
    if (type !== 'DELETED' && json.length > maxObjectBytes && Buffer.byteLength(json) > maxObjectBytes) throw new StorageError('TooLarge', 'etcdserver: request is too large');
    this.rev = rv;
    jsonOf.set(obj, json);
    const t = this.table(resource);
    if (type === 'DELETED') t.delete(keyOf(namespace, name));
    else t.set(keyOf(namespace, name), obj);
    this.pending.push({ change: { type, resource, rv, object: obj, previous }, namespace, name, json });
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    return obj;
  }

  /**
   * Commits every pending write in one transaction, then tells watchers, in revision order. A failed commit
   * leaves memory ahead of the database, so it is fatal: the process stops rather than serve unsaved state.
   */
  flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    if (!batch.length) return;
    this.pending = [];
    this.persist(batch);
    const waiters = this.waiters;
    this.waiters = [];
    this.published = batch[batch.length - 1].change.rv;
    this.hub.publishBatch(batch.map((p) => p.change));
    for (const w of waiters) w();
  }

  /** Resolves once every write made so far is committed (at once when none is pending). */
  committed(): Promise<void> {
    if (!this.pending.length) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  hasPending(): boolean {
    return this.pending.length > 0;
  }

  /**
   * Streams the changes of `resource` after `fromRv` with no gap: those already committed come from the change
   * log through `replay`, a page at a time as the caller asks for them; later ones reach `listener` as they are
   * committed. Throws StorageError('Expired') when `fromRv` is older than the compacted change log (and `replay`
   * does when compaction overtakes a replay still under way). With a `trigger`, live changes come only when the
   * object (or its previous state) has the trigger's value; the replay is not narrowed.
   */
  watch(resource: string, fromRv: number, listener: ChangeListener, trigger?: Trigger): StoreWatch {
    if (fromRv < this.compacted) throw this.expired(fromRv);
    // Everything up to the last published revision is in the log; later changes are published after their commit.
    const upTo = Math.max(fromRv, this.published);
    let cursor = fromRv;
    const stop = this.hub.subscribe(resource, (c) => {
      if (c.rv > upTo) listener(c);
    }, trigger);
    const replay = (max: number): Change[] => {
      if (cursor >= upTo) return [];
      if (cursor < this.compacted) throw this.expired(cursor);
      const out: Change[] = [];
      for (const r of this.stmts.changesPage.iterate(resource, cursor, upTo, max) as IterableIterator<Row & { type: ChangeType }>) {
        const object = JSON.parse(r.value) as KObject;
        jsonOf.set(object, r.value);
        out.push({ type: r.type, resource, rv: r.rv, object });
      }
      cursor = out.length < max ? upTo : out[out.length - 1].rv;
      return out;
    };
    return { stop, replay };
  }

  private expired(rv: number): StorageError {
    return new StorageError('Expired', `too old resource version: ${rv} (${this.compacted + 1})`, this.compacted + 1);
  }

  /** Drops change-log entries beyond the retention window. Returns the new compacted revision. */
  compact(retain = this.retain): number {
    const target = this.rev - retain;
    if (target <= this.compacted) return this.compacted;
    this.db.transaction(() => {
      // Entries that are still some object's current state stay: start-up reads them. So does each key's latest
      // change at or before the target unless it deleted the key (as etcd keeps it): the state at the compacted
      // revision, and any after it, can still be rebuilt from the log (time travel).
      this.db.prepare(
        `DELETE FROM changes WHERE rv <= @target AND rv NOT IN (SELECT rv FROM objects) AND rv NOT IN
           (SELECT rv FROM (SELECT MAX(rv) AS rv, type FROM changes WHERE rv <= @target GROUP BY resource, namespace, name) WHERE type <> 'DELETED')`,
      ).run({ target });
      this.db.prepare('DELETE FROM revision_times WHERE rv < ?').run(target);
      this.stmts.setMeta.run('compacted', String(target));
      this.stmts.setMeta.run('revision', String(this.rev));
    })();
    this.compacted = target;
    return target;
  }

  close(): void {
    this.flush();
    this.closed = true;
    this.hub.clear();
    try {
      this.stmts.setMeta.run('revision', String(this.rev));
    } catch {
      /* closing anyway */
    }
    this.db.close();
  }
}

type Pending = SqliteStore['pending'][number];

const upsertParams = (p: Pending): unknown[] => [p.change.resource, p.namespace, p.name, p.change.rv];

/** Statements inserting 64, 16, 4 or 1 rows of `row` at once. */
function rowsStatements(db: Database, head: string, row: string, tail: string): Array<[number, Statement]> {
  return [64, 16, 4, 1].map((n) => [n, db.prepare(`${head}${new Array<string>(n).fill(row).join(', ')}${tail}`)]);
}

/** Runs `rows` through the largest statements that fit, in order. */
function runRows(stmts: Array<[number, Statement]>, rows: Pending[], params: (p: Pending) => unknown[]): void {
  let i = 0;
  for (const [n, stmt] of stmts) {
    while (rows.length - i >= n) {
      const values: unknown[] = [];
      for (let j = i; j < i + n; j++) values.push(...params(rows[j]));
      stmt.run(values);
      i += n;
    }
  }
}

function ident(obj: KObject): { namespace: string; name: string } {
  return { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' };
}
