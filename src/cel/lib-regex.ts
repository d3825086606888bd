// Kubernetes' regex library: `s.find(re)` and `s.findAll(re[, limit])`. Patterns are RE2 (checked with the RE2
// engine @bufbuild/cel ships, which also answers "is there a match" in linear time); the match itself is then
// taken with a JS RegExp only when RE2 says one exists, so a backtracking pattern cannot stall on a miss.
import { RE2JS } from '@bufbuild/re2';
import { celMethod, CelScalar, listType, type CelFunc } from '@bufbuild/cel';
import { chargeString } from './budget.js';
import { Lru } from './lru.js';

const { STRING, INT } = CelScalar;

interface Compiled { re2: RE2JS; js: RegExp }
const cache = new Lru<string, Compiled>(256);

function toJs(pattern: string): RegExp {
  let flags = 'g';
  let src = pattern;
  const lead = /^\(\?([imsU]+)\)/.exec(src);
  if (lead) {
    src = src.slice(lead[0].length);
    if (lead[1].includes('i')) flags += 'i';
    if (lead[1].includes('m')) flags += 'm';
    if (lead[1].includes('s')) flags += 's';
  }
  src = src.replace(/\(\?P</g, '(?<').replace(/\\z/g, '$(?![\\s\\S])').replace(/\\A/g, '^');
  return new RegExp(src, flags);
}

export function compileRegex(pattern: string): Compiled {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let c: Compiled;
  try {
    c = { re2: RE2JS.compile(pattern), js: toJs(pattern) };
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new Error(why.startsWith('error parsing regexp: ') ? why : `error parsing regexp: ${why}`);
  }
  cache.set(pattern, c);
  return c;
}

function findAll(s: string, pattern: string, limit: number): string[] {
  chargeString(s.length);
  const c = compileRegex(pattern);
  if (limit === 0 || !c.re2.test(s)) return [];
  const out: string[] = [];
  c.js.lastIndex = 0;
  for (;;) {
    if (limit >= 0 && out.length >= limit) break;
    const m = c.js.exec(s);
    if (!m) break;
    out.push(m[0]);
    if (m[0] === '') c.js.lastIndex++;
    if (c.js.lastIndex > s.length) break;
  }
  return out;
}

export const regexFuncs: CelFunc[] = [
  celMethod('find', STRING, [STRING], STRING, function (re) { return findAll(this, re, 1)[0] ?? ''; }),
  celMethod('findAll', STRING, [STRING], listType(STRING), function (re) { return findAll(this, re, -1); }),
  celMethod('findAll', STRING, [STRING, INT], listType(STRING), function (re, n) { return findAll(this, re, Number(n)); }),
];
