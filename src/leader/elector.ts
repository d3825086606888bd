// Lease leader election with client-go's `tools/leaderelection` semantics. A candidate tries to take the Lease
// every retryPeriod (jittered); it may when the Lease is missing, released (no holder), its own, or unchanged for a
// whole leaseDuration as this candidate observed it (expiry is measured on the candidate's own clock from when it
// last saw the record change, so processes need no agreement on wall time). The leader renews every retryPeriod
// and stops leading when it has not renewed for renewDeadline (shorter than leaseDuration, so it stops before
// anybody else may take over) or when it sees another holder. A clean stop releases the Lease (holderIdentity "",
// leaseDurationSeconds 1): a waiting candidate takes it at once (candidates watch the Lease for that).
// Differences from client-go, on purpose: losing the lease does not end the process (it becomes a candidate
// again), and an `exclusive` store (SQLite: no other process can hold it) lets a new process take a lease left
// by a previous run at once instead of waiting for it to expire.
import type { Client } from '../client/client.js';
import { EventRecorder } from '../client/event-recorder.js';
import { ApiError } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { LeaseLock, microTime, recordKey, recordOf, type LeaderRecord } from './lease-lock.js';
import { realClock } from './real-clock.js';

/** client-go's defaults, as kube-controller-manager and kube-scheduler use them. */
export const defaultLeaseDurationMs = 15_000;
export const defaultRenewDeadlineMs = 10_000;
export const defaultRetryPeriodMs = 2_000;
/** wait.JitterUntil's factor for the candidate's retries (a retry waits retryPeriod * (1 + random * 1.2)). */
const jitterFactor = 1.2;

export interface LeaderCallbacks {
  /** Called (synchronously) when this candidate becomes the leader: start the work. */
  onStartedLeading(): void;
  /** Called (synchronously) when it stops leading: lost, or stopping. Stop the work before it returns. */
  onStoppedLeading(): void;
  /** Called when the observed holder changes (including to this candidate; '' when released). */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectionConfig extends LeaderCallbacks {
  /** The Lease's name (`kube-controller-manager`, `kube-scheduler`...). */
  name: string;
  /** Its namespace (default kube-system). */
  namespace?: string;
  /** This candidate (`<hostname>_<uuid>`: `leaderIdentity()`). */
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** The clock timing the election (default: real time, see real-clock.ts). */
  clock?: Clock;
  /** The store is this process's alone: a holder other than this candidate is a previous run, gone. */
  exclusive?: boolean;
  /** Release the Lease on stop() (default true). */
  releaseOnStop?: boolean;
  /** The event source component of the LeaderElection events (default: the Lease's name). */
  component?: string;
  log?: Logger;
  /** Random source for the jitter (tests pin it). */
  random?: () => number;
}

export type ElectorState = 'stopped' | 'candidate' | 'leading';

export class LeaderElector {
  readonly identity: string;
  private readonly lock: LeaseLock;
  private readonly clock: Clock;
  private readonly durationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryMs: number;
  private readonly events: EventRecorder;
  private current: ElectorState = 'stopped';
  private observed: LeaderRecord | undefined;
  private observedKey = '';
  private observedAt = 0;
  private lastRenewAt = 0;
  private lease: KObject | undefined;
  private cancelTimer: (() => void) | undefined;
  private stopWatch: (() => void) | undefined;
  private reportedLeader: string | undefined;

  constructor(client: Client, private readonly config: LeaderElectionConfig) {
    this.identity = config.identity;
    this.lock = new LeaseLock(client, config.namespace ?? 'kube-system', config.name);
    this.clock = config.clock ?? realClock;
    this.durationMs = config.leaseDurationMs ?? defaultLeaseDurationMs;
    this.renewDeadlineMs = config.renewDeadlineMs ?? defaultRenewDeadlineMs;
    this.retryMs = config.retryPeriodMs ?? defaultRetryPeriodMs;
    if (!(this.durationMs > this.renewDeadlineMs)) throw new Error('leaseDuration must be greater than renewDeadline');
    if (!(this.renewDeadlineMs > jitterFactor * this.retryMs)) throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
    if (!(this.retryMs >= 1)) throw new Error('retryPeriod must be at least 1 ms');
    if (!config.identity) throw new Error('leader election requires an identity');
    this.events = new EventRecorder(client, { component: config.component ?? config.name });
  }

  get name(): string {
    return this.lock.name;
  }

  state(): ElectorState {
    return this.current;
  }

  isLeader(): boolean {
    return this.current === 'leading';
  }

  /** The holder this candidate last observed ('' when released or not seen yet). */
  leader(): string {
    return this.observed?.holderIdentity ?? '';
  }

