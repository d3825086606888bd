// The recent changes of every resource, in revision order, bounded (as kube-apiserver's watch cache): watches from a
// revision inside the window replay from it; older ones are told to relist (Expired).
import type { Change } from '../watch-hub.js';

export class ChangeWindow {
  private items: Change[] = [];
  private start = 0;
  /** Every change with a revision above this one is in the window. */
  private horizon: number;

  constructor(private readonly capacity: number, startRevision: number) {
    this.horizon = startRevision;
  }

  /** The oldest revision a replay can start after. */
  oldest(): number {
    return this.horizon;
  }

  /** Forgets everything up to `revision` (a relist: what happened before it is unknown). */
  reset(revision: number): void {
    this.items = [];
    this.start = 0;
    this.horizon = revision;
  }

  push(change: Change): void {
    this.items.push(change);
    if (this.items.length - this.start > this.capacity) {
      this.horizon = this.items[this.start].rv;
      this.start++;
      // Drop the consumed head now and then rather than shifting on every push.
      if (this.start > 1024 && this.start * 2 > this.items.length) {
        this.items = this.items.slice(this.start);
        this.start = 0;
      }
    }
  }

  /** Up to `max` changes of `resource` with `after < rv <= upTo`, in order. */
  read(resource: string, after: number, upTo: number, max: number): Change[] {
    let lo = this.start;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.items[mid].rv <= after) lo = mid + 1;
      else hi = mid;
    }
    const out: Change[] = [];
    for (let i = lo; i < this.items.length && out.length < max; i++) {
      const c = this.items[i];
      if (c.rv > upTo) break;
      if (c.resource === resource) out.push(c);
    }
    return out;
  }
}
