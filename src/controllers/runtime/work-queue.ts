// A work queue of keys: deduplicated, one reconcile per key at a time, retries with exponential backoff.
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';

export type Reconcile = (key: string) => void | number | Promise<void | number>;

export class WorkQueue {
  private readonly pending = new Set<string>();
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, () => void>();
  private scheduled = false;
  private stopped = false;

  constructor(private readonly name: string, private readonly reconcile: Reconcile, private readonly clock: Clock, private readonly log: Logger) {}

  add(key: string): void {
    if (this.stopped) return;
    if (this.running.has(key)) {
      this.dirty.add(key);
      return;
    }
    this.pending.add(key);
    this.schedule();
  }

  /** Adds the key after `ms` of clock time (a later call with a shorter delay wins). */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    this.timers.get(key)?.();
    this.timers.set(key, this.clock.setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.drain());
  }

  private async drain(): Promise<void> {
    this.scheduled = false;
    const keys = [...this.pending];
    this.pending.clear();
    for (const key of keys) {
      if (this.stopped) return;
      this.running.add(key);
      try {
        const requeue = await this.reconcile(key);
        this.failures.delete(key);
        if (typeof requeue === 'number') this.addAfter(key, requeue);
      } catch (err) {
        const n = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, n);
        const delay = Math.min(5 * 2 ** n, 60_000);
        this.log.debug({ err, key, controller: this.name, retryInMs: delay }, 'reconcile failed');
        this.addAfter(key, delay);
      } finally {
        this.running.delete(key);
        if (this.dirty.delete(key)) this.add(key);
      }
    }
  }

  stop(): void {
    this.stopped = true;
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  }
}
