// Interning off the write path: a hot object just written is interned a little later, in small slices of the event
// loop's spare time, and only if it is still the current object by then. Most written objects are replaced soon (a
// pod is bound, then its status written several times), so interning them at once was mostly wasted work; it was
// about 6% of a pod create's CPU. Interning only swaps equal strings in place, so nobody sharing the object sees it.
// The queue is bounded: once full, a write is interned at once, as before.

/** One object waiting to be interned, while `isCurrent()` holds. */
interface Waiting {
  obj: object;
  isCurrent: () => boolean;
}

/**
 * The most objects waiting at once. A waiting object replaced meanwhile is kept alive until its turn: the bound caps
 * that (a few MB of superseded objects at most; slices run every few ms, so the queue rarely holds more than a few hundred).
 */
export const maxWaiting = 5_000;
/** How long one slice of interning may run (ms) before it yields to requests again. */
const sliceMs = 2;
/** The pause between slices while objects are waiting (ms). */
const pauseMs = 5;

export class InternQueue {
  private waiting: Waiting[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly intern: (obj: object) => void, private readonly max = maxWaiting) {}

  /** Interns `obj` later if `isCurrent()` still holds then; at once when the queue is full. */
  add(obj: object, isCurrent: () => boolean): void {
    if (this.size() >= this.max) {
      this.intern(obj);
      return;
    }
    this.waiting.push({ obj, isCurrent });
    this.timer ??= setTimeout(() => this.slice(), pauseMs).unref();
  }

  size(): number {
    return this.waiting.length - this.head;
  }

  /** Interns every waiting object that is still current (tests; a store that wants everything interned now). */
  drainAll(): void {
    this.run(Infinity);
  }

  /** Forgets every waiting object (the store is closing). */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting = [];
    this.head = 0;
  }

  private slice(): void {
    this.timer = undefined;
    this.run(performance.now() + sliceMs);
    if (this.size() > 0) this.timer = setTimeout(() => this.slice(), pauseMs).unref();
  }

  private run(until: number): void {
    const w = this.waiting;
    let i = this.head;
    while (i < w.length) {
      const { obj, isCurrent } = w[i++];
      if (isCurrent()) this.intern(obj);
      if ((i & 31) === 0 && performance.now() >= until) break;
    }
    if (i >= w.length) {
      this.waiting = [];
      this.head = 0;
    } else if (i > 1024 && i * 2 > w.length) {
      this.waiting = w.slice(i);
      this.head = 0;
    } else this.head = i;
  }
}
