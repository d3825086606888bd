// Result types of the functions and operators the environment declares, for the checker: a function name
// unknown here is an "undeclared reference", as in cel-go. Argument types are checked only where a mismatch
// is certain (both sides of an operator are known primitives); everything else is left to run time.
import {
  BOOL, BYTES, CIDR_T, DOUBLE, DURATION, DYN, FORMAT_T, INT, IP_T, QUANTITY, SEMVER_T, STRING, TIMESTAMP, TYPE, UINT, URL_T,
  listOf, mapOf, optionalOf, type CelT,
} from './types.js';
import { formatNames } from './lib-format.js';

type Rule = (args: CelT[], target?: CelT) => CelT;
const fixed = (t: CelT): Rule => () => t;
const elemOf = (t: CelT | undefined): CelT => (t?.k === 'list' ? t.elem : DYN);

const arith: Rule = (a) => {
  const [l, r] = a;
  if (l.k === 'list' && r.k === 'list') return l.elem.k === 'dyn' ? r : l;
  if (l.k === 'dyn') return r.k === 'dyn' ? DYN : r;
  if (l.k === 'opaque' && l.name === TIMESTAMP_NAME) return TIMESTAMP;
  return l;
};
const TIMESTAMP_NAME = 'google.protobuf.Timestamp';

export const globalFuncs = new Map<string, Rule>([
  ['_==_', fixed(BOOL)], ['_!=_', fixed(BOOL)], ['_<_', fixed(BOOL)], ['_<=_', fixed(BOOL)], ['_>_', fixed(BOOL)], ['_>=_', fixed(BOOL)],
  ['_&&_', fixed(BOOL)], ['_||_', fixed(BOOL)], ['!_', fixed(BOOL)], ['@in', fixed(BOOL)], ['@not_strictly_false', fixed(BOOL)],
  ['_+_', arith], ['_-_', (a) => (a[0].k === 'opaque' && a[0].name === TIMESTAMP_NAME && a[1].k === 'opaque' && a[1].name === TIMESTAMP_NAME ? DURATION : arith(a))],
  ['_*_', arith], ['_/_', arith], ['_%_', arith], ['-_', (a) => a[0]],
  ['_?_:_', (a) => (a[1].k === 'dyn' || a[1].k === 'null' ? a[2] : a[1])],
  ['_[_]', (a) => (a[0].k === 'list' ? a[0].elem : a[0].k === 'map' ? a[0].val : DYN)],
  ['size', fixed(INT)], ['int', fixed(INT)], ['uint', fixed(UINT)], ['double', fixed(DOUBLE)], ['string', fixed(STRING)],
  ['bytes', fixed(BYTES)], ['bool', fixed(BOOL)], ['dyn', fixed(DYN)], ['type', fixed(TYPE)],
  ['duration', fixed(DURATION)], ['timestamp', fixed(TIMESTAMP)], ['matches', fixed(BOOL)],
  ['quantity', fixed(QUANTITY)], ['isQuantity', fixed(BOOL)], ['url', fixed(URL_T)], ['isURL', fixed(BOOL)],
  ['ip', fixed(IP_T)], ['isIP', fixed(BOOL)], ['ip.isCanonical', fixed(BOOL)], ['cidr', fixed(CIDR_T)], ['isCIDR', fixed(BOOL)],
  ['semver', fixed(SEMVER_T)], ['isSemver', fixed(BOOL)],
  ['optional.of', (a) => optionalOf(a[0] ?? DYN)], ['optional.ofNonZeroValue', (a) => optionalOf(a[0] ?? DYN)],
  ['optional.none', fixed(optionalOf(DYN))], ['strings.quote', fixed(STRING)],
  ['sets.contains', fixed(BOOL)], ['sets.equivalent', fixed(BOOL)], ['sets.intersects', fixed(BOOL)],
  ['format.named', fixed(optionalOf(FORMAT_T))],
  ...formatNames.map((n): [string, Rule] => [`format.${n}`, fixed(FORMAT_T)]),
]);

