// The storage interface between the registry and a backend: SQLite in this process (sqlite-store.ts), or etcd shared
// with other processes (etcd/etcd-store.ts). Reads are synchronous, from the backend's in-memory state. Writes answer
// the stored object with its resourceVersion: at once from a backend that applies them here (SQLite), as a Promise
// from one that must ask another process (etcd).
import type { KObject } from '../machinery/types.js';
import type { ChangeHistory } from './history.js';
import type { Change, ChangeListener, Trigger, WatchHub } from './watch-hub.js';

/** Committed objects by their revision, oldest write first, with the time of each write (ms, the store's clock). */
export interface WriteTimes {
  revs: number[];
  times: number[];
}

/** A watch on the store: live changes go to its listener; earlier ones are read with `replay(max)` ([] when none is left). */
/** One object's place in the store: its storage key (`group/plural`), namespace ('' when cluster-scoped) and name. */
export interface ObjectName {
  resource: string;
  namespace: string;
  name: string;
}

export interface StoreWatch {
  stop(): void;
  replay(max: number): Change[];
}

export interface Storage {
  /** The local change feed: every change, in revision order, once it is durable (and, on etcd, seen by its watch). */
  readonly hub: WatchHub;
  /**
   * Whether this process alone writes the backing store (SQLite): what it holds in memory is the truth and leader
   * elections need no contest. False for a store shared with other processes (etcd).
   */
  readonly exclusive: boolean;
  /** The clock change times are recorded by (ms). */
  now: () => number;

  /** The newest revision this process's state holds. */
  revision(): number;
  /** The newest revision whose changes watchers have been told about: what a bookmark may promise. */
  publishedRevision(): number;
  /** Watches from before this revision are answered with StorageError('Expired') (410 Gone). */
  compactedRevision(): number;

  get(resource: string, namespace: string, name: string): KObject | undefined;
  /** Objects in key order (namespace, then name); `namespace` undefined means all. Shared objects: never mutate them. */
  list(resource: string, namespace?: string): KObject[];
  /**
   * Visits objects in key order from the first key after `after` ('' from the start), within `namespace` when given,
   * until `visit` returns false; returns how many were left unvisited (a page costs what it returns).
   */
  scan(resource: string, namespace: string | undefined, after: string, visit: (obj: KObject) => boolean): number;
  count(resource: string): number;
  /**
   * Optionally, byte for byte JSON.stringify(obj) when the backend can give it cheaper (a text it keeps), for `obj`
   * an object of `resource` it returned, unchanged; undefined when it cannot (the caller serializes `obj` itself).
   */
  storedText?(resource: string, obj: KObject): string | undefined;
  /**
   * Optionally, byte for byte JSON.stringify(obj) when the backend holds that text in memory beside the object it
   * returned (a write not yet published): found by the object's identity only, never read from disk.
   */
  pendingText?(obj: KObject): string | undefined;
  /** Storage keys holding objects. */
  resources(): string[];

  // The writes answer the stored object at once when the backend applies them here (SQLite: in memory at once,
  // committed in the background; no Promise, so a write costs no microtask), and a Promise when it must ask another
  // process (etcd: many are in flight at once). A refusal (StorageError) is thrown, or rejects the Promise.

  /** Refused with StorageError AlreadyExists when the object exists. */
  create(resource: string, obj: KObject): KObject | Promise<KObject>;
  /** Replaces the stored object; `expectedRv` (if given) must equal the stored resourceVersion (else Conflict). */
  update(resource: string, obj: KObject, expectedRv?: number): KObject | Promise<KObject>;
  /** Removes the object and answers it as it was; `expectedRv` as for `update` (NotFound when it does not exist). */
  delete(resource: string, namespace: string, name: string, expectedRv?: number): KObject | Promise<KObject>;

  /**
   * The changes of `resource` after `fromRv` with no gap: older ones through `replay`, later ones to `listener`.
   * Throws StorageError('Expired') when `fromRv` is older than what the backend can replay.
   */
  watch(resource: string, fromRv: number, listener: ChangeListener, trigger?: Trigger): StoreWatch;

  /** Resolves once every write made so far is published to watchers (at once when none is pending). */
  committed(): Promise<void>;
  hasPending(): boolean;
  /**
   * Optionally, whether writes are on their way to another process (etcd: a transaction not answered yet), which
   * `hasPending` does not count: the virtual clock waits for them, as for any work in progress.
   */
  writesInFlight?(): boolean;
  /**
   * For backends shared with other processes: resolves once this process's state has caught up with the newest
   * revision of the backing store (a read after it sees every write acknowledged anywhere before the call).
   * Undefined (nothing to wait for) when the state is the source of truth. With `one`, current for that object only.
   */
  consistentRead?(one?: ObjectName): Promise<void> | undefined;
  /** Parses in the background what start-up loaded unparsed (SQLite loads keys only); resolves when done. */
  warm?(): Promise<void>;
  /** Starts what the store runs beside the server once it answers (SQLite's commit thread, when asked for later). */
  startBackground?(): void;
  /**
   * The committed objects of `resource` with the clock time (ms) of their last write, oldest write first, read
   * without parsing any object (the Event TTL's start-up queue). Undefined when the backend keeps no write times.
   */
  writeTimes?(resource: string): WriteTimes | undefined;
  /** The key of the change at revision `rv` of `resource` (undefined when that change is no longer kept). */
  keyAt?(resource: string, rv: number): { namespace: string; name: string } | undefined;

  /** Drops history beyond the retention window; returns the compacted revision. */
  compact(retain?: number): number;
  /** Time travel over the change log; undefined when the backend keeps no such log. */
  history(): ChangeHistory | undefined;
  close(): void;
}
