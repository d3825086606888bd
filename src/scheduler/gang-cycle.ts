// Gang scheduling (KEP-4671, the 1.35 GangScheduling plugin), done as one attempt per group: when a pod of a gang
// is popped, every pending pod of its group (same Workload, pod group and replica key) is placed in turn, each
// place reserved on its node so the next pods see it. The group is then held at Permit: once the bound pods plus
// the reserved ones reach minCount, all reserved pods are bound at once; until then they wait, and if the timeout
// passes first every reservation is released and the waiting pods are rejected. A gang is never left partly bound.
// A reservation includes what the plugins' Reserve keeps (DynamicResources' claim allocations, in memory only): the
// allocations are written by PreBind once the whole gang fits, and a pre-bind failure of one member takes back those
// of all (every member retries after backoff), so a failed attempt leaves no allocated claim behind.
import type { Pod } from '../generated/k8s/core/v1.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { SchedulerCache } from './cache.js';
import type { GangTracker } from './gangs.js';
import type { NodeInfo } from './node-info.js';
import type { QueuedPod, SchedulingQueue } from './queue.js';
import type { CycleState } from './framework.js';
import type { Placement, SchedulingLoop } from './scheduler.js';

export const gangPlugin = 'GangScheduling';
const gangRejectors = new Set([gangPlugin]);

interface Reservation {
  e: QueuedPod;
  node: string;
  /** The attempt's state, for the plugins' PreBind and Unreserve. */
  s: CycleState;
}

interface WaitingGroup {
  reserved: Map<string, Reservation>;
  cancelTimer?: () => void;
  timeoutMs: number;
}

