// Ordering of CEL values for the list library (min, max, isSorted) and sets: numbers across int, uint and
// double, then strings, booleans and bytes within their own kind.
import { isCelUint, type CelValue } from '@bufbuild/cel';

type Num = bigint | number;

function asNumber(v: CelValue): Num | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (isCelUint(v)) return v.value;
  return undefined;
}

function compareNum(a: Num, b: Num): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** -1, 0, 1, or undefined when the two values have no order between them. */
export function compareValues(a: CelValue, b: CelValue): number | undefined {
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na !== undefined && nb !== undefined) return compareNum(na, nb);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    return a.length - b.length === 0 ? 0 : a.length < b.length ? -1 : 1;
  }
  return undefined;
}

export function noOverload(fn: string): Error {
  return new Error(`no such overload: ${fn}`);
}
