// Events expire as kube-apiserver's do (`--event-ttl`, default 1h): etcd attaches a fresh lease to every write of
// an Event, so an Event goes `ttl` after its last write, a recurring one stays while it recurs, and the rest do not
// pile up. Watchers see the expired ones deleted; like a lease's expiry, the deletion is the storage's own (no
// admission, no finalizers, no grace period).
//
// Time is the cluster's clock, as for every other timestamp an Event carries: with a scaled or virtual clock an
// hour of simulated time is an hour for the TTL too (tests that jump hours ahead and read old events pass
// `--event-ttl 0s`).
//
// Cost: the change feed appends (namespace, name, revision, write time) to a queue in write order, so the queue is
// ordered by last-write time and a sweep pops expired entries from its head: no pass scans all events. An entry
// whose event was written again since (another entry for it comes later) or deleted is skipped when popped. A pass
// deletes at most `maxDeletesPerPass` and yields to the event loop before the next; the queue is compacted when
// stale entries outnumber live events.
import type { KObject } from '../machinery/types.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { Registry } from './registry.js';

export const defaultEventTtlMs = 60 * 60 * 1000;
const eventsKey = 'core/events';
/** At most this many deletions per pass (the rest go in the next one, after the event loop has turned). */
export const maxDeletesPerPass = 200;
/** Stored events queued per turn of the event loop at start-up. */
const seedChunk = 5_000;
/** Sweeps are coalesced to this granularity of clock time (at most; a short TTL gets a finer one). */
const maxCoalesceMs = 1_000;

/** An estimate of when a stored event was last written, from its own timestamps (events found at start-up). */
export function lastWriteMs(e: KObject): number {
  const ev = e as KObject & { lastTimestamp?: unknown; eventTime?: unknown; firstTimestamp?: unknown; series?: { lastObservedTime?: unknown } | null };
  let latest = Date.parse(e.metadata.creationTimestamp ?? '') || 0;
  const series = ev.series && typeof ev.series === 'object' ? ev.series.lastObservedTime : undefined;
  for (const t of [ev.lastTimestamp, ev.eventTime, ev.firstTimestamp, series]) {
    const ms = typeof t === 'string' ? Date.parse(t) : NaN;
    if (ms > latest) latest = ms;
  }
  return latest;
}

export interface EventTtlStats {
  /** Entries in the queue (live and stale). */
  queued: number;
  /** Events deleted so far. */
  expired: number;
}

/** The expiry of Events in one registry's store; `start` it, `stop` it at shutdown. */
export class EventTtl {
  // The queue, as parallel arrays from `head` (entries before it are consumed).
  // A stored Event queued at start-up has no key here until its entry comes up (keyOf reads it by revision).
  private ns: Array<string | undefined> = [];
  private names: Array<string | undefined> = [];
  private revs: number[] = [];
  private times: number[] = [];
  private head = 0;
  private expired = 0;
  /**
   * About how many Events are stored: those queued at start-up plus the ones added since, less those deleted (an
   * Event written in the moment between the start and the read of the stored ones counts twice). It decides when
   * stale entries are compacted; asking the store would load every Event key after a restart.
   */
  private live = 0;
  private seeded = false;
  private startedMs = 0;
  private cancelTimer: (() => void) | undefined;
  private timerAt = Infinity;
  private immediate: NodeJS.Immediate | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly coalesceMs: number;

  constructor(private readonly reg: Registry, private readonly clock: Clock, readonly ttlMs: number, private readonly log?: Logger) {
    this.coalesceMs = Math.min(maxCoalesceMs, Math.max(1, Math.floor(ttlMs / 20)));
  }

  start(): void {
    if (this.unsubscribe) return;
    this.startedMs = this.clock.nowMs();
    this.unsubscribe = this.reg.onChange(eventsKey, (c) => {
      if (c.type === 'DELETED') {
        this.live--;
        return;
      }
      if (c.type === 'ADDED') this.live++;
      const m = c.object.metadata;
      this.push(m.namespace ?? '', m.name ?? '', c.rv, this.clock.nowMs());
    });
    // The events already stored are queued in the background, off the start-up path; the sweeps start after.
    this.seed();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.timerAt = Infinity;
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
  }