/** Go's time.Duration String for whole milliseconds (5m0s, 30s, 1.5s, 1h0m0s). */
export function goDuration(ms: number): string {
  if (ms <= 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const sec = (ms % 60_000) / 1000;
  const secs = `${Number.isInteger(sec) ? sec : sec.toFixed(3).replace(/0+$/, '')}s`;
  if (h) return `${h}h${m}m${secs}`;
  if (m) return `${m}m${secs}`;
  return secs;
}

export interface GangCycleDeps {
  queue: SchedulingQueue;
  cache: SchedulerCache;
  tracker: GangTracker;
  clock: Clock;
  log: Logger;
  /** Resources were released (reservations dropped): parked pods may fit now. */
  released: () => void;
}

export class GangCycle {
  private loop: SchedulingLoop | undefined;
  private readonly waiting = new Map<string, WaitingGroup>();
  /** Pod key -> its group, for pods with a reservation. */
  private readonly reservedGroup = new Map<string, string>();

  constructor(private readonly d: GangCycleDeps) {}

  attach(loop: SchedulingLoop): void {
    this.loop = loop;
  }

  /** Pods with a reserved place waiting at Permit, by group (for tests and debugging). */
  waitingCount(): number {
    return this.reservedGroup.size;
  }

  /** One attempt for the group of `first` (popped from the queue). */
  run(first: QueuedPod, pod: Pod, policy: { minCount: number; timeoutMs: number }): void {
    const loop = this.loop!;
    const { queue, cache, tracker } = this.d;
    const group = tracker.groupOf(first.key);
    if (!group) {
      // Not (or no longer) counted as a member: PreEnqueue decides again.
      queue.regate(first);
      return;
    }
    const members: Array<{ e: QueuedPod; pod: Pod }> = [{ e: first, pod }];
    for (const key of tracker.membersOf(group)) {
      if (key === first.key) continue;
      const e = queue.take(key);
      if (!e) continue;
      const cur = loop.current(e);
      if (cur) members.push({ e, pod: cur });
    }
    // Queue order (priority, then age): the same pods get places on every attempt of a group that does not fit.
    members.sort((a, b) => b.e.pi.priority - a.e.pi.priority || a.e.createdMs - b.e.createdMs || a.e.seq - b.e.seq);
    let w = this.waiting.get(group);
    const rejected: Array<{ e: QueuedPod; pod: Pod; p: Placement }> = [];
    for (const m of members) {
      const p = loop.place(m.e, m.pod);
      if (!p.host) {
        rejected.push({ ...m, p });
        continue;
      }
      if (!w) this.waiting.set(group, (w = { reserved: new Map(), timeoutMs: policy.timeoutMs }));
      this.reserve(group, w, m.e, p.host, p.s);
    }
    if (w && tracker.boundCount(group) + w.reserved.size >= policy.minCount) this.allow(group, policy.minCount);
    else if (w) this.wait(group, w);
    for (const r of rejected) loop.reject(r.e, r.pod, r.p);
  }

  private reserve(group: string, w: WaitingGroup, e: QueuedPod, host: NodeInfo, s: CycleState): void {
    const pi = { ...e.pi, assumed: true };
    this.d.cache.assume(pi, host.name);
    this.loop!.reserve(s, host);
    w.reserved.set(e.key, { e, node: host.name, s });
    this.reservedGroup.set(e.key, group);
  }

  /** Holds the reserved pods at Permit; the group's timer starts with its first wait. */
  private wait(group: string, w: WaitingGroup): void {
    for (const r of w.reserved.values()) if (r.e.where === 'inflight') this.d.queue.hold(r.e);
    if (!w.cancelTimer && w.reserved.size) {
      w.cancelTimer = this.d.clock.setTimeout(() => {
        try {
          this.timeout(group);
        } catch (err) {
          this.d.log.debug({ err, group }, 'gang Permit timeout handling failed');
        }
      }, w.timeoutMs);
    }
    this.d.log.debug({ group, reserved: w.reserved.size }, 'gang waiting at Permit');
  }

  /** Quorum: every reserved pod of the group is bound now (first checking each is still there and unbound). */
  private allow(group: string, minCount: number): void {
    const loop = this.loop!;
    const w = this.waiting.get(group)!;
    const ready: Array<{ r: Reservation; pod: Pod }> = [];
    for (const r of [...w.reserved.values()]) {
      if (r.e.where === 'waiting') this.d.queue.release(r.e);
      const pod = r.e.where === 'inflight' ? loop.current(r.e) : undefined;
      // The reserved node must still exist (a node deleted meanwhile keeps its NodeInfo while pods count on it).
      if (pod && this.d.cache.nodes.get(r.node)?.node) ready.push({ r, pod });
      else {
        this.unreserve(group, r.e.key);
        if (pod) this.d.queue.done(r.e, 'error');
      }
    }
    if (this.d.tracker.boundCount(group) + ready.length < minCount) {
      // A member left between the attempt and now: keep waiting with what is left.
      const left = this.waiting.get(group);
      if (left) this.wait(group, left);
      return;
    }
    const ok = this.preBindAll(group, ready);
    if (ok instanceof Promise) void ok.then((done) => done && this.bindAll(group, ready));
    else if (ok) this.bindAll(group, ready);
  }

  private bindAll(group: string, ready: Array<{ r: Reservation; pod: Pod }>): void {
    const loop = this.loop!;
    this.clear(group);
    for (const { r, pod } of ready) {
      const node = this.d.cache.nodes.get(r.node);
      this.d.cache.forget(r.e.key);
      if (!node || !loop.bind(r.e, pod, node)) this.d.log.debug({ pod: r.e.key }, 'gang member could not be bound');
    }
  }

  /**
   * Every member's PreBind (the claims' allocations written), or, when one fails, none: what the others wrote is taken
   * back, every reservation of the group goes and its pods retry after backoff.
   */
  private preBindAll(group: string, ready: Array<{ r: Reservation }>, from = 0): boolean | Promise<boolean> {
    try {
      for (let i = from; i < ready.length; i++) {
        const { r } = ready[i];
        const pre = this.loop!.preBind(r.s, this.d.cache.nodes.get(r.node)!);
        if (pre instanceof Promise) return pre.then(() => this.preBindAll(group, ready, i + 1), (err: unknown) => this.preBindFailed(group, ready, err));
      }
      return true;
    } catch (err) {
      return this.preBindFailed(group, ready, err);
    }
  }

  private preBindFailed(group: string, ready: Array<{ r: Reservation }>, err: unknown): false {
    this.d.log.debug({ err, group }, 'gang pre-bind failed; the group retries after backoff');
    // Unreserve takes back what each member's PreBind wrote.
    for (const { r } of ready) {
      this.unreserve(group, r.e.key);
      this.d.queue.done(r.e, 'error');
    }
    this.d.released();
    return false;
  }

  /** The Permit timeout: every reservation of the group is released and its pods are rejected. */
  private timeout(group: string): void {
    const w = this.waiting.get(group);
    if (!w) return;
    w.cancelTimer = undefined;
    const loop = this.loop!;
    const message = `rejected due to timeout after waiting ${goDuration(w.timeoutMs)} at plugin ${gangPlugin}`;
    const pods = [...w.reserved.values()];
    this.clear(group);
    for (const r of pods) {
      this.d.cache.forget(r.e.key);
      loop.unreserve(r.s);
    }
    for (const r of pods) {
      if (!this.d.queue.release(r.e)) continue;
      const pod = loop.current(r.e);
      if (pod) loop.rejectWith(r.e, pod, message, gangRejectors);
    }
    this.d.released();
  }

  /** A pod left (deleted, bound elsewhere, no longer pending): its reservation goes. */
  forget(key: string): void {
    const group = this.reservedGroup.get(key);
    if (group === undefined) return;
    this.unreserve(group, key);
    this.d.released();
  }

  private unreserve(group: string, key: string): void {
    this.reservedGroup.delete(key);
    this.d.cache.forget(key);
    const w = this.waiting.get(group);
    if (!w) return;
    const r = w.reserved.get(key);
    if (r) this.loop!.unreserve(r.s);
    w.reserved.delete(key);
    if (!w.reserved.size) {
      w.cancelTimer?.();
      this.waiting.delete(group);
    }
  }

  private clear(group: string): void {
    const w = this.waiting.get(group);
    if (!w) return;
    w.cancelTimer?.();
    for (const key of w.reserved.keys()) this.reservedGroup.delete(key);
    this.waiting.delete(group);
  }

  stop(): void {
    for (const w of this.waiting.values()) w.cancelTimer?.();
    this.waiting.clear();
    this.reservedGroup.clear();
  }
}