  /**
   * Becomes a candidate: tries once at once (synchronously: a free or exclusive Lease is led before this returns,
   * its onStartedLeading called), then keeps trying every retryPeriod.
   */
  start(): void {
    if (this.current !== 'stopped') return;
    this.current = 'candidate';
    this.stopWatch = this.lock.watch((lease, deleted) => this.onLeaseChange(lease, deleted));
    this.tryToLead();
  }

  /** Stops leading (onStoppedLeading first), releases the Lease when held, and stops campaigning. */
  stop(): void {
    if (this.current === 'stopped') return;
    const wasLeading = this.current === 'leading';
    this.current = 'stopped';
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.stopWatch?.();
    this.stopWatch = undefined;
    if (!wasLeading) return;
    this.callStopped();
    if (this.config.releaseOnStop ?? true) this.release();
  }

  // ---- the candidate and leader loops ----

  private tryToLead(): void {
    if (this.current !== 'candidate') return;
    whenSettled(this.tryAcquireOrRenew(), (ok) => this.afterTry(ok));
  }

  private afterTry(ok: boolean): void {
    if (this.current !== 'candidate') return;
    if (ok) {
      this.current = 'leading';
      this.lastRenewAt = this.clock.nowMs();
      this.config.log?.info({ lease: this.name, identity: this.identity }, 'successfully acquired lease');
      this.record('became leader');
      try {
        this.config.onStartedLeading();
      } catch (err) {
        this.config.log?.error({ err, lease: this.name }, 'starting the leader work failed');
      }
      // The callback may have stopped the elector.
      if (this.current === 'leading') this.schedule(() => this.renew(), this.retryMs);
      return;
    }
    this.schedule(() => this.tryToLead(), this.retryMs * (1 + (this.config.random ?? Math.random)() * jitterFactor));
  }

  private renew(): void {
    if (this.current !== 'leading') return;
    const now = this.clock.nowMs();
    // A late timer (a blocked event loop) must not renew a lease others may already consider expired.
    if (now - this.lastRenewAt > this.renewDeadlineMs) return this.lose('failed to renew lease in time');
    whenSettled(this.tryAcquireOrRenew(), (ok) => this.afterRenew(ok, now));
  }

  private afterRenew(ok: boolean, now: number): void {
    if (this.current !== 'leading') return;
    if (ok) {
      this.lastRenewAt = now;
    } else if (this.observed && this.observed.holderIdentity !== this.identity) {
      return this.lose(`lease taken by ${this.observed.holderIdentity || '(released)'}`);
    }
    const left = this.renewDeadlineMs - (this.clock.nowMs() - this.lastRenewAt);
    if (left <= 0) return this.lose('failed to renew lease in time');
    this.schedule(() => this.renew(), Math.min(this.retryMs, left));
  }

  private lose(reason: string): void {
    this.config.log?.warn({ lease: this.name, identity: this.identity, reason }, 'leader election lost');
    this.current = 'candidate';
    this.callStopped();
    if (this.current === 'candidate') this.schedule(() => this.tryToLead(), this.retryMs);
  }

  private callStopped(): void {
    this.record('stopped leading');
    try {
      this.config.onStoppedLeading();
    } catch (err) {
      this.config.log?.error({ err, lease: this.name }, 'stopping the leader work failed');
    }
  }

  private schedule(fn: () => void, ms: number): void {
    this.cancelTimer?.();
    this.cancelTimer = this.clock.setTimeout(() => {
      this.cancelTimer = undefined;
      fn();
    }, ms);
  }

  /**
   * A candidate waiting on a Lease that was just released or deleted tries at once. Any other change is observed
   * as it arrives: the lease duration then counts from the holder's last renewal as this process saw it happen, not
   * from the candidate's next try (up to retryPeriod * 2.2 later), so a dead leader is replaced that much sooner.
   * Never earlier than it may be: the holder stops leading renewDeadline after its last renewal, before the
   * leaseDuration counted from any later moment.
   */
  private onLeaseChange(lease: KObject, deleted: boolean): void {
    if (this.current !== 'candidate') return;
    const record = deleted ? undefined : recordOf(lease);
    if (record && record.holderIdentity !== '') {
      this.observe(record, this.clock.nowMs());
      return;
    }
    this.schedule(() => this.tryToLead(), 0);
  }

  // ---- one attempt (client-go's tryAcquireOrRenew) ----

