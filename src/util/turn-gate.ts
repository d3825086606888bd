// Work that would hold the event loop in long runs, handed out in slices. A job waits for the loop's next check phase,
// after the I/O read in this turn has been handled; each check phase runs waiting jobs, in order, for at most
// `sliceMs`, and the rest wait for the next turn, so the loop polls for I/O between slices. A job is not interrupted:
// the slice bounds when the next one starts. The queue holds what its callers let in (e.g. requests in flight).
import { performance } from 'node:perf_hooks';

export class TurnGate {
  private queue: Array<() => void> = [];
  private head = 0;
  private scheduled = false;

  constructor(private readonly sliceMs: number) {}

  /** `job()` in a slice of a later turn: its result, or its error (thrown or rejected). */
  run<T>(job: () => T): Promise<Awaited<T>> {
    return new Promise<Awaited<T>>((resolve, reject) => {
      this.queue.push(() => {
        try {
          Promise.resolve(job()).then(resolve, reject);
        } catch (e) {
          reject(e);
        }
      });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.slice);
      }
    });
  }

  /** Jobs waiting for a slice. */
  waiting(): number {
    return this.queue.length - this.head;
  }

  private readonly slice = (): void => {
    const start = performance.now();
    do this.queue[this.head++]();
    while (this.head < this.queue.length && performance.now() - start < this.sliceMs);
    if (this.head < this.queue.length) {
      // Drop the run part now and then rather than shifting on every job.
      if (this.head > 1024) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      setImmediate(this.slice);
    } else {
      this.queue = [];
      this.head = 0;
      this.scheduled = false;
    }
  };
}
