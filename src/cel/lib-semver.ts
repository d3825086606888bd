// Kubernetes' semver library: semver(s[, normalize]), isSemver(s[, normalize]), major/minor/patch, compareTo, isGreaterThan, isLessThan.
import { celFunc, celMethod, CelScalar, type CelFunc, type CelValue } from '@bufbuild/cel';
import type { ReflectMessage } from '@bufbuild/protobuf/reflect';
import { makeOpaque, opaquePayload, opaqueTypes } from './opaque.js';

const { STRING, BOOL, INT } = CelScalar;
const S = opaqueTypes.semver;
interface Ver { major: bigint; minor: bigint; patch: bigint; pre: string[] }

const re = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

function parse(s: string): Ver | undefined {
  const m = re.exec(s);
  return m ? { major: BigInt(m[1]), minor: BigInt(m[2]), patch: BigInt(m[3]), pre: m[4] ? m[4].split('.') : [] } : undefined;
}

function cmpPre(a: string[], b: string[]): number {
  if (!a.length || !b.length) return a.length === b.length ? 0 : a.length ? -1 : 1;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const na = /^\d+$/.test(a[i]);
    const nb = /^\d+$/.test(b[i]);
    if (na && nb && a[i] !== b[i]) return BigInt(a[i]) < BigInt(b[i]) ? -1 : 1;
    if (na !== nb) return na ? -1 : 1;
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return Math.sign(a.length - b.length);
}

function cmp(a: Ver, b: Ver): number {
  for (const k of ['major', 'minor', 'patch'] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  return cmpPre(a.pre, b.pre);
}

const ver = (v: ReflectMessage) => opaquePayload<Ver>(v)!;

/**
 * The optional `normalize` argument (library version 1): a leading `v` is dropped, leading zeros of the first three
 * parts are dropped, and a missing minor or patch becomes 0 (a short version may carry no pre-release or build).
 */
function normalized(s: string): string | undefined {
  const parts = (s.startsWith('v') ? s.slice(1) : s).split('.');
  const head = parts.length > 3 ? [...parts.slice(0, 2), parts.slice(2).join('.')] : parts;
  const fixed = head.map((p) => {
    if (p.length <= 1) return p;
    const t = p.replace(/^0+/, '');
    return t === '' || !/^[0-9]/.test(t) ? `0${t}` : t;
  });
  if (fixed.length < 3) {
    if (/[+-]/.test(fixed[fixed.length - 1]!)) return undefined;
    while (fixed.length < 3) fixed.push('0');
  }
  return fixed.join('.');
}

export function toSemver(s: string, normalize: boolean): ReflectMessage {
  const text = normalize ? normalized(s) : s;
  const v = text === undefined ? undefined : parse(text);
  if (!v) throw new Error(`string ${JSON.stringify(s)} is not a valid semver`);
  return makeOpaque('semver', `${v.major}.${v.minor}.${v.patch}${v.pre.length ? `-${v.pre.join('.')}` : ''}`, v);
}

/** A strict semver string as a CEL semver value (DRA version attributes), undefined when it is not one. */
export function semverValue(s: string): CelValue | undefined {
  return parse(s) ? toSemver(s, false) as unknown as CelValue : undefined;
}

function isSemver(s: string, normalize: boolean): boolean {
  const text = normalize ? normalized(s) : s;
  return text !== undefined && parse(text) !== undefined;
}

export const semverFuncs: CelFunc[] = [
  celFunc('semver', [STRING], S, (s) => toSemver(s, false)),
  celFunc('semver', [STRING, BOOL], S, toSemver),
  celFunc('isSemver', [STRING], BOOL, (s) => isSemver(s, false)),
  celFunc('isSemver', [STRING, BOOL], BOOL, isSemver),
  celMethod('major', S, [], INT, function () { return ver(this).major; }),
  celMethod('minor', S, [], INT, function () { return ver(this).minor; }),
  celMethod('patch', S, [], INT, function () { return ver(this).patch; }),
  celMethod('compareTo', S, [S], INT, function (o) { return BigInt(cmp(ver(this), ver(o))); }),
  celMethod('isGreaterThan', S, [S], BOOL, function (o) { return cmp(ver(this), ver(o)) > 0; }),
  celMethod('isLessThan', S, [S], BOOL, function (o) { return cmp(ver(this), ver(o)) < 0; }),
];
