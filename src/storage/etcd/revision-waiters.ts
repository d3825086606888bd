// Promises waiting for a revision to be reached (the etcd store's published revision), each with a deadline.
import { StorageError } from '../errors.js';

/** Bound on waiters (each request waiting for the watch holds one). */
const maxWaiters = 100_000;

export class RevisionWaiters {
  private waiters: Array<{ rv: number; resolve: () => void }> = [];

  constructor(private readonly current: () => number, private readonly timeoutMs: number) {}

  /** Resolves once `current()` reaches `rv` (checked on `reached`); rejects with Timeout after the deadline. */
  until(rv: number, what: string): Promise<void> {
    if (rv <= this.current()) return Promise.resolve();
    if (this.waiters.length >= maxWaiters) return Promise.reject(new StorageError('Timeout', `too many requests waiting for the watch cache (${what})`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new StorageError('Timeout', `Timeout: Too large resource version: ${rv}, current: ${this.current()} (${what})`));
      }, this.timeoutMs);
      timer.unref();
      const waiter = { rv, resolve: () => (clearTimeout(timer), resolve()) };
      this.waiters.push(waiter);
    });
  }

  /** Resolves the waiters `current()` has reached. */
  reached(): void {
    if (!this.waiters.length) return;
    const now = this.current();
    const ready = this.waiters.filter((w) => w.rv <= now);
    if (!ready.length) return;
    this.waiters = this.waiters.filter((w) => w.rv > now);
    for (const w of ready) w.resolve();
  }

  /** Resolves every waiter (closing). */
  releaseAll(): void {
    const all = this.waiters;
    this.waiters = [];
    for (const w of all) w.resolve();
  }
}
