// CEL optional values: optional.of/none/ofNonZeroValue, hasValue/value/orValue/or, and the two functions the
// engine rewrites `a.?b` and `a[?k]` into (the parser of @bufbuild/cel 0.6 has no optional syntax).
import { celFunc, celMethod, CelScalar, isCelList, isCelMap, isCelUint, type CelFunc, type CelValue } from '@bufbuild/cel';
import type { ReflectMessage } from '@bufbuild/protobuf/reflect';
import { makeOpaque, opaqueKind, opaquePayload, opaqueTypes } from './opaque.js';

const { DYN, BOOL, STRING } = CelScalar;
const OPT = opaqueTypes.optional;

export const optFieldFn = '_optField_';
export const optIndexFn = '_optIndex_';

interface Payload { present: boolean; value?: CelValue }
const NONE_PAYLOAD: Payload = { present: false };

export const optionalNone = (): ReflectMessage => makeOpaque('optional', '', NONE_PAYLOAD);
export const optionalOf = (v: CelValue): ReflectMessage => makeOpaque('optional', 'some', { present: true, value: v });
const payload = (o: ReflectMessage): Payload => opaquePayload<Payload>(o) ?? NONE_PAYLOAD;

function isZero(v: CelValue): boolean {
  if (v === null || v === false || v === '' || v === 0 || v === 0n) return true;
  if (isCelUint(v)) return v.value === 0n;
  if (v instanceof Uint8Array) return v.length === 0;
  if (isCelList(v) || isCelMap(v)) return v.size === 0;
  return false;
}

function select(target: CelValue, key: CelValue): ReflectMessage {
  if (opaqueKind(target) === 'optional') {
    const p = payload(target as ReflectMessage);
    return p.present ? select(p.value as CelValue, key) : optionalNone();
  }
  if (isCelMap(target)) {
    const v = target.get(key as never);
    return v === undefined ? optionalNone() : optionalOf(v);
  }
  if (isCelList(target)) {
    if (typeof key !== 'bigint' && !(typeof key === 'number' && Number.isInteger(key))) throw new Error('no such overload');
    const i = Number(key);
    const v = i >= 0 && i < target.size ? target.get(i) : undefined;
    return v === undefined ? optionalNone() : optionalOf(v);
  }
  throw new Error(`no such overload: ${optFieldFn}`);
}

export const optionalFuncs: CelFunc[] = [
  celFunc('optional.of', [DYN], OPT, (v) => optionalOf(v)),
  celFunc('optional.none', [], OPT, () => optionalNone()),
  celFunc('optional.ofNonZeroValue', [DYN], OPT, (v) => (isZero(v) ? optionalNone() : optionalOf(v))),
  celMethod('hasValue', OPT, [], BOOL, function () { return payload(this).present; }),
  celMethod('value', OPT, [], DYN, function () {
    const p = payload(this);
    if (!p.present) throw new Error('optional.none() dereference');
    return p.value as CelValue;
  }),
  celMethod('orValue', OPT, [DYN], DYN, function (d) { const p = payload(this); return p.present ? (p.value as CelValue) : d; }),
  celMethod('or', OPT, [OPT], OPT, function (o) { return payload(this).present ? this : o; }),
  celMethod(optFieldFn, DYN, [STRING], OPT, function (f) { return select(this, f); }),
  celMethod(optIndexFn, DYN, [DYN], OPT, function (k) { return select(this, k); }),
];
