// Storage on etcd v3, shared with other Bonsai processes. Every object lives in an in-memory mirror fed by one etcd
// watch of /registry/ (the watch cache); reads are served from it. Writes are etcd transactions, asynchronous (many
// in flight, the event loop never waits on etcd), guarded by the key's mod_revision, so a stale mirror gives
// Conflict and the registry's update loops retry. Watchers are told about changes in revision order, from the watch
// stream only, so every process publishes the same sequence.
import type { KObject } from '../../machinery/types.js';
import { StorageError } from '../errors.js';
import { checkObjectSize } from '../limits.js';
import type { ObjectName, Storage, StoreWatch } from '../storage.js';
import { watchFrom } from '../watch-replay.js';
import { WatchHub, type Change, type ChangeListener, type Trigger } from '../watch-hub.js';
import { ChangeWindow } from './change-window.js';
import { KeyLayout, registryRoot } from './keys.js';
import { Mirror, rvOf } from './mirror.js';
import { EtcdConnection, rangeEnd } from './connection.js';
import type { KV, Notice, Reply, Request, TxnKind, WatchEvent } from './protocol.js';
import { resync } from './resync.js';
import { RevisionWaiters } from './revision-waiters.js';

export { parseEtcdUrl } from './endpoints.js';

export interface EtcdStoreOptions {
  /** Client URLs, e.g. ['http://127.0.0.1:2379']. */
  endpoints: string[];
  /** Storage keys of the built-in resources (their etcd prefixes follow kube-apiserver's). */
  builtins: readonly string[];
  /** Revisions etcd keeps behind the newest at each compaction (default 100,000). */
  retainChanges?: number;
  /** Recent changes kept in memory for watches from an older revision (default 100,000). */
  windowSize?: number;
  /** etcd's deadline for each call (ms, default 10,000). */
  timeoutMs?: number;
  now?: () => number;
  log?: (message: string) => void;
}

const pageSize = 1000;

/** A write's transaction and what applying its answer needs. */
interface PreparedWrite {
  kind: TxnKind;
  resource: string;
  namespace: string;
  name: string;
  stored: KObject;
  previous: KObject | undefined;
  req: Request;
}


export class EtcdStore implements Storage {
  readonly exclusive = false;
  readonly hub = new WatchHub();
  now: () => number;
  private readonly layout: KeyLayout;
  private readonly channel: EtcdConnection;
  private readonly mirror = new Mirror();
  private window: ChangeWindow;
  private readonly retain: number;
  private readonly timeoutMs: number;
  private readonly log: (message: string) => void;
  private rev = 0;
  private published = 0;
  private compacted = 0;
  /** The revision of the last event taken from the watch (events at or below it are repeats). */
  private lastEvent = 0;
  private warnedEarlyProgress = false;
  /** The published revision at the previous periodic compaction. */
  private lastMark = 0;
  /** The newest revision written by this process. */
  private localMax = 0;
  /** Local writes not yet seen on the watch: revision -> the object returned and its previous state. */
  private readonly local = new Map<number, { object: KObject; previous?: KObject }>();
  /** Asynchronous writes sent and not answered yet, by etcd key (the latest one per key). */
  private readonly inflight = new Map<string, PreparedWrite>();
  /** Waiting for `published` to reach a revision. */
  private readonly waiters: RevisionWaiters;
  private closed = false;

  /** Connects, loads every object into the mirror and starts watching from the revision read. */
  static async open(opts: EtcdStoreOptions): Promise<EtcdStore> {
    const store = new EtcdStore(opts);
    try {
      store.rev = store.published = store.lastEvent = await store.load();
    } catch (err) {
      store.channel.close();
      throw err;
    }
    store.window = new ChangeWindow(opts.windowSize ?? 100_000, store.rev);
    store.channel.control({ op: 'watch', from: store.rev + 1 });
    return store;
  }

  private constructor(opts: EtcdStoreOptions) {
    this.layout = new KeyLayout(opts.builtins);
    this.retain = opts.retainChanges ?? 100_000;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? ((m) => process.emitWarning(m));
    this.waiters = new RevisionWaiters(() => this.published, this.timeoutMs);
    this.window = new ChangeWindow(opts.windowSize ?? 100_000, 0);
    this.channel = new EtcdConnection({ hosts: opts.endpoints, prefix: registryRoot, callTimeoutMs: this.timeoutMs, onNotice: (n) => this.onNotice(n) });
  }

  /** Ranges the whole prefix at one revision (the newest when 0), a page at a time; returns that revision. */
  private async rangeAll(at: number, visit: (kv: KV) => void): Promise<number> {
    let revision = at;
    let from = registryRoot;
    const end = rangeEnd(registryRoot);
    for (;;) {
      const r = this.sync(await this.channel.call({ op: 'range', key: from, end, revision: revision || undefined, limit: pageSize }));
      if (!revision) revision = r.revision;
      const kvs = r.kvs ?? [];
      for (const kv of kvs) visit(kv);
      if (!r.more || !kvs.length) return revision;
      from = `${kvs[kvs.length - 1].key}\0`;
    }
  }

