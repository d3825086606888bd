// One priority level's seats and queues: fair queuing as upstream's queueset does it, smaller. A request takes
// `seats` of the level's concurrency limit while it executes. When none are free it joins the least loaded queue of
// the hand its flow is dealt (shuffle sharding), or is rejected when that queue is full. Queues take turns by
// virtual time: each has a virtual start for its next request (`nextDispatchR`, in seat-seconds) that grows with
// every dispatch by the seats times an estimated service time, corrected by the real one when the request ends,
// while the level's virtual clock `r` advances at the seats in demand shared among the active queues. The queue
// with the smallest start goes next, so a flow that sends more waits more, and a quiet flow is served at once.
import type { RequestAttributes } from '../../auth/types.js';
import { dealHand, flowHash } from './shuffle-shard.js';

/** Upstream's estimate of a request's service time before it ends (seconds). */
const estimatedServiceSeconds = 0.003;
/** How many flows' hands a level remembers before it deals them again. */
const maxRememberedHands = 4096;

export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

/** What the level is configured to do (from its PriorityLevelConfiguration and the server's limit). */
export interface QueueSetConfig {
  exempt: boolean;
  /** Seats executing requests may hold together. */
  limit: number;
  /** 0: requests beyond the limit are rejected at once (limitResponse Reject). */
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

/** One request as the level sees it, from arrival to its end. */
export interface Ticket {
  flowSchema: string;
  priorityLevel: string;
  distinguisher: string;
  seats: number;
  attrs: RequestAttributes;
  /** Wall-clock arrival (ms since the epoch, for the dumps) and monotonic arrival (ms). */
  arrivedAt: number;
  arrivedMono: number;
  state: 'new' | 'waiting' | 'executing' | 'suspended' | 'done';
  queue?: Queue;
  startedMono?: number;
  /** Called once: the request may go on (executing) or is refused. */
  decide(ok: boolean, reason?: RejectReason): void;
  cancelTimer?: () => void;
}

/** What the level reports to metrics. */
export interface QueueSetObserver {
  waiting(t: Ticket, delta: 1 | -1): void;
  executing(t: Ticket, delta: 1 | -1): void;
  seats(t: Ticket, delta: number): void;
  dispatched(t: Ticket, waitedSeconds: number): void;
  rejected(t: Ticket, reason: RejectReason, waitedSeconds: number): void;
}

export class Queue {
  readonly waiting: Ticket[] = [];
  executing = 0;
  seatsInUse = 0;
  nextDispatchR = 0;
  constructor(readonly index: number) {}
  waitingSeats(): number {
    let n = 0;
    for (const t of this.waiting) n += t.seats;
    return n;
  }
}

export class QueueSet {
  queues: Queue[] = [];
  seatsInUse = 0;
  executing = 0;
  waitingCount = 0;
  /** The level's virtual clock (seat-seconds) and the monotonic time it was last advanced at. */
  r = 0;
  private lastMono: number;

  /** `now`: the monotonic clock in ms (performance.now; a test steps its own). */
  constructor(public config: QueueSetConfig, private readonly observer: QueueSetObserver, private readonly now: () => number = () => performance.now()) {
    this.lastMono = now();
    this.configure(config);
  }

  /** Applies a new configuration; waiting requests are redealt to the new queues by their flows. */
  configure(config: QueueSetConfig): void {
    this.syncTime();
    const before = this.queues;
    this.config = config;
    if (before.length !== config.queues) {
      this.queues = Array.from({ length: config.queues }, (_, i) => new Queue(i));
      for (const q of this.queues) q.nextDispatchR = this.r;
      const moved = before.flatMap((q) => q.waiting.splice(0));
      for (const t of moved) {
        if (this.queues.length === 0) {
          this.waitingCount--;
          this.observer.waiting(t, -1);
          this.refuse(t, 'concurrency-limit');
        } else this.place(t);
      }
    }
    this.dispatchWaiting();
  }

  /** True when nothing executes or waits. */
  idle(): boolean {
    return this.executing === 0 && this.waitingCount === 0;
  }

  /** A new request: it executes at once, waits in a queue (until `decide` is called) or is refused. */
  arrive(t: Ticket, waitLimitMs: number): void {
    this.syncTime();
    const fits = this.waitingCount === 0 && this.seatsInUse + t.seats <= this.config.limit;
    if (this.config.exempt || (fits && this.queues.length === 0)) return this.start(t);
    if (this.queues.length === 0) return this.refuse(t, 'concurrency-limit');
    const q = this.choose(t);
    if (fits) {
      // Served at once, through its queue (which is charged for it as for any dispatch).
      if (q.waiting.length === 0 && q.executing === 0) q.nextDispatchR = this.r;
      t.queue = q;
      q.nextDispatchR += t.seats * estimatedServiceSeconds;
      return this.start(t);
    }
    if (q.waiting.length >= this.config.queueLengthLimit) return this.refuse(t, 'queue-full');
    this.enqueue(q, t);
    const timer = setTimeout(() => this.giveUp(t, 'time-out'), waitLimitMs);
    t.cancelTimer = () => clearTimeout(timer);
    // A request may also be dispatched at once here (all queues empty until now, seats free).
    this.dispatchWaiting();
  }

  /** The client left (or the wait limit passed) while the request waited. */
  giveUp(t: Ticket, reason: 'time-out' | 'cancelled'): void {
    if (t.state !== 'waiting' || !t.queue) return;
    const i = t.queue.waiting.indexOf(t);
    if (i >= 0) t.queue.waiting.splice(i, 1);
    this.waitingCount--;
    this.observer.waiting(t, -1);
    this.refuse(t, reason);
  }

