// The scheduling queue: activeQ by priority then age, per-pod backoff, unschedulable pods waiting for a change.
import type { Pod } from '../generated/k8s/core/v1.js';
import type { Clock } from '../util/clock.js';
import { buildPodInfo, type PodInfo } from './pod-info.js';
import type { DecisionTrace } from './decisions.js';
import { BinaryHeap } from '../util/binary-heap.js';

export const initialBackoffMs = 1000;
export const maxBackoffMs = 10_000;
export const maxUnschedulableMs = 5 * 60_000;

/** `waiting`: placed and reserved, held at Permit until the rest of its gang has places (see gang-cycle.ts). */
export type Where = 'active' | 'backoff' | 'unschedulable' | 'gated' | 'inflight' | 'waiting';

/** A PreEnqueue check: undefined lets the pod into the active queue, a message keeps it gated. */
export type PreEnqueue = (pod: Pod, key: string) => string | undefined;

export interface QueuedPod {
  key: string;
  pod: Pod;
  pi: PodInfo;
  where: Where;
  attempts: number;
  lastFailureMs: number;
  /** When it entered the unschedulable set. */
  parkedMs: number;
  /** Plugins that rejected it on its last attempt. */
  rejectors: Set<string>;
  /** Why PreEnqueue holds it back (while `gated` by a plugin rather than by scheduling gates). */
  gatedBy?: string;
  createdMs: number;
  /** What filtering and scoring said on the attempt under way, until its outcome is recorded (decisions.ts). */
  trace?: DecisionTrace;
  seq: number;
  heapVersion: number;
}

export function isGated(pod: Pod): boolean {
  return (pod.spec?.schedulingGates?.length ?? 0) > 0;
}

export function backoffDuration(attempts: number): number {
  let d = initialBackoffMs;
  for (let i = 1; i < attempts; i++) {
    d *= 2;
    if (d >= maxBackoffMs) return maxBackoffMs;
  }
  return d;
}

/** What a pod update can change for scheduling (status writes, e.g. our own conditions, are not it). */
// resourceClaimStatuses: a pod waiting for its claims to be made goes on once they are (upstream's pod-update hint of DynamicResources).
const schedulingShape = (p: Pod) => JSON.stringify([p.spec, p.metadata?.labels, p.metadata?.annotations, p.status?.resourceClaimStatuses]);

export class SchedulingQueue {
  readonly entries = new Map<string, QueuedPod>();
  /** Active pods: higher priority first, then older pods, then arrival order (stale versions are skipped on pop). */
  private readonly heap = new BinaryHeap<{ e: QueuedPod; v: number }>((a, b) => less(a.e, b.e));
  private seq = 0;
  private backoffTimer: { at: number; cancel: () => void } | undefined;

  constructor(private readonly clock: Clock, private readonly onReady: () => void, private readonly preEnqueue?: PreEnqueue) {}

  /** Adds a new pending pod or takes in an update of a known one. */
  upsert(pod: Pod, key: string): QueuedPod {
    const e = this.entries.get(key);
    if (!e) {
      const created = pod.metadata?.creationTimestamp ? Date.parse(pod.metadata.creationTimestamp) : this.clock.nowMs();
      const n: QueuedPod = { key, pod, pi: buildPodInfo(pod), where: 'gated', attempts: 0, lastFailureMs: 0, parkedMs: 0, rejectors: new Set(), createdMs: created, trace: undefined, seq: this.seq++, heapVersion: 0 };
      this.entries.set(key, n);
      if (!isGated(pod)) this.activate(n);
      return n;
    }
    const changed = schedulingShape(e.pod) !== schedulingShape(pod);
    e.pod = pod;
    if (!changed) return e;
    e.pi = buildPodInfo(pod);
    if (isGated(pod)) {
      if (e.where !== 'inflight' && e.where !== 'waiting') e.where = 'gated';
    } else if (e.where === 'gated') this.activate(e);
    else if (e.where === 'unschedulable') this.requeue(e);
    return e;
  }

  delete(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    e.where = 'gated';
    e.heapVersion++;
  }

  get(key: string): QueuedPod | undefined {
    return this.entries.get(key);
  }

  activeCount(): number {
    return this.heap.size;
  }

  /** The next pod to attempt, taken out of the queue until `done`. */
  pop(): QueuedPod | undefined {
    while (this.heap.size) {
      const top = this.heap.pop()!;
      const e = top.e;
      if (top.v !== e.heapVersion || e.where !== 'active' || this.entries.get(e.key) !== e) continue;
      e.where = 'inflight';
      e.attempts++;
      return e;
    }
    return undefined;
  }

