// Operations on decoded JSON values (plain objects, arrays, scalars) that loop instead of recursing, so a
// document nested as deeply as a decoder accepts (10,000 levels) never reaches the end of the call stack.
// Copies are made of own properties only and keep `__proto__`-like keys as ordinary keys.
import { isRecord } from '../machinery/types.js';
import { hasOwn, setOwn, type Dict } from './own.js';

/**
 * A deep copy of a JSON value. With `dropNullMembers`, object members whose value is null are left out at
 * every level (array elements are kept), as a merge patch materializes a value the original lacks.
 */
export function cloneJson<T>(value: T, dropNullMembers = false): T {
  if (typeof value !== 'object' || value === null) return value;
  const root: unknown = Array.isArray(value) ? new Array(value.length) : {};
  const work: [unknown, unknown][] = [[value, root]];
  while (work.length) {
    const [src, dst] = work.pop()!;
    if (Array.isArray(src)) {
      const out = dst as unknown[];
      for (let i = 0; i < src.length; i++) out[i] = copyChild(src[i], work);
    } else {
      for (const [k, v] of Object.entries(src as Dict)) {
        if (dropNullMembers && v === null) continue;
        setOwn(dst as Dict, k, copyChild(v, work));
      }
    }
  }
  return root as T;

  function copyChild(v: unknown, work: [unknown, unknown][]): unknown {
    if (typeof v !== 'object' || v === null) return v;
    const c: unknown = Array.isArray(v) ? new Array(v.length) : {};
    work.push([v, c]);
    return c;
  }
}

/** Structural equality of JSON values: object key order is irrelevant, members holding undefined are absent. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const work: [unknown, unknown][] = [[a, b]];
  while (work.length) {
    const [x, y] = work.pop()!;
    if (x === y) continue;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) work.push([x[i], y[i]]);
      continue;
    }
    if (!isRecord(x) || !isRecord(y)) return false;
    const kx = Object.keys(x).filter((k) => x[k] !== undefined);
    const ky = Object.keys(y).filter((k) => y[k] !== undefined);
    if (kx.length !== ky.length) return false;
    for (const k of kx) {
      if (!hasOwn(y, k)) return false;
      work.push([x[k], y[k]]);
    }
  }
  return true;
}

/** The nesting depth of a JSON value, counting up to `limit + 1` at most. */
export function jsonDepth(value: unknown, limit = Number.MAX_SAFE_INTEGER): number {
  // Up to a modest limit a recursive walk (one frame a level) is faster; past it an explicit stack.
  if (limit <= maxRecursiveDepth) return depthOf(value, 0, limit);
  if (typeof value !== 'object' || value === null) return 0;
  let max = 0;
  const work: [unknown, number][] = [[value, 1]];
  while (work.length) {
    const [v, depth] = work.pop()!;
    if (depth > max) max = depth;
    if (max > limit) return max;
    const children = Array.isArray(v) ? v : Object.values(v as Dict);
    for (const c of children) if (typeof c === 'object' && c !== null) work.push([c, depth + 1]);
  }
  return max;
}

/** The largest limit `depthOf` is used for: it recurses, one frame a level, well within Node's stack. */
const maxRecursiveDepth = 2_000;

/** The depth below `value` (at `depth`), or a number past `limit` as soon as the walk gets there. */
function depthOf(value: unknown, depth: number, limit: number): number {
  if (typeof value !== 'object' || value === null) return depth;
  const here = depth + 1;
  if (here > limit) return here;
  let max = here;
  if (Array.isArray(value)) {
    for (const c of value) {
      const d = depthOf(c, here, limit);
      if (d > max && (max = d) > limit) return max;
    }
  } else {
    for (const k in value) {
      if (!hasOwn(value, k)) continue;
      const d = depthOf((value as Dict)[k], here, limit);
      if (d > max && (max = d) > limit) return max;
    }
  }
  return max;
}