const timeGetters = ['getFullYear', 'getMonth', 'getDate', 'getDayOfMonth', 'getDayOfWeek', 'getDayOfYear', 'getHours',
  'getMinutes', 'getSeconds', 'getMilliseconds'];

export const methodFuncs = new Map<string, Rule>([
  // authorizer (lib-authz.ts): the chain's values are dyn to the checker.
  ['path', fixed(DYN)], ['group', fixed(DYN)], ['serviceAccount', fixed(DYN)], ['resource', fixed(DYN)], ['subresource', fixed(DYN)],
  ['namespace', fixed(DYN)], ['name', fixed(DYN)], ['check', fixed(DYN)], ['allowed', fixed(BOOL)], ['reason', fixed(STRING)],
  ['errored', fixed(BOOL)], ['error', fixed(STRING)],
  ['size', fixed(INT)], ['contains', fixed(BOOL)], ['startsWith', fixed(BOOL)], ['endsWith', fixed(BOOL)], ['matches', fixed(BOOL)],
  ['charAt', fixed(STRING)], ['indexOf', fixed(INT)], ['lastIndexOf', fixed(INT)], ['lowerAscii', fixed(STRING)],
  ['upperAscii', fixed(STRING)], ['replace', fixed(STRING)], ['split', fixed(listOf(STRING))], ['substring', fixed(STRING)],
  ['trim', fixed(STRING)], ['join', fixed(STRING)], ['format', fixed(STRING)], ['find', fixed(STRING)],
  ['findAll', fixed(listOf(STRING))],
  ['isSorted', fixed(BOOL)], ['sum', (_a, t) => elemOf(t)], ['min', (_a, t) => elemOf(t)], ['max', (_a, t) => elemOf(t)],
  ['sign', fixed(INT)], ['isInteger', fixed(BOOL)], ['asInteger', fixed(INT)], ['asApproximateFloat', fixed(DOUBLE)],
  ['compareTo', fixed(INT)], ['isGreaterThan', fixed(BOOL)], ['isLessThan', fixed(BOOL)],
  ['add', fixed(QUANTITY)], ['sub', fixed(QUANTITY)],
  ['getScheme', fixed(STRING)], ['getHost', fixed(STRING)], ['getHostname', fixed(STRING)], ['getPort', fixed(STRING)],
  ['getEscapedPath', fixed(STRING)], ['getQuery', fixed(mapOf(STRING, listOf(STRING)))],
  ['family', fixed(INT)], ['isUnspecified', fixed(BOOL)], ['isLoopback', fixed(BOOL)], ['isLinkLocalMulticast', fixed(BOOL)],
  ['isLinkLocalUnicast', fixed(BOOL)], ['isGlobalUnicast', fixed(BOOL)], ['containsIP', fixed(BOOL)], ['containsCIDR', fixed(BOOL)],
  ['ip', fixed(IP_T)], ['masked', fixed(CIDR_T)], ['prefixLength', fixed(INT)],
  ['hasValue', fixed(BOOL)], ['value', (_a, t) => (t?.k === 'optional' ? t.inner : DYN)],
  ['orValue', (a, t) => (t?.k === 'optional' && t.inner.k !== 'dyn' ? t.inner : a[0] ?? DYN)],
  ['or', (_a, t) => t ?? DYN], ['validate', fixed(optionalOf(listOf(STRING)))],
  ['major', fixed(INT)], ['minor', fixed(INT)], ['patch', fixed(INT)],
  ...timeGetters.map((n): [string, Rule] => [n, fixed(INT)]),
]);

/** Primitive kinds whose mismatch under an operator is certain at compile time. */
export const primitiveKinds = new Set(['string', 'int', 'uint', 'double', 'bool', 'bytes']);
export const numericKinds = new Set(['int', 'uint', 'double']);
