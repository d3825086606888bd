// CRD patterns are Go (RE2) regular expressions. They are read and matched with the RE2 engine @bufbuild/cel ships
// (this module is only loaded with the schema machinery): the syntax is Go's, errors carry Go's texts, and matching
// takes linear time, so a pattern such as `^(a+)+$` cannot stall the process on a hostile string.
//
// The RE2 port's parser takes time quadratic in a pattern's literal runs (about 1 ms for 1,000 characters, 60 ms
// for 8,000), so Bonsai reads patterns of at most `maxPatternLength` characters: a CRD full of them still validates
// in about a second. Upstream has no such limit; real CRDs' patterns are a few hundred characters at most.
import { RE2JS } from '@bufbuild/re2';
import { Lru } from '../../cel/lru.js';

export const maxPatternLength = 1024;

/** Bonsai's explanation for a pattern it does not compile (upstream would). */
export const patternTooLong = `longer than ${maxPatternLength} characters, more than bonsai compiles`;

interface Reading {
  re?: RE2JS;
  error?: string;
}

// Compiled patterns shared by CRD validation and every compiled schema (the same pattern is read once).
const cache = new Lru<string, Reading>(512);

function read(pattern: string): Reading {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let r: Reading;
  if (pattern.length > maxPatternLength) r = { error: patternTooLong };
  else {
    try {
      r = { re: RE2JS.compile(pattern) };
    } catch (e) {
      r = { error: e instanceof Error ? e.message : String(e) };
    }
  }
  cache.set(pattern, r);
  return r;
}

interface Matcher {
  test(s: string): boolean;
  /** ajv keys its compiled patterns by this text: it must differ between patterns. */
  toString(): string;
}

/**
 * The matcher ajv uses for a schema pattern (its `code.regExp`; the `u` flag ajv passes means nothing to RE2). A
 * pattern RE2 cannot read matches nothing: checkStructural refuses such schemas before they are compiled.
 */
export function makeRegExp(pattern: string, _flags: string): Matcher {
  const { re } = read(pattern);
  const text = `/${pattern}/`;
  return { test: re ? (s: string) => re.test(s) : () => false, toString: () => text };
}
makeRegExp.code = 'RE2JS.compile';

/** Why a pattern cannot be read (Go's `error parsing regexp: …` text), or undefined when it can. */
export function regexpError(pattern: string): string | undefined {
  return read(pattern).error;
}
