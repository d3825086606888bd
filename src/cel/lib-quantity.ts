// Kubernetes' quantity library: quantity(s), isQuantity(s) and the Quantity methods. A quantity is held
// exactly, as mantissa × 10^exp (binary suffixes multiply the mantissa, so 1.5Ki is 1536 exactly).
import { celFunc, celMethod, CelScalar, type CelFunc } from '@bufbuild/cel';
import type { ReflectMessage } from '@bufbuild/protobuf/reflect';
import { makeOpaque, opaquePayload, opaqueTypes } from './opaque.js';

const { STRING, BOOL, INT, DOUBLE } = CelScalar;
const Q = opaqueTypes.quantity;

export interface Dec { m: bigint; e: number }

const re = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?[0-9]+))?$/;
const decimalSuffix: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffix: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const quantityError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

export function parseDec(s: string): Dec | undefined {
  const m = re.exec(s);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const frac = m[3] ?? '';
  let mant = BigInt((m[2] || '0') + frac);
  let exp = -frac.length;
  if (m[4] && m[4] in decimalSuffix) exp += decimalSuffix[m[4]];
  else if (m[4]) mant *= 1n << BigInt(binarySuffix[m[4]]);
  else if (m[5]) {
    const e = Number(m[5]);
    if (Math.abs(e) > 1000) return undefined;
    exp += e;
  }
  if (m[1] === '-') mant = -mant;
  return normalize({ m: mant, e: exp });
}

function normalize(d: Dec): Dec {
  if (d.m === 0n) return { m: 0n, e: 0 };
  let { m, e } = d;
  while (m % 10n === 0n) {
    m /= 10n;
    e++;
  }
  return { m, e };
}

function align(a: Dec, b: Dec): [bigint, bigint, number] {
  const e = Math.min(a.e, b.e);
  return [a.m * 10n ** BigInt(a.e - e), b.m * 10n ** BigInt(b.e - e), e];
}

const cmp = (a: Dec, b: Dec) => {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
};
const add = (a: Dec, b: Dec): Dec => {
  const [x, y, e] = align(a, b);
  return normalize({ m: x + y, e });
};
const neg = (a: Dec): Dec => ({ m: -a.m, e: a.e });

function asInt(d: Dec): bigint | undefined {
  if (d.e < 0) return undefined;
  if (d.e > 30) return undefined;
  const v = d.m * 10n ** BigInt(d.e);
  return v > 9223372036854775807n || v < -9223372036854775808n ? undefined : v;
}

export function makeQuantity(d: Dec): ReflectMessage {
  return makeOpaque('quantity', `${d.m}e${d.e}`, d);
}
const dec = (q: ReflectMessage): Dec => opaquePayload<Dec>(q) ?? { m: 0n, e: 0 };
const fromInt = (n: bigint): Dec => normalize({ m: n, e: 0 });

export const quantityFuncs: CelFunc[] = [
  celFunc('quantity', [STRING], Q, (s) => {
    const d = parseDec(s);
    if (!d) throw new Error(quantityError);
    return makeQuantity(d);
  }),
  celFunc('isQuantity', [STRING], BOOL, (s) => parseDec(s) !== undefined),
  celMethod('sign', Q, [], INT, function () { return BigInt(Math.sign(Number(dec(this).m))); }),
  celMethod('isInteger', Q, [], BOOL, function () { return asInt(dec(this)) !== undefined; }),
  celMethod('asInteger', Q, [], INT, function () {
    const v = asInt(dec(this));
    if (v === undefined) throw new Error('cannot convert value to integer');
    return v;
  }),
  celMethod('asApproximateFloat', Q, [], DOUBLE, function () { const d = dec(this); return Number(d.m) * 10 ** d.e; }),
  celMethod('compareTo', Q, [Q], INT, function (o) { return BigInt(cmp(dec(this), dec(o))); }),
  celMethod('isGreaterThan', Q, [Q], BOOL, function (o) { return cmp(dec(this), dec(o)) > 0; }),
  celMethod('isLessThan', Q, [Q], BOOL, function (o) { return cmp(dec(this), dec(o)) < 0; }),
  celMethod('add', Q, [Q], Q, function (o) { return makeQuantity(add(dec(this), dec(o))); }),
  celMethod('add', Q, [INT], Q, function (o) { return makeQuantity(add(dec(this), fromInt(o))); }),
  celMethod('sub', Q, [Q], Q, function (o) { return makeQuantity(add(dec(this), neg(dec(o)))); }),
  celMethod('sub', Q, [INT], Q, function (o) { return makeQuantity(add(dec(this), neg(fromInt(o)))); }),
];
