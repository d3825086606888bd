// SQLite-backed object store: one global revision, current state in memory, change log for watches.
//
// Memory representation (the 150k-pod envelope must fit in Node's default heap):
// - Hot resources (everything but Events) are held parsed, one copy per object, their short string values
//   interned in a bounded table (StringInterner): labels, images, node names, owner references, managers...
//   The JSON text a write produced is kept beside the object (`storedJson`) only until its commit has been told to
//   watchers (watch events and the write's own response are encoded from it); then only the parsed object stays.
// - Cold resources (Events: about five per pod, rarely read) are held as their revision only: the text is in the
//   change log, read back by revision and parsed on each get/list (the answer is a fresh object, with its text).
//   Until a write is committed its text stays in memory (StoredRef.json).
// - At start-up nothing is parsed: every key is loaded with its revision, objects are parsed on first read, and
//   `warm()` parses the hot ones in the background, a page at a time, so requests are answered meanwhile.
import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { KObject } from '../machinery/types.js';
import { migrate } from './migrate.js';
import { StorageError } from './errors.js';
import { ChangeHistory } from './history.js';
import type { Storage, StoreWatch, WriteTimes } from './storage.js';
import { watchFrom } from './watch-replay.js';
import { ObjectCache, jsonOf } from './object-cache.js';
import { checkObjectSize } from './limits.js';
import { StoredRef, keyOf } from './object-table.js';
import { ensureIncrementalVacuum, releaseFreePages } from './vacuum.js';
import { batchWriter, commitRows, compactChangeLog, setMeta, type CommitRow, type PendingWrite } from './batch-writer.js';
import { CommitThread } from './commit-thread.js';
import { configureConnection } from './connection.js';
import { InternQueue } from './intern-queue.js';
import { WatchHub, type Change, type ChangeListener, type ChangeType, type Trigger } from './watch-hub.js';

export interface StoreOptions {
  /** File path, or ':memory:'. */
  path: string;
  synchronous?: 'NORMAL' | 'FULL';
  /** How many change-log entries survive a compaction. */
  retainChanges?: number;
  /** The clock change times are recorded by (ms; default the wall clock): the cluster's simulated clock. */
  now?: () => number;
  /** Resources held as text in the change log only, parsed on each read (default: Events). */
  coldResources?: readonly string[];
  /**
   * Commits a file store's batches on a worker thread (commit-thread.ts) instead of the main thread. Off, `flush()`
   * commits at once, as an in-memory store always does. 'later': the thread starts at `startBackground()` (the server
   * calls it once it listens, so the thread's own start-up does not compete with the server's); until then, as off.
   */
  commitThread?: boolean | 'later';
}

export type { StoreWatch } from './storage.js';

/** Storage keys held cold by default: Events are many (about five per pod), written once and rarely read. */
export const defaultColdResources: readonly string[] = ['core/events'];

interface Row {
  resource: string;
  namespace: string;
  name: string;
  rv: number;
  value: string;
}

export class SqliteStore implements Storage {
  readonly exclusive = true;
  readonly hub = new WatchHub();
  private readonly db: Database;
  private readonly cache: ObjectCache;
  private rev = 0;
  /** The revision of the last change told to watchers (writes after it are not committed yet). */
  private published = 0;
  private compacted = 0;
  private readonly retain: number;
  /** When a batch is committed, by the cluster's clock (the time of its revisions for time travel). */
  now: () => number;
  private historyReader: ChangeHistory | undefined;
  /** Writes applied in memory but not yet committed; they are committed together (group commit). */
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  private closed = false;
  /** Who waits for the writes up to a revision to be published (see `committed`), in revision order. */
  private waiters: Array<{ rv: number; resolve: () => void }> = [];
  /** One transaction for a batch of writes: each object's current revision and its change-log entry. */
  private readonly persist: (rows: CommitRow[], time: number) => void;
  /** The worker thread committing batches (a file store with `commitThread`), and the batches it is committing, in order. */
  private thread: CommitThread | undefined;
  private readonly inFlight: PendingWrite[][] = [];
  /** Written hot objects wait here to be interned in spare time (see intern-queue.ts). */
  readonly interning: InternQueue;
  private readonly stmts: {
    changesPage: Statement;
    keyAt: Statement;
  };