  /** One attempt; a Promise only when a write waited for admission webhooks. */
  private tryAcquireOrRenew(): boolean | Promise<boolean> {
    const now = this.clock.nowMs();
    const fresh: LeaderRecord = {
      holderIdentity: this.identity, leaseDurationSeconds: Math.max(1, Math.round(this.durationMs / 1000)),
      acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0,
    };
    let current: KObject | undefined;
    try {
      current = newer(this.lock.get(), this.lease);
      if (!current) {
        return this.lock.create(fresh).then((lease) => {
          this.lease = lease;
          this.observe(fresh, now);
          return true;
        }, (err: unknown) => this.failed(err, 'error initially creating leader election record'));
      }
    } catch (err) {
      return this.failed(err, 'error initially creating leader election record');
    }
    const old = recordOf(current);
    this.observe(old, now);
    const mine = old.holderIdentity === this.identity;
    const durationMs = (old.leaseDurationSeconds || fresh.leaseDurationSeconds) * 1000;
    if (old.holderIdentity && !mine) {
      // A leader that finds another holder stops (renew() sees it); on an exclusive store a candidate need not wait.
      if (this.current === 'leading') return false;
      if (!this.config.exclusive && this.observedAt + durationMs > now) return false;
    }
    // Renewing keeps the acquire time and the transition count; taking the Lease over counts one transition more.
    const next: LeaderRecord = mine
      ? { ...fresh, acquireTime: old.acquireTime ?? fresh.acquireTime, leaseTransitions: old.leaseTransitions }
      : { ...fresh, leaseTransitions: old.leaseTransitions + 1 };
    const wrote = (lease: KObject): true => {
      this.lease = lease;
      this.observe(next, now);
      return true;
    };
    let written: KObject | Promise<KObject>;
    try {
      written = this.lock.update(current, next);
    } catch (err) {
      return this.failed(err, 'failed to update lock');
    }
    return written instanceof Promise ? written.then(wrote, (err: unknown) => this.failed(err, 'failed to update lock')) : wrote(written);
  }

  private observe(record: LeaderRecord, now: number): void {
    const key = recordKey(record);
    if (key === this.observedKey) return;
    this.observedKey = key;
    this.observedAt = now;
    this.observed = record;
    if (record.holderIdentity !== this.reportedLeader) {
      this.reportedLeader = record.holderIdentity;
      try {
        this.config.onNewLeader?.(record.holderIdentity);
      } catch (err) {
        this.config.log?.warn({ err, lease: this.name }, 'the new leader callback failed');
      }
    }
  }

  private failed(err: unknown, what: string): false {
    // Conflicts and lost races are the normal course of an election; anything else is logged too, never thrown.
    if (err instanceof ApiError && (err.code === 409 || err.code === 404)) this.config.log?.debug({ err, lease: this.name }, what);
    else this.config.log?.warn({ err, lease: this.name }, what);
    return false;
  }

  /** Gives the Lease up (client-go's release): no holder, a 1 s duration, transitions kept. */
  private release(): void {
    try {
      const current = this.lock.get();
      if (!current || recordOf(current).holderIdentity !== this.identity) return;
      const now = this.clock.nowMs();
      const old = recordOf(current);
      const released: LeaderRecord = { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: old.leaseTransitions };
      const wrote = (lease: KObject) => {
        this.lease = lease;
        this.observe(released, now);
      };
      const written = this.lock.update(current, released);
      if (written instanceof Promise) written.then(wrote, (err: unknown) => this.failed(err, 'failed to release lock'));
      else wrote(written);
    } catch (err) {
      this.failed(err, 'failed to release lock');
    }
  }

  /** The LeaderElection event on the Lease (`<identity> became leader`), as client-go's LeaseLock records it. */
  private record(what: string): void {
    const lease = this.lease ?? this.lock.get();
    if (lease) this.events.event(lease, 'Normal', 'LeaderElection', `${this.identity} ${what}`);
  }
}

/**
 * The cached Lease, or the one this elector wrote last when the cache has not caught up with it yet (a store shared
 * with other processes updates its cache from a watch, after the write returns): renewing from a stale copy would
 * only meet a conflict.
 */
function newer(cached: KObject | undefined, written: KObject | undefined): KObject | undefined {
  if (!cached || !written || cached.metadata.uid !== written.metadata.uid) return cached;
  const a = Number(cached.metadata.resourceVersion);
  const b = Number(written.metadata.resourceVersion);
  return Number.isSafeInteger(a) && Number.isSafeInteger(b) && b > a ? written : cached;
}

/** Calls `then` with the value now, or once the promise settles. */
function whenSettled<T>(value: T | Promise<T>, then: (v: T) => void): void {
  if (value instanceof Promise) void value.then(then);
  else then(value);
}
