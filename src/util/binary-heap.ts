// A binary min-heap over an ordering: `before(a, b)` is true when a must come out first. Used by the clocks' timer
// lists and the scheduler's active queue.
export class BinaryHeap<T> {
  private items: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  /** The next item out, without taking it. */
  peek(): T | undefined {
    return this.items[0];
  }

  /** Every item, in no particular order (do not modify the array). */
  values(): readonly T[] {
    return this.items;
  }

  clear(): void {
    this.items = [];
  }

  push(x: T): void {
    const h = this.items;
    h.push(x);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  pop(): T | undefined {
    const h = this.items;
    const top = h[0];
    const last = h.pop();
    if (h.length && last !== undefined) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.before(h[l], h[m])) m = l;
        if (r < h.length && this.before(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }
}
