// A resource's keys in sorted order, kept up to date lazily: a few keys added or deleted since the list was last
// asked for are spliced into a copy (binary search, one memmove each), more are sorted alone and merged in, so a list
// or page between writes never sorts every key again. A list once returned is never changed (lists and pages hold it
// as their snapshot).
import { lowerBound } from './key-order.js';

export class SortedKeys {
  private sorted: string[] | undefined;
  /** Keys added and deleted since `sorted` was built (a key may be in both, or twice), until there are too many. */
  private added: string[] = [];
  private deleted: string[] = [];
  private rebuild = true;

  /** `has` tells whether a key is live now; `all` gives every live key (for a full rebuild). */
  constructor(
    private readonly has: (key: string) => boolean,
    private readonly all: () => Iterable<string>,
    private readonly size: () => number,
  ) {}

  noteAdded(key: string): void {
    this.note(this.added, key);
  }
  noteDeleted(key: string): void {
    this.note(this.deleted, key);
  }

  private note(list: string[], key: string): void {
    if (this.rebuild) return;
    if (this.added.length + this.deleted.length >= Math.max(64, this.size() / 4)) {
      this.rebuild = true;
      this.added = [];
      this.deleted = [];
    } else list.push(key);
  }

  keys(): string[] {
    if (this.rebuild || !this.sorted) this.sorted = [...this.all()].sort();
    else if (this.added.length + this.deleted.length <= 256) this.sorted = this.spliced(this.sorted);
    else if (this.added.length || this.deleted.length) this.sorted = this.merged(this.sorted);
    this.added = [];
    this.deleted = [];
    this.rebuild = false;
    return this.sorted;
  }

  private spliced(old: string[]): string[] {
    if (!this.added.length && !this.deleted.length) return old;
    const out = old.slice();
    for (const k of this.deleted) {
      const i = lowerBound(out, k);
      if (out[i] === k && !this.has(k)) out.splice(i, 1);
    }
    for (const k of this.added) {
      const i = lowerBound(out, k);
      if (out[i] !== k && this.has(k)) out.splice(i, 0, k);
    }
    return out;
  }

  private merged(old: string[]): string[] {
    const add = this.added.sort();
    const check = this.deleted.length > 0;
    const out: string[] = [];
    let i = 0;
    let j = 0;
    let last: string | undefined;
    while (i < old.length || j < add.length) {
      const fromOld = j >= add.length || (i < old.length && old[i] <= add[j]);
      const k = fromOld ? old[i++] : add[j++];
      // Old keys are all live unless some were deleted; an added key may have been deleted again, or added twice.
      if (k !== last && ((fromOld && !check) || this.has(k))) out.push((last = k));
    }
    return out;
  }
}
