// Kubernetes' list library (isSorted, sum, min, max, indexOf, lastIndexOf) and cel-go's sets extension
// (sets.contains, sets.equivalent, sets.intersects), over @bufbuild/cel lists.
import { celFunc, celMethod, CelScalar, listType, isCelUint, celUint, type CelFunc, type CelList, type CelValue } from '@bufbuild/cel';
import { charge } from './budget.js';
import { compareValues, noOverload } from './compare.js';

const L = listType(CelScalar.DYN);
const { DYN, BOOL, INT } = CelScalar;

function items(l: CelList): CelValue[] {
  charge(l.size);
  return Array.from(l);
}

function equalish(a: CelValue, b: CelValue): boolean {
  return compareValues(a, b) === 0;
}

function extreme(l: CelList, sign: number, name: string): CelValue {
  const xs = items(l);
  if (xs.length === 0) throw new Error(`${name} called on empty list`);
  let best = xs[0];
  for (const x of xs.slice(1)) {
    const c = compareValues(x, best);
    if (c === undefined) throw noOverload(name);
    if (c * sign > 0) best = x;
  }
  return best;
}

function sum(l: CelList): CelValue {
  const xs = items(l);
  if (xs.length === 0) return 0n;
  let acc: CelValue = xs[0];
  for (const x of xs.slice(1)) {
    if (typeof acc === 'bigint' && typeof x === 'bigint') {
      acc = acc + x;
      if (acc > 9223372036854775807n || acc < -9223372036854775808n) throw new Error('integer overflow');
    } else if (typeof acc === 'number' && typeof x === 'number') acc = acc + x;
    else if (isCelUint(acc) && isCelUint(x)) acc = celUint(acc.value + x.value);
    else throw noOverload('sum');
  }
  return acc;
}

function indexOf(l: CelList, v: CelValue, last: boolean): bigint {
  const xs = items(l);
  if (last) {
    for (let i = xs.length - 1; i >= 0; i--) if (equalish(xs[i], v)) return BigInt(i);
  } else {
    for (let i = 0; i < xs.length; i++) if (equalish(xs[i], v)) return BigInt(i);
  }
  return -1n;
}

function isSorted(l: CelList): boolean {
  const xs = items(l);
  for (let i = 1; i < xs.length; i++) {
    const c = compareValues(xs[i - 1], xs[i]);
    if (c === undefined) throw noOverload('isSorted');
    if (c > 0) return false;
  }
  return true;
}

function contains(a: CelList, b: CelList): boolean {
  const xs = items(a);
  for (const y of items(b)) {
    charge(xs.length);
    if (!xs.some((x) => equalish(x, y))) return false;
  }
  return true;
}

export const listFuncs: CelFunc[] = [
  celMethod('isSorted', L, [], BOOL, function () { return isSorted(this); }),
  celMethod('sum', L, [], DYN, function () { return sum(this); }),
  celMethod('min', L, [], DYN, function () { return extreme(this, -1, 'min'); }),
  celMethod('max', L, [], DYN, function () { return extreme(this, 1, 'max'); }),
  celMethod('indexOf', L, [DYN], INT, function (v) { return indexOf(this, v, false); }),
  celMethod('lastIndexOf', L, [DYN], INT, function (v) { return indexOf(this, v, true); }),
  celFunc('sets.contains', [L, L], BOOL, (a, b) => contains(a, b)),
  celFunc('sets.equivalent', [L, L], BOOL, (a, b) => contains(a, b) && contains(b, a)),
  celFunc('sets.intersects', [L, L], BOOL, (a, b) => {
    const xs = items(a);
    for (const y of items(b)) {
      charge(xs.length);
      if (xs.some((x) => equalish(x, y))) return true;
    }
    return false;
  }),
];
