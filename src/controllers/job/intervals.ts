// Sets of completion indexes kept as sorted, non-touching closed intervals, rendered the way Job status fields
// completedIndexes and failedIndexes are ("0-2,4,6,7": a pair of neighbours is written with a comma).
export interface Interval {
  first: number;
  last: number;
}

export type Intervals = Interval[];

/** Parses "1,3-5,7"; parts at or beyond `completions` are dropped (a range is clipped), garbage parts are skipped. */
export function parseIntervals(text: string | undefined | null, completions: number): Intervals {
  const out: Intervals = [];
  if (!text) return out;
  for (const part of text.split(',')) {
    const [a, b] = part.split('-');
    const first = Number.parseInt(a, 10);
    if (!/^\d+$/.test(a ?? '') || Number.isNaN(first)) continue;
    if (first >= completions) break;
    let last = first;
    if (b !== undefined) {
      if (!/^\d+$/.test(b)) continue;
      last = Math.min(Number.parseInt(b, 10), completions - 1);
    }
    const prev = out[out.length - 1];
    if (prev && prev.last === first - 1) prev.last = last;
    else out.push({ first, last });
  }
  return out;
}

/** Merges two interval lists into one sorted list, joining overlapping and adjacent intervals. */
export function mergeIntervals(a: Intervals, b: Intervals): Intervals {
  const all = [...a, ...b].sort((x, y) => x.first - y.first);
  const out: Intervals = [];
  for (const iv of all) {
    const prev = out[out.length - 1];
    if (prev && iv.first <= prev.last + 1) prev.last = Math.max(prev.last, iv.last);
    else out.push({ ...iv });
  }
  return out;
}

/** The intervals plus the given indexes. */
export function withIndexes(a: Intervals, indexes: Iterable<number>): Intervals {
  return mergeIntervals(a, [...indexes].map((i) => ({ first: i, last: i })));
}

export function totalOf(a: Intervals): number {
  return a.reduce((n, iv) => n + iv.last - iv.first + 1, 0);
}

export function hasIndex(a: Intervals | undefined, ix: number): boolean {
  return !!a?.some((iv) => iv.first <= ix && ix <= iv.last);
}

export function formatIntervals(a: Intervals): string {
  return a.map((iv) => {
    if (iv.last === iv.first) return `${iv.first}`;
    return iv.last === iv.first + 1 ? `${iv.first},${iv.last}` : `${iv.first}-${iv.last}`;
  }).join(',');
}

/** How many of the rule's indexes the succeeded set holds. */
export function overlapCount(rule: Intervals, have: Intervals): number {
  let n = 0;
  for (const r of rule) {
    for (const h of have) {
      const o = Math.min(r.last, h.last) - Math.max(r.first, h.first) + 1;
      if (o > 0) n += o;
    }
  }
  return n;
}