  /** After an attempt: parked until the cluster changes, retried after backoff (errors), or gone. */
  done(e: QueuedPod, outcome: 'unschedulable' | 'error' | 'bound', rejectors?: Set<string>): void {
    if (this.entries.get(e.key) !== e) return;
    if (outcome === 'bound') {
      this.delete(e.key);
      return;
    }
    e.lastFailureMs = this.clock.nowMs();
    if (e.where !== 'inflight') return;
    if (isGated(e.pod)) {
      e.where = 'gated';
      return;
    }
    if (outcome === 'error') {
      this.toBackoff(e);
      return;
    }
    e.rejectors = rejectors ?? new Set();
    e.where = 'unschedulable';
    e.parkedMs = this.clock.nowMs();
  }

  /**
   * Takes pods (by key) out of the queue for an attempt together with one already popped (a gang's members):
   * only pods waiting in the active, backoff or unschedulable sets are taken.
   */
  take(key: string): QueuedPod | undefined {
    const e = this.entries.get(key);
    if (!e || (e.where !== 'active' && e.where !== 'backoff' && e.where !== 'unschedulable')) return undefined;
    e.where = 'inflight';
    e.heapVersion++;
    e.attempts++;
    return e;
  }

  /** An attempted pod is held at Permit (it has a reserved place) until `release` or its binding. */
  hold(e: QueuedPod): void {
    if (this.entries.get(e.key) === e && e.where === 'inflight') e.where = 'waiting';
  }

  /** A pod held at Permit goes back to being attempted (to be bound or rejected with `done`); false if it left. */
  release(e: QueuedPod): boolean {
    if (this.entries.get(e.key) !== e || e.where !== 'waiting') return false;
    e.where = 'inflight';
    return true;
  }

  /** An attempted pod goes back behind PreEnqueue (its Workload went away while it was queued). */
  regate(e: QueuedPod): void {
    if (this.entries.get(e.key) !== e || e.where !== 'inflight') return;
    e.where = 'gated';
    e.lastFailureMs = this.clock.nowMs();
  }

  /** Runs PreEnqueue again for the given pods still held back by it (their Workload or group changed). */
  recheckGated(keys: Iterable<string>): void {
    for (const key of keys) {
      const e = this.entries.get(key);
      if (e && e.where === 'gated' && !isGated(e.pod)) this.activate(e);
    }
  }

  /** Moves parked pods that `helps` says may now fit back to active (or backoff while it lasts). */
  moveParked(helps: (e: QueuedPod) => boolean): void {
    for (const e of this.entries.values()) if (e.where === 'unschedulable' && helps(e)) this.requeue(e);
  }

  /** Parked pods get another attempt at the latest after maxUnschedulableMs. */
  flushLongParked(): void {
    const now = this.clock.nowMs();
    this.moveParked((e) => now - e.parkedMs >= maxUnschedulableMs);
  }

  private requeue(e: QueuedPod): void {
    if (e.attempts > 0 && e.lastFailureMs + backoffDuration(e.attempts) > this.clock.nowMs()) this.toBackoff(e);
    else this.activate(e);
  }

  private toBackoff(e: QueuedPod): void {
    e.where = 'backoff';
    const at = e.lastFailureMs + backoffDuration(e.attempts);
    if (!this.backoffTimer || at < this.backoffTimer.at) {
      this.backoffTimer?.cancel();
      const cancel = this.clock.setTimeout(() => this.flushBackoff(), Math.max(0, at - this.clock.nowMs()));
      this.backoffTimer = { at, cancel };
    }
  }

  private flushBackoff(): void {
    this.backoffTimer = undefined;
    const now = this.clock.nowMs();
    let next = Infinity;
    for (const e of this.entries.values()) {
      if (e.where !== 'backoff') continue;
      const at = e.lastFailureMs + backoffDuration(e.attempts);
      if (at <= now + 5) this.activate(e);
      else next = Math.min(next, at);
    }
    if (next !== Infinity) {
      const cancel = this.clock.setTimeout(() => this.flushBackoff(), Math.max(0, next - this.clock.nowMs()));
      this.backoffTimer = { at: next, cancel };
    }
  }

  private activate(e: QueuedPod): void {
    const why = this.preEnqueue?.(e.pod, e.key);
    e.gatedBy = why;
    if (why !== undefined) {
      e.where = 'gated';
      e.heapVersion++;
      return;
    }
    e.where = 'active';
    e.heapVersion++;
    this.heap.push({ e, v: e.heapVersion });
    this.onReady();
  }

  stop(): void {
    this.backoffTimer?.cancel();
    this.backoffTimer = undefined;
  }
}

function less(a: QueuedPod, b: QueuedPod): boolean {
  if (a.pi.priority !== b.pi.priority) return a.pi.priority > b.pi.priority;
  if (a.createdMs !== b.createdMs) return a.createdMs < b.createdMs;
  return a.seq < b.seq;
}