  constructor(opts: StoreOptions) {
    const inMemory = opts.path === ':memory:';
    if (!inMemory) mkdirSync(dirname(opts.path), { recursive: true });
    // ':memory:' keeps nothing once the process ends, but its pages (every object's text and the change log: about
    // 10 KB per pod with its Events) would all count against the process's memory. SQLite's private temporary
    // database ('') is as private and as short-lived (deleted when closed) and keeps only its page cache in memory.
    this.db = new BetterSqlite3(inMemory ? '' : opts.path);
    ensureIncrementalVacuum(this.db);
    if (!inMemory) this.db.pragma('journal_mode = WAL');
    configureConnection(this.db, inMemory ? 'OFF' : opts.synchronous ?? 'NORMAL');
    this.retain = opts.retainChanges ?? 100_000;
    this.now = opts.now ?? Date.now;
    migrate(this.db);
    this.cache = new ObjectCache(this.db, new Set(opts.coldResources ?? defaultColdResources), () => this.closed);
    this.stmts = {
      changesPage: this.db.prepare('SELECT rv, resource, namespace, name, type, value FROM changes WHERE resource = ? AND rv > ? AND rv <= ? ORDER BY rv LIMIT ?'),
      keyAt: this.db.prepare('SELECT namespace, name FROM changes WHERE rv = ? AND resource = ?'),
    };
    this.persist = batchWriter(this.db);
    this.interning = new InternQueue((obj) => this.cache.internAll(obj as KObject));
    this.load();
    this.startThread = opts.commitThread && !inMemory
      ? () => new CommitThread(opts.path, opts.synchronous ?? 'NORMAL', () => this.afterCommit(), (why) => this.commitFailed(why))
      : undefined;
    if (opts.commitThread === true) this.startBackground();
  }

  /** Makes the commit thread, once (see `commitThread`). */
  private startThread: (() => CommitThread) | undefined;

  startBackground(): void {
    if (!this.startThread || this.closed) return;
    this.thread = this.startThread();
    this.startThread = undefined;
  }

  private load(): void {
    const meta = new Map((this.db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>).map((r) => [r.key, r.value]));
    const maxChange = (this.db.prepare('SELECT MAX(rv) AS m FROM changes').get() as { m: number | null }).m ?? 0;
    this.rev = Math.max(Number(meta.get('revision') ?? 0), maxChange);
    this.compacted = Number(meta.get('compacted') ?? 0);
    this.published = this.rev;
    this.cache.load();
  }

  /**
   * Parses, in the background, the hot objects loaded at start-up and not read yet, a page at a time with a turn of
   * the event loop in between (cold ones' keys load with their first list or count). Resolves when done.
   */
  warm(): Promise<void> {
    return this.cache.warm();
  }

  /**
   * Committed objects of `resource` by revision, in revision (so write) order, each with the time of the group commit
   * that wrote it: the first recorded batch at or after its revision (a compacted batch time reads as a later one,
   * never an earlier one). Reads revisions only: no key or object (500,000 Events after a restart cost about 50 ms).
   */
  writeTimes(resource: string): WriteTimes {
    const batches = this.db.prepare('SELECT rv, ms FROM revision_times ORDER BY rv').raw().all() as Array<[number, number]>;
    const revs = this.db.prepare('SELECT rv FROM objects WHERE resource = ?').pluck().all(resource) as number[];
    revs.sort((a, b) => a - b);
    const times = new Array<number>(revs.length);
    const fallback = this.now();
    let b = 0;
    for (let i = 0; i < revs.length; i++) {
      while (b < batches.length && batches[b][0] < revs[i]) b++;
      times[i] = b < batches.length ? batches[b][1] : fallback;
    }
    return { revs, times };
  }

  keyAt(resource: string, rv: number): { namespace: string; name: string } | undefined {
    return this.stmts.keyAt.get(rv, resource) as { namespace: string; name: string } | undefined;
  }

