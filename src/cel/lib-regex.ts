// Regular expressions in CEL are RE2, as in cel-go: the standard `matches` (member and global forms) and
// Kubernetes' regex library, `s.find(re)` and `s.findAll(re[, limit])`. Patterns are read by the RE2 port CRD
// patterns use (@bufbuild/re2: Go's syntax, flags and error texts); `matches` asks it whether the string matches,
// and the match `find` and `findAll` return is taken by re2-find.ts over the port's compiled program. Every step
// is linear in the string, so no pattern can stall the process.
import { RE2JS } from '@bufbuild/re2';
import { celFunc, celMethod, CelScalar, listType, type CelFunc } from '@bufbuild/cel';
import { chargeRegex } from './budget.js';
import { Lru } from './lru.js';
import { findAllIn } from './re2-find.js';

const { BOOL, STRING, INT } = CelScalar;

const cache = new Lru<string, RE2JS>(256);

/** The compiled pattern; throws Go's `error parsing regexp: …` when RE2 cannot read it. */
export function compileRegex(pattern: string): RE2JS {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new Error(why.startsWith('error parsing regexp: ') ? why : `error parsing regexp: ${why}`);
  }
  cache.set(pattern, re);
  return re;
}

function matches(s: string, pattern: string): boolean {
  chargeRegex(s.length, pattern.length);
  return compileRegex(pattern).test(s);
}

function findAll(s: string, pattern: string, limit: number): string[] {
  chargeRegex(s.length, pattern.length);
  const re = compileRegex(pattern);
  if (limit === 0 || !re.test(s)) return [];
  return findAllIn(re, s, limit);
}

export const regexFuncs: CelFunc[] = [
  celMethod('matches', STRING, [STRING], BOOL, function (re) { return matches(this, re); }),
  celFunc('matches', [STRING, STRING], BOOL, matches),
  celMethod('find', STRING, [STRING], STRING, function (re) { return findAll(this, re, 1)[0] ?? ''; }),
  celMethod('findAll', STRING, [STRING], listType(STRING), function (re) { return findAll(this, re, -1); }),
  celMethod('findAll', STRING, [STRING, INT], listType(STRING), function (re, n) { return findAll(this, re, Number(n)); }),
];
