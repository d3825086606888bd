// Operations on decoded JSON values (plain objects, arrays, scalars). A document nested as deeply as a decoder accepts
// (10,000 levels) never reaches the end of the call stack: walks loop, or recurse only down to a bounded depth.
// Copies are made of own properties only and keep `__proto__`-like keys as ordinary keys.
import { hasOwn, setOwn, type Dict } from './own.js';

/**
 * A deep copy of a JSON value of any depth (a client document: no frame per level). With `dropNullMembers`, object members whose value is null are left out at
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

/**
 * Whether two JSON values serialize alike up to key order: members holding `undefined` count as absent (as in
 * JSON.stringify), shared subtrees are equal at once, and the walk stops at the first difference. Values nesting
 * deeper than `limit` count as different (a caller comparing to skip a write then writes, which is always safe).
 * Up to `maxRecursiveDepth` levels the walk recurses (faster); deeper client documents go on with an explicit stack.
 */
export function jsonEqual(a: unknown, b: unknown, limit = Number.POSITIVE_INFINITY): boolean {
  return equalAt(a, b, 1, limit);
}

/** Whether `a` and `b` hold equal values under every key but those in `skip` (undefined-valued keys count as absent). */
export function jsonEqualExcept(a: Dict, b: Dict, skip: ReadonlySet<string>, limit: number): boolean {
  return sameEntries(a, b, skip, 1, limit);
}

function equalAt(a: unknown, b: unknown, level: number, limit: number): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (level > limit) return false;
  if (level > maxRecursiveDepth) return equalIteratively(a, b, level, limit);
  const arrA = Array.isArray(a);
  if (arrA !== Array.isArray(b)) return false;
  if (arrA) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) {
      // JSON writes an undefined array element as null.
      const p = x[i] === undefined ? null : x[i];
      const q = y[i] === undefined ? null : y[i];
      if (!equalAt(p, q, level + 1, limit)) return false;
    }
    return true;
  }
  return sameEntries(a as Dict, b as Dict, undefined, level, limit);
}

function sameEntries(a: Dict, b: Dict, skip: ReadonlySet<string> | undefined, level: number, limit: number): boolean {
  let countA = 0;
  for (const k of Object.keys(a)) {
    const v = a[k];
    if (v === undefined || typeof v === 'function' || skip?.has(k)) continue;
    countA++;
    if (!hasOwn(b, k) || !equalAt(v, b[k], level + 1, limit)) return false;
  }
  let countB = 0;
  for (const k of Object.keys(b)) {
    const v = b[k];
    if (v === undefined || typeof v === 'function' || skip?.has(k)) continue;
    countB++;
  }
  return countA === countB;
}

/** `equalAt` below the recursion depth: the same comparison with an explicit stack. */
function equalIteratively(a: unknown, b: unknown, level: number, limit: number): boolean {
  const work: [unknown, unknown, number][] = [[a, b, level]];
  while (work.length) {
    const [x, y, at] = work.pop()!;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null || at > limit) return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) work.push([x[i] === undefined ? null : x[i], y[i] === undefined ? null : y[i], at + 1]);
      continue;
    }
    if (Array.isArray(y)) return false;
    const kx = Object.keys(x).filter((k) => (x as Dict)[k] !== undefined && typeof (x as Dict)[k] !== 'function');
    const ky = Object.keys(y).filter((k) => (y as Dict)[k] !== undefined && typeof (y as Dict)[k] !== 'function');
    if (kx.length !== ky.length) return false;
    for (const k of kx) {
      if (!hasOwn(y, k)) return false;
      work.push([(x as Dict)[k], (y as Dict)[k], at + 1]);
    }
  }
  return true;
}

/** Thrown by `copyJson` when a value nests deeper than the limit it was given. */
export class JsonTooDeep extends Error {
  constructor(readonly limit: number) {
    super(`value nests more than ${limit} levels deep`);
  }
}

/**
 * A deep copy of a stored or in-process JSON value, for the write path: faster than `cloneJson` (it recurses) and
 * bounded instead (throws `JsonTooDeep` past `limit` levels, as `jsonDepth` counts). Plain objects and arrays are
 * copied (own enumerable keys, `__proto__` kept as an own key); values with a `toJSON` (Dates) become their JSON form,
 * functions undefined; everything else is kept as it is.
 */
export function copyJson<T>(value: T, limit: number): T {
  return copyAt(value, 1, limit) as T;
}

function copyAt(v: unknown, level: number, limit: number): unknown {
  if (typeof v !== 'object' || v === null) return typeof v === 'function' ? undefined : v;
  if (level > limit) throw new JsonTooDeep(limit);
  if (Array.isArray(v)) {
    const n = v.length;
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) out[i] = copyAt(v[i], level + 1, limit);
    return out;
  }
  const toJSON = (v as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return copyAt((toJSON as () => unknown).call(v), level, limit);
  const out: Dict = {};
  const keys = Object.keys(v);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const c = copyAt((v as Dict)[k], level + 1, limit);
    if (k === '__proto__') Object.defineProperty(out, k, { value: c, writable: true, enumerable: true, configurable: true });
    else out[k] = c;
  }
  return out;
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
