// The timers of a clock that keeps its own time (scaled or virtual): a binary heap ordered by due time, then by
// creation order, so timers due at the same instant always fire in the order they were set.
import { BinaryHeap } from './binary-heap.js';

export interface ClockTimer {
  at: number;
  readonly seq: number;
  readonly fn: () => void;
  /** Set for an interval: its period. */
  readonly every?: number;
  cancelled: boolean;
  /** Whether the timer sits in the heap (cancelled timers out of it need no sweeping). */
  queued: boolean;
}

/** The latest instant a clock reaches: far beyond any schedule, and exactly representable (no overflow). */
export const maxClockMs = 8.64e15;

/** A delay as a clock takes it: NaN and negatives are 0, past the end of time is "never" (Infinity). */
export function delayOf(ms: number): number {
  if (Number.isNaN(ms) || ms <= 0) return 0;
  return ms > maxClockMs ? Infinity : ms;
}

const before = (a: ClockTimer, b: ClockTimer) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

export class TimerHeap {
  private readonly heap = new BinaryHeap<ClockTimer>(before);
  private seq = 0;
  private cancelled = 0;

  /** Timers still waiting (cancelled ones not counted). */
  get size(): number {
    return this.heap.size - this.cancelled;
  }

  /** Adds a timer due at `at`; returns its cancel function. An infinite `at` is never due: nothing is kept. */
  add(at: number, fn: () => void, every?: number): () => void {
    if (!Number.isFinite(at)) return () => undefined;
    const t: ClockTimer = { at: Math.min(at, maxClockMs), seq: ++this.seq, fn, every, cancelled: false, queued: false };
    this.push(t);
    return () => {
      if (t.cancelled) return;
      t.cancelled = true;
      if (!t.queued) return;
      this.cancelled++;
      // Cancelled timers are dropped lazily; many of them (work queues re-arm often) are swept at once.
      if (this.cancelled > 64 && this.cancelled * 2 > this.heap.size) this.sweep();
    };
  }

  /** The earliest live timer, if any. */
  peek(): ClockTimer | undefined {
    while (this.heap.peek()?.cancelled) {
      this.pop();
      this.cancelled--;
    }
    return this.heap.peek();
  }

  /** When the earliest live timer is due. */
  nextAt(): number | undefined {
    return this.peek()?.at;
  }

  /**
   * Fires, in order, every timer due at or before `now` when the call began (timers they set, even for the same
   * instant, wait for the next call). `onEach` runs before each callback with the timer's due time.
   * Intervals come back one period later (never earlier than `now`, so a stalled clock does not burst).
   */
  fireDue(now: number, onEach?: (at: number) => void): number {
    const due: ClockTimer[] = [];
    for (let t = this.peek(); t && t.at <= now; t = this.peek()) due.push(this.pop() as ClockTimer);
    let fired = 0;
    for (const t of due) {
      if (t.cancelled) continue;
      onEach?.(t.at);
      if (t.every !== undefined) {
        const next = t.at + t.every;
        t.at = Math.min(maxClockMs, next > now ? next : now + t.every);
        this.push(t);
      }
      fired++;
      try {
        t.fn();
      } catch (err) {
        // As a throwing Node timer callback would: the error is the process's, not the clock's.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
    return fired;
  }

  clear(): void {
    for (const t of this.heap.values()) t.queued = false;
    this.heap.clear();
    this.cancelled = 0;
  }

  private sweep(): void {
    const live = this.heap.values().filter((t) => !t.cancelled);
    for (const t of this.heap.values()) t.queued = false;
    this.heap.clear();
    this.cancelled = 0;
    for (const t of live) this.push(t);
  }

  private push(t: ClockTimer): void {
    t.queued = true;
    this.heap.push(t);
  }

  private pop(): ClockTimer | undefined {
    const top = this.heap.pop();
    if (top) top.queued = false;
    return top;
  }
}