  stats(): EventTtlStats {
    return { queued: this.revs.length - this.head, expired: this.expired };
  }

  private push(namespace: string, name: string, rv: number, ms: number): void {
    this.ns.push(namespace);
    this.names.push(name);
    this.revs.push(rv);
    this.times.push(ms);
    if (this.head === this.revs.length - 1) this.schedule(ms + this.ttlMs);
    else if ((this.revs.length & 1023) === 0) this.compact();
  }

  /** Wakes the sweep at `at` (clock time, coalesced), unless it is due earlier already. */
  private schedule(at: number): void {
    if (this.immediate || !this.seeded) return;
    const when = Math.ceil(at / this.coalesceMs) * this.coalesceMs;
    if (when >= this.timerAt) return;
    this.cancelTimer?.();
    this.timerAt = when;
    this.cancelTimer = this.clock.setTimeout(() => {
      this.cancelTimer = undefined;
      this.timerAt = Infinity;
      this.pass();
    }, Math.max(0, when - this.clock.nowMs()));
  }

  /** One bounded pass: deletes what expired (up to the bound) and schedules what comes next. */
  pass(): number {
    // Before the stored events are queued, nothing is due: the seeding schedules the first pass.
    if (!this.unsubscribe || !this.seeded) return 0;
    const now = this.clock.nowMs();
    const store = this.reg.store;
    let deleted = 0;
    while (this.head < this.revs.length && deleted < maxDeletesPerPass) {
      const i = this.head;
      if (this.times[i] + this.ttlMs > now) break;
      this.head++;
      const key = this.keyOf(i);
      const cur = key && store.get(eventsKey, key.namespace, key.name);
      // Written again since (a later entry stands for it) or gone already.
      if (!key || !cur || Number(cur.metadata.resourceVersion) !== this.revs[i]) continue;
      const failed = (err: unknown) => this.log?.debug({ err, event: `${key.namespace}/${key.name}` }, 'expiring an event failed');
      try {
        // A store that waits (etcd) is not waited for: the change comes back through the watch as any other.
        const gone = store.delete(eventsKey, key.namespace, key.name, this.revs[i]);
        if (gone instanceof Promise) gone.catch(failed);
        deleted++;
      } catch (err) {
        failed(err);
      }
    }
    this.expired += deleted;
    if (deleted) this.log?.debug({ expired: deleted }, 'events expired');
    this.compact();
    if (this.head < this.revs.length) {
      const next = this.times[this.head] + this.ttlMs;
      if (next <= now) this.immediate = setImmediate(() => {
        this.immediate = undefined;
        this.pass();
      });
      else this.schedule(next);
    }
    return deleted;
  }