  /** The request ended: its seats go to the next in line. */
  finish(t: Ticket): void {
    if (t.state === 'waiting') return this.giveUp(t, 'cancelled');
    const held = t.state === 'executing';
    if (t.state !== 'executing' && t.state !== 'suspended') return;
    this.syncTime();
    t.state = 'done';
    this.executing--;
    this.observer.executing(t, -1);
    const q = t.queue;
    if (q) {
      q.executing--;
      // The estimate charged at dispatch becomes the real service time.
      const now = this.now();
      const seconds = (now - (t.startedMono ?? now)) / 1000;
      q.nextDispatchR -= t.seats * (estimatedServiceSeconds - seconds);
    }
    if (held) this.releaseSeats(t);
    this.dispatchWaiting();
  }

  /** The request gives its seats back while it waits on something outside the process. */
  suspend(t: Ticket): void {
    if (t.state !== 'executing') return;
    t.state = 'suspended';
    this.releaseSeats(t);
    this.dispatchWaiting();
  }

  /** It goes on: it takes its seats again at once (beyond the limit if need be: its remaining work is short). */
  resume(t: Ticket): void {
    if (t.state !== 'suspended') return;
    t.state = 'executing';
    this.holdSeats(t);
  }

  private holdSeats(t: Ticket): void {
    this.seatsInUse += t.seats;
    if (t.queue) t.queue.seatsInUse += t.seats;
    this.observer.seats(t, t.seats);
  }

  private releaseSeats(t: Ticket): void {
    this.seatsInUse -= t.seats;
    if (t.queue) t.queue.seatsInUse -= t.seats;
    this.observer.seats(t, -t.seats);
  }

  private start(t: Ticket): void {
    t.state = 'executing';
    t.startedMono = this.now();
    this.executing++;
    if (t.queue) t.queue.executing++;
    this.holdSeats(t);
    this.observer.executing(t, 1);
    this.observer.dispatched(t, (t.startedMono - t.arrivedMono) / 1000);
    t.decide(true);
  }

  private refuse(t: Ticket, reason: RejectReason): void {
    t.state = 'done';
    t.cancelTimer?.();
    this.observer.rejected(t, reason, (this.now() - t.arrivedMono) / 1000);
    t.decide(false, reason);
  }

  /** The least loaded queue of the flow's hand (seats waiting and executing; the first of equals). */
  /** The hand each flow was dealt for the current queues and hand size (bounded: flows are as many as users). */
  private hands = new Map<string, Map<string, number[]>>();
  private handsQueues = -1;
  private handsSize = -1;
  private handsCount = 0;

  private handOf(t: Ticket): number[] {
    if (this.queues.length !== this.handsQueues || this.config.handSize !== this.handsSize || this.handsCount >= maxRememberedHands) {
      this.hands.clear();
      this.handsQueues = this.queues.length;
      this.handsSize = this.config.handSize;
      this.handsCount = 0;
    }
    let bySchema = this.hands.get(t.flowSchema);
    if (!bySchema) this.hands.set(t.flowSchema, (bySchema = new Map()));
    let hand = bySchema.get(t.distinguisher);
    if (!hand) {
      bySchema.set(t.distinguisher, (hand = dealHand(flowHash(t.flowSchema, t.distinguisher), this.queues.length, this.config.handSize)));
      this.handsCount++;
    }
    return hand;
  }

  private choose(t: Ticket): Queue {
    let best: Queue | undefined;
    let bestLoad = Infinity;
    for (const i of this.handOf(t)) {
      const q = this.queues[i];
      const load = q.waitingSeats() + q.seatsInUse;
      if (load < bestLoad) {
        best = q;
        bestLoad = load;
      }
    }
    return best ?? this.queues[0];
  }

  private place(t: Ticket): void {
    const q = this.choose(t);
    if (q.waiting.length === 0 && q.executing === 0) q.nextDispatchR = Math.max(q.nextDispatchR, this.r);
    t.queue = q;
    q.waiting.push(t);
  }

  private enqueue(q: Queue, t: Ticket): void {
    // An idle queue starts at the present: no credit is saved up while a flow is quiet.
    if (q.waiting.length === 0 && q.executing === 0) q.nextDispatchR = this.r;
    t.state = 'waiting';
    t.queue = q;
    q.waiting.push(t);
    this.waitingCount++;
    this.observer.waiting(t, 1);
  }

  /** Starts waiting requests while seats are free, the queue with the smallest virtual start first. */
  private dispatchWaiting(): void {
    while (this.waitingCount > 0) {
      let next: Queue | undefined;
      for (const q of this.queues) if (q.waiting.length && (!next || q.nextDispatchR < next.nextDispatchR)) next = q;
      if (!next) return;
      const t = next.waiting[0];
      // The head waits for enough seats (unless nothing executes: a request wider than the limit still runs alone).
      if (this.seatsInUse + t.seats > this.config.limit && this.seatsInUse > 0) return;
      next.waiting.shift();
      this.waitingCount--;
      this.observer.waiting(t, -1);
      t.cancelTimer?.();
      next.nextDispatchR += t.seats * estimatedServiceSeconds;
      this.start(t);
    }
  }

  /** Advances the virtual clock: the seats in demand (at most the limit) shared by the active queues. */
  private syncTime(): void {
    const now = this.now();
    const seconds = (now - this.lastMono) / 1000;
    this.lastMono = now;
    let active = 0;
    let demand = 0;
    for (const q of this.queues) {
      if (!q.waiting.length && !q.executing) continue;
      active++;
      demand += q.seatsInUse + q.waitingSeats();
    }
    if (active > 0) this.r += (seconds * Math.min(demand, this.config.limit)) / active;
  }
}
