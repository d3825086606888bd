// Copies and comparisons of JSON values (decoded bodies, stored objects) for the write path: cheaper than
// structuredClone and JSON.stringify round trips, and bounded in depth like every walk of client data.
import { hasOwn } from '../util/own.js';

/** Thrown by `copyJson` when a value nests deeper than the limit it was given. */
export class JsonTooDeep extends Error {
  constructor(readonly limit: number) {
    super(`value nests more than ${limit} levels deep`);
  }
}

type Dict = Record<string, unknown>;

/**
 * A deep copy of a JSON value: plain objects and arrays are copied (own enumerable keys, `__proto__` included as an
 * own key), everything else is kept as it is except values with a `toJSON` (Dates: their JSON form) and functions
 * (dropped to undefined). Throws `JsonTooDeep` when objects nest more than `limit` levels (as `jsonDepth` counts).
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

/**
 * Whether two JSON values serialize alike up to key order: keys holding `undefined` count as absent (as in
 * JSON.stringify), shared subtrees are equal at once, and the walk stops at the first difference. Values nesting
 * deeper than `limit` count as different (the caller then writes, which is always safe).
 */
export function jsonEqual(a: unknown, b: unknown, limit: number): boolean {
  return equalAt(a, b, 1, limit);
}

function equalAt(a: unknown, b: unknown, level: number, limit: number): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (level > limit) return false;
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

/** Whether `a` and `b` hold equal values under every key but those in `skip` (undefined-valued keys count as absent). */
export function jsonEqualExcept(a: Dict, b: Dict, skip: ReadonlySet<string>, limit: number): boolean {
  return sameEntries(a, b, skip, 1, limit);
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