  /**
   * Queues the events stored before the start, oldest first, ahead of those written since: a walk of `seedChunk`
   * events per turn of the event loop into buckets of `coalesceMs` (no sort, no stall however many there are).
   * An event written or deleted meanwhile is skipped when its entry comes up (its revision no longer matches).
   */
  private seed(): void {
    // A backend that knows when each object was written, on this clock (the server gives its store the cluster's),
    // gives the queue in write order without parsing an Event; else each Event's own timestamps are read.
    const store = this.reg.store;
    const sameClock = Math.abs(store.now() - this.clock.nowMs()) < 1000;
    if (sameClock && store.writeTimes) {
      this.immediate = setImmediate(() => {
        this.immediate = undefined;
        const known = this.unsubscribe ? store.writeTimes?.(eventsKey) : undefined;
        if (!known) return;
        // The arrays are this call's own: bucketed in place (no second array of 500,000 times). The keys are read by
        // revision when their entry comes up (most of them an hour later, or never: no string kept per Event meanwhile).
        const times = known.times;
        for (let i = 0; i < times.length; i++) times[i] = Math.floor(Math.min(times[i], this.startedMs) / this.coalesceMs) * this.coalesceMs;
        const unknown = new Array<string | undefined>(known.revs.length);
        this.merge(unknown, unknown.slice(), known.revs, times);
      });
      return;
    }
    const all = this.reg.store.list(eventsKey);
    const buckets = new Map<number, number[]>();
    let i = 0;
    const step = () => {
      this.immediate = undefined;
      if (!this.unsubscribe) return;
      for (const end = Math.min(all.length, i + seedChunk); i < end; i++) {
        const at = Math.floor(Math.min(lastWriteMs(all[i]), this.startedMs) / this.coalesceMs);
        let b = buckets.get(at);
        if (!b) buckets.set(at, (b = []));
        b.push(i);
      }
      if (i < all.length) {
        this.immediate = setImmediate(step);
        return;
      }
      const ns: string[] = [];
      const names: string[] = [];
      const revs: number[] = [];
      const times: number[] = [];
      for (const at of [...buckets.keys()].sort((a, b) => a - b)) {
        for (const k of buckets.get(at)!) {
          const m = all[k].metadata;
          ns.push(m.namespace ?? '');
          names.push(m.name ?? '');
          revs.push(Number(m.resourceVersion));
          times.push(at * this.coalesceMs);
        }
      }
      this.merge(ns, names, revs, times);
    };
    this.immediate = setImmediate(step);
  }

  /** Entry `i`'s key: its own, or (a stored Event queued at start-up) the key of the change at its revision. */
  private keyOf(i: number): { namespace: string; name: string } | undefined {
    const namespace = this.ns[i];
    const name = this.names[i];
    if (namespace !== undefined && name !== undefined) return { namespace, name };
    // Undefined when that revision was compacted away: the Event was written again since (a later entry stands for it).
    return this.reg.store.keyAt?.(eventsKey, this.revs[i]);
  }

  /** Puts the stored events (oldest first) ahead of those queued since the start, and starts the sweeps. */
  private merge(ns: Array<string | undefined>, names: Array<string | undefined>, revs: number[], times: number[]): void {
    this.live += revs.length;
    for (let j = this.head; j < this.revs.length; j++) {
      ns.push(this.ns[j]);
      names.push(this.names[j]);
      revs.push(this.revs[j]);
      times.push(this.times[j]);
    }
    Object.assign(this, { ns, names, revs, times, head: 0, seeded: true });
    if (this.revs.length) this.schedule(this.times[0] + this.ttlMs);
  }

  /**
   * Drops consumed entries once they are half the arrays, and stale ones (events written again or deleted) once
   * the queue holds more than twice the live events: both amortised over the pushes that made them.
   */
  private compact(): void {
    const len = this.revs.length;
    const live = Math.max(0, this.live);
    const staleHeavy = len - this.head > 2 * live + 1024;
    if (!staleHeavy && !(this.head > 1024 && this.head * 2 > len)) return;
    const store = this.reg.store;
    let w = 0;
    for (let i = this.head; i < len; i++) {
      let namespace = this.ns[i];
      let name = this.names[i];
      if (staleHeavy) {
        // An entry queued at start-up gets its key now (amortised like the rest: the queue is twice the live events).
        const key = this.keyOf(i);
        const cur = key && store.get(eventsKey, key.namespace, key.name);
        if (!key || !cur || Number(cur.metadata.resourceVersion) !== this.revs[i]) continue;
        ({ namespace, name } = key);
      }
      this.ns[w] = namespace;
      this.names[w] = name;
      this.revs[w] = this.revs[i];
      this.times[w] = this.times[i];
      w++;
    }
    this.ns.length = this.names.length = this.revs.length = this.times.length = w;
    this.head = 0;
  }
}

/** Starts expiring Events `ttlMs` after their last write; 0 keeps them. Returns the stop function. */
export function startEventTtl(reg: Registry, clock: Clock, ttlMs: number, log?: Logger): () => void {
  if (!(ttlMs > 0)) return () => undefined;
  const ttl = new EventTtl(reg, clock, ttlMs, log);
  ttl.start();
  return () => ttl.stop();
}