  /** How many hot objects loaded at start-up are not parsed yet. */
  unparsedCount(): number {
    return this.cache.unparsedCount();
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

  /** The current object. Hot objects are shared (never mutate them); a cold one is a fresh copy on every call. */
  get(resource: string, namespace: string, name: string): KObject | undefined {
    return this.cache.get(resource, namespace, name);
  }

  /** Objects in key order (namespace, then name); `namespace` undefined means all. Returned objects are shared: never mutate them. */
  list(resource: string, namespace?: string): KObject[] {
    return this.cache.list(resource, namespace);
  }

  /**
   * Visits objects in key order after the key `after` ('' for the first), in `namespace` if given, until `visit`
   * returns false; nothing is copied and objects are parsed as they are reached, so a page costs what it reads.
   * Returns how many objects of the range were not visited (the one `visit` refused included).
   */
  scan(resource: string, namespace: string | undefined, after: string, visit: (obj: KObject) => boolean): number {
    return this.cache.scan(resource, namespace, after, visit, () => this.compacted);
  }

  /**
   * The JSON text `obj` was stored as, when this store still holds it: a write not yet published keeps it in memory;
   * a committed hot object's is read back from the change log by its revision (cheaper than JSON.stringify). `obj`
   * must be an object this store returned, unchanged. Undefined when the text is gone (the caller serializes `obj`).
   */
  storedText(resource: string, obj: KObject): string | undefined {
    return jsonOf.get(obj) ?? this.cache.committedText(resource, obj);
  }

  /** The JSON text of a write not yet published (or of an object parsed from it at start-up), kept beside the object. */
  pendingText(obj: KObject): string | undefined {
    return jsonOf.get(obj);
  }

  count(resource: string): number {
    return this.cache.count(resource);
  }

  resources(): string[] {
    return this.cache.resources();
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
    if (type !== 'DELETED') checkObjectSize(json);
    this.rev = rv;
    jsonOf.set(obj, json);
    const t = this.cache.table(resource);
    let ref: StoredRef | undefined;
    if (type === 'DELETED') t.delete(keyOf(namespace, name));
    else if (t.cold) t.set(keyOf(namespace, name), (ref = new StoredRef(rv, json)));
    else {
      const key = keyOf(namespace, name);
      t.set(key, obj);
      this.interning.add(obj, () => t.items.get(key) === obj);
    }
    this.pending.push({ change: { type, resource, rv, object: obj, previous }, namespace, name, json, ref });
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    return obj;
  }

  /**
   * Commits every pending write in one transaction, then tells watchers, in revision order. A failed commit
   * leaves memory ahead of the database, so it is fatal: the process stops rather than serve unsaved state.
   * With a commit thread the transaction runs there, while this thread goes on (several batches may be on their
   * way, committed in order), and watchers are told when it is done.
   */
  flush(): void {
    this.flushScheduled = false;
    if (!this.pending.length) return;
    const batch = this.pending;
    this.pending = [];
    this.inFlight.push(batch);
    const rows = commitRows(batch);
    if (this.thread?.isReady()) this.thread.commit(rows, this.now());
    else {
      this.persist(rows, this.now());
      this.afterCommit();
    }
  }

  /** The oldest batch in flight is committed: its texts leave memory, watchers are told, and its writers answered. */
  private afterCommit(): void {
    const batch = this.inFlight.shift();
    if (!batch) return;
    // Committed: cold objects' texts are read from the change log from now on.
    for (const p of batch) {
      if (!p.ref) continue;
      const t = this.cache.tables.get(p.change.resource);
      const key = keyOf(p.namespace, p.name);
      if (t?.items.get(key) === p.ref) t.items.set(key, p.ref.rv);
      p.ref.json = undefined;
    }
    this.published = batch[batch.length - 1].change.rv;
    try {
      this.hub.publishBatch(batch.map((p) => p.change));
    } finally {
      // Told to every watcher (and the writes' responses were encoded before): hot objects drop their text.
      for (const p of batch) if (!p.ref) jsonOf.delete(p.change.object);
      this.wake();
    }
  }

  private wake(): void {
    let n = 0;
    while (n < this.waiters.length && this.waiters[n].rv <= this.published) n++;
    if (n === 0) return;
    const done = this.waiters.splice(0, n);
    for (const w of done) w.resolve();
  }

  private commitFailed(why: string): never {
    throw new Error(`the store could not commit its writes: ${why}`);
  }

  /** Resolves once every write made so far is committed (at once when none is pending). */
  committed(): Promise<void> {
    if (!this.hasPending()) return Promise.resolve();
    const rv = this.rev;
    return new Promise((resolve) => this.waiters.push({ rv, resolve }));
  }

  hasPending(): boolean {
    return this.pending.length > 0 || this.inFlight.length > 0;
  }

  /**
   * Streams the changes of `resource` after `fromRv` with no gap: those already committed come from the change
   * log through `replay`, a page at a time as the caller asks for them; later ones reach `listener` as they are
   * committed. Throws StorageError('Expired') when `fromRv` is older than the compacted change log (and `replay`
   * does when compaction overtakes a replay still under way). With a `trigger`, live changes come only when the
   * object (or its previous state) has the trigger's value; the replay is not narrowed.
   */
  watch(resource: string, fromRv: number, listener: ChangeListener, trigger?: Trigger): StoreWatch {
    return watchFrom({
      hub: this.hub, published: this.published, compacted: () => this.compacted,
      read: (after, upTo, max) => {
        const out: Change[] = [];
        for (const r of this.stmts.changesPage.all(resource, after, upTo, max) as Array<Row & { type: ChangeType }>) {
          const object = JSON.parse(r.value) as KObject;
          jsonOf.set(object, r.value);
          out.push({ type: r.type, resource, rv: r.rv, object });
        }
        return out;
      },
    }, resource, fromRv, listener, trigger);
  }

  /** Drops change-log entries beyond the retention window. Returns the new compacted revision. */
  compact(retain = this.retain): number {
    const target = this.rev - retain;
    if (target <= this.compacted) return this.compacted;
    // The thread compacts after the batches posted before (it is the file's only writer once ready).
    if (this.thread?.isReady()) this.thread.compact(target, this.rev);
    else {
      compactChangeLog(this.db, target, this.rev);
      releaseFreePages(this.db);
    }
    this.compacted = target;
    return target;
  }

  close(): void {
    if (this.closed) return;
    // Commits what is pending: on the thread, after the batches in flight (posted already; nobody waits for them now).
    if (this.thread?.isReady()) {
      this.inFlight.length = 0;
      if (this.pending.length) this.thread.commit(commitRows(this.pending), this.now());
      this.pending = [];
    } else this.flush();
    this.closed = true;
    this.interning.clear();
    this.hub.clear();
    try {
      if (this.thread) this.thread.close(this.rev);
      else setMeta(this.db, 'revision', String(this.rev));
    } catch {
      /* closing anyway */
    }
    this.db.close();
  }
}

function ident(obj: KObject): { namespace: string; name: string } {
  return { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' };
}