  /** Loads every object into the mirror; returns the revision read at. */
  private load(): Promise<number> {
    return this.rangeAll(0, (kv) => {
      const p = this.layout.parse(kv.key);
      const obj = p && this.decode(kv);
      if (p && obj) this.mirror.apply(p.resource, p.namespace, p.name, obj, kv.mod);
    });
  }

  private sync(reply: Reply): Extract<Reply, { ok: true }> {
    if (!reply.ok && /request is too large|message larger than max/i.test(reply.error)) throw new StorageError('TooLarge', 'etcdserver: request is too large');
    if (!reply.ok) throw new StorageError('Timeout', `etcd: ${reply.error}`);
    return reply;
  }

  private decode(kv: KV): KObject | undefined {
    let v: unknown;
    try {
      v = JSON.parse(kv.value);
    } catch {
      v = undefined;
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v) || typeof (v as KObject).metadata !== 'object' || (v as KObject).metadata === null) {
      this.log(`etcd key ${kv.key.slice(0, 200)} does not hold a JSON object; ignored`);
      return undefined;
    }
    const obj = v as KObject;
    obj.metadata.resourceVersion = String(kv.mod);
    return obj;
  }

  revision(): number {
    return this.rev;
  }
  publishedRevision(): number {
    return this.published;
  }
  compactedRevision(): number {
    return Math.max(this.compacted, this.window.oldest());
  }
  history(): undefined {
    return undefined;
  }

  get(resource: string, namespace: string, name: string): KObject | undefined {
    return this.mirror.get(resource, namespace, name);
  }
  list(resource: string, namespace?: string): KObject[] {
    return this.mirror.list(resource, namespace);
  }
  scan(resource: string, namespace: string | undefined, after: string, visit: (obj: KObject) => boolean): number {
    return this.mirror.scan(resource, namespace, after, visit);
  }
  count(resource: string): number {
    return this.mirror.count(resource);
  }
  resources(): string[] {
    return this.mirror.resources();
  }

  // Each write is a transaction sent to etcd and answered when etcd has: many are in flight at once.
  create(resource: string, obj: KObject): Promise<KObject> {
    return this.later(() => this.prepare('create', resource, obj, 0, undefined));
  }
  update(resource: string, obj: KObject, expectedRv?: number): Promise<KObject> {
    return this.later(() => {
      const cur = this.current(resource, obj.metadata.namespace ?? '', obj.metadata.name ?? '', expectedRv);
      return this.prepare('update', resource, obj, rvOf(cur), cur);
    });
  }
  delete(resource: string, namespace: string, name: string, expectedRv?: number): Promise<KObject> {
    return this.later(() => {
      const cur = this.current(resource, namespace, name, expectedRv);
      return this.prepare('delete', resource, cur, rvOf(cur), cur);
    });
  }

  private later(prepare: () => PreparedWrite): Promise<KObject> {
    let w: PreparedWrite;
    try {
      w = prepare();
    } catch (e) {
      return Promise.reject(e);
    }
    const key = w.req.op === 'txn' ? w.req.key : '';
    this.inflight.set(key, w);
    return this.channel.call(w.req).then((reply) => {
      if (this.inflight.get(key) === w) this.inflight.delete(key);
      return this.finish(w, reply);
    });
  }

  /** The in-flight write whose transaction made this watch event, when its answer has not come yet. */
  private inflightWrite(e: WatchEvent): PreparedWrite | undefined {
    const w = this.inflight.get(e.kv.key);
    if (!w || w.req.op !== 'txn' || e.type !== 'PUT' || w.req.value !== e.kv.value) return undefined;
    return (w.kind === 'create' ? !e.prev : e.prev?.mod === w.req.expect) ? w : undefined;
  }

  /** The mirror's object, which must exist and (when given) be at `expectedRv`. */
  private current(resource: string, namespace: string, name: string, expectedRv: number | undefined): KObject {
    const cur = this.get(resource, namespace, name);
    if (!cur) throw new StorageError('NotFound', `${resource} ${namespace}/${name} not found`);
    if (expectedRv !== undefined && rvOf(cur) !== expectedRv) throw new StorageError('Conflict', `${resource} ${namespace}/${name} changed`);
    return cur;
  }

  /** The transaction of a write, guarded by the key's revision as the mirror has it (0: the key must not exist). */
  private prepare(kind: TxnKind, resource: string, input: KObject, expect: number, previous: KObject | undefined): PreparedWrite {
    if (this.closed) throw new StorageError('Closed', 'the store is closed');
    const { namespace, name } = ident(input);
    const key = this.layout.key(resource, namespace, name);
    const metadata = { ...input.metadata };
    delete metadata.resourceVersion;
    const stored = { ...input, metadata };
    let value: string | undefined;
    if (kind !== 'delete') {
      value = JSON.stringify(stored);
      checkObjectSize(value);
    }
    return { kind, resource, namespace, name, stored, previous, req: { op: 'txn', kind, key, value, expect } };
  }

  /** Applies etcd's answer to the write's transaction to the mirror (or throws its refusal). */
  private finish(w: PreparedWrite, reply: Reply): KObject {
    const { kind, resource, namespace, name, stored, previous } = w;
    const r = this.sync(reply);
    if (!r.succeeded) {
      // Bring the mirror up to what etcd holds, so the caller's retry starts from it.
      const cur = r.current;
      const obj = cur && this.decode(cur);
      if (obj && cur) this.mirror.apply(resource, namespace, name, obj, cur.mod);
      else if (!cur) this.mirror.apply(resource, namespace, name, undefined, r.revision);
      if (kind === 'create') throw new StorageError(cur ? 'AlreadyExists' : 'Conflict', `${resource} ${namespace}/${name} exists`);
      if (!cur) throw new StorageError('NotFound', `${resource} ${namespace}/${name} not found`);
      throw new StorageError('Conflict', `${resource} ${namespace}/${name} changed`);
    }
    const rv = r.revision;
    // When the watch brought this write before its answer, the mirror's object (the one watchers saw) is the answer.
    const seen = kind === 'delete' ? undefined : this.mirror.get(resource, namespace, name);
    const object: KObject = seen && rvOf(seen) === rv ? seen : { ...stored, metadata: { ...stored.metadata, resourceVersion: String(rv) } };
    // An answer may come after the watch brought a newer state of the key: the mirror keeps the newer one.
    this.mirror.apply(resource, namespace, name, kind === 'delete' ? undefined : object, rv);
    // Kept until the watch brings the change (not when it came first: then watchers were told already).
    if (rv > this.lastEvent) this.local.set(rv, { object, previous });
    this.localMax = Math.max(this.localMax, rv);
    this.rev = Math.max(this.rev, rv);
    return object;
  }

  private onNotice(n: Notice): void {
    if (this.closed) return;
    switch (n.kind) {
      case 'events':
        return this.onEvents(n.events);
      case 'progress':
        return this.advance(n.revision);
      case 'watch-lost':
        return this.relist(n.message);
      case 'log':
        return this.log(n.message);
    }
  }

  private onEvents(events: WatchEvent[]): void {
    const changes: Change[] = [];
    for (const e of events) {
      const p = this.layout.parse(e.kv.key);
      const rv = e.kv.mod;
      if (rv <= this.lastEvent) continue;
      this.lastEvent = rv;
      if (rv <= this.published && !this.warnedEarlyProgress) {
        // etcd before 3.4.25/3.5.8 may notify progress ahead of events it has yet to send: such events still count.
        this.warnedEarlyProgress = true;
        this.log(`etcd notified progress to ${this.published} before sending the change at ${rv} (an etcd bug fixed in 3.4.25 and 3.5.8)`);
      }
      const mine = this.local.get(rv);
      this.local.delete(rv);
      if (!p) continue;
      let object: KObject | undefined;
      let previous: KObject | undefined;
      const pending = mine ? undefined : this.inflightWrite(e);
      if (mine) ({ object, previous } = mine);
      else if (pending) {
        // The watch brought this process's write before etcd's answer to it: no need to parse what we sent.
        object = { ...pending.stored, metadata: { ...pending.stored.metadata, resourceVersion: String(rv) } };
        previous = pending.previous;
      } else {
        previous = e.prev && this.decode(e.prev);
        if (e.type === 'PUT') {
          const cur = this.mirror.get(p.resource, p.namespace, p.name);
          object = cur && rvOf(cur) === rv ? cur : this.decode(e.kv);
        } else if (previous) object = { ...previous, metadata: { ...previous.metadata, resourceVersion: String(rv) } };
      }
      if (!object) continue;
      this.mirror.apply(p.resource, p.namespace, p.name, e.type === 'PUT' ? object : undefined, rv);
      const type = e.type === 'DELETE' ? 'DELETED' : e.kv.create === rv ? 'ADDED' : 'MODIFIED';
      const change: Change = { type, resource: p.resource, rv, object, previous: type === 'ADDED' ? undefined : previous };
      this.window.push(change);
      changes.push(change);
    }
    if (this.lastEvent > this.published) this.published = this.lastEvent;
    this.rev = Math.max(this.rev, this.published);
    this.mirror.settle(this.published);
    if (changes.length) this.hub.publishBatch(changes);
    this.wake();
  }

  /** A progress notification: every change up to `revision` has been delivered. */
  private advance(revision: number): void {
    if (revision <= this.published) return;
    this.published = revision;
    this.rev = Math.max(this.rev, revision);
    this.mirror.settle(revision);
    this.wake();
  }

  private wake(): void {
    this.waiters.reached();
  }

  /**
   * The watch fell behind etcd's compaction: range everything again and tell watchers what differs (at the new
   * revision), then watch on from there. Replays from before it are Expired.
   */
  private relist(reason: string): void {
    this.log(`etcd watch lost (${reason}); relisting`);
    resync({ mirror: this.mirror, layout: this.layout, decode: (kv) => this.decode(kv), rangeAll: (visit) => this.rangeAll(0, visit) })
      .then((r) => this.relisted(r.revision, r.changes), (err: unknown) => {
        if (this.closed) return;
        this.log(`etcd relist failed (${err instanceof Error ? err.message : String(err)}); retrying`);
        setTimeout(() => this.relist(reason), 1000).unref();
      });
  }

  /** The relist's outcome: watchers are told what differs, and the watch goes on from its revision. */
  private relisted(revision: number, changes: Change[]): void {
    if (this.closed) return;
    this.local.clear();
    this.published = this.rev = Math.max(this.published, revision);
    this.lastEvent = Math.max(this.lastEvent, revision);
    this.window.reset(revision);
    this.channel.control({ op: 'watch', from: revision + 1 });
    if (changes.length) this.hub.publishBatch(changes);
    this.wake();
  }

  /** Resolves once this process's writes have come back on the watch (or, failing that, after the timeout). */
  committed(): Promise<void> {
    return this.waiters.until(this.localMax, 'waiting for the watch to deliver this process\'s writes').catch((err: unknown) => {
      this.log(err instanceof Error ? err.message : String(err));
    });
  }

  hasPending(): boolean {
    return this.localMax > this.published;
  }

  writesInFlight(): boolean {
    return this.inflight.size > 0;
  }

  consistentRead(one?: ObjectName): Promise<void> {
    // A GET of one object reads its key (as kube-apiserver's GET without a resourceVersion reads etcd): the state is
    // current for it once the watch has delivered the key's last change. A key that is gone waits for the newest revision.
    const read = one
      ? this.channel.call({ op: 'range', key: this.layout.key(one.resource, one.namespace, one.name), end: `${this.layout.key(one.resource, one.namespace, one.name)}\0`, limit: 1, keysOnly: true })
      : this.channel.call({ op: 'revision' });
    return read.then((r) => {
      if (!r.ok) throw new StorageError('Timeout', `etcd: ${r.error}`);
      const upTo = r.kvs?.[0]?.mod ?? r.revision;
      if (upTo <= this.published) return;
      // The watch brings the changes up to that revision. Should the newest revision belong to no change under the
      // prefix, only a progress notification tells: ask for one, but only after a while, since etcd before 3.4.25
      // may answer ahead of changes it has yet to send.
      const ask = setTimeout(() => this.channel.control({ op: 'progress' }), 1000);
      ask.unref();
      return this.waiters.until(upTo, 'waiting for the watch cache').finally(() => clearTimeout(ask));
    });
  }

  watch(resource: string, fromRv: number, listener: ChangeListener, trigger?: Trigger): StoreWatch {
    return watchFrom({
      hub: this.hub, published: this.published, compacted: () => this.compactedRevision(),
      read: (after, upTo, max) => this.window.read(resource, after, upTo, max),
    }, resource, fromRv, listener, trigger);
  }

  /**
   * Compacts etcd. With `retain`, up to that many revisions behind the newest published one; without, as
   * kube-apiserver's compactor does on each `--etcd-compaction-interval` tick: up to the revision the previous call
   * saw (so one interval of history stays), and never more than `retainChanges` behind. Returns the compacted revision.
   */
  compact(retain?: number): number {
    const mark = this.lastMark;
    this.lastMark = this.published;
    const target = retain !== undefined ? this.published - retain : Math.max(mark, this.published - this.retain);
    if (target <= this.compacted || this.closed) return this.compacted;
    // Watches from before the target are Expired from now on; etcd is asked in the background (a failure is logged,
    // and the next tick tries again from where it stands).
    const before = this.compacted;
    this.compacted = target;
    void this.channel.call({ op: 'compact', revision: target }).then((r) => {
      // Another process may have compacted further already ("required revision has been compacted"): fine.
      if (r.ok || r.compacted || this.closed) return;
      this.log(`etcd compaction to ${target} failed: ${r.error}`);
      if (this.compacted === target) this.compacted = before;
    });
    return target;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.hub.clear();
    this.waiters.releaseAll();
    this.channel.close();
  }
}

function ident(obj: KObject): { namespace: string; name: string } {
  return { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' };
}
