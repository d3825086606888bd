// CRD patterns are Go (RE2) regular expressions. They are read and matched with the RE2 engine @bufbuild/cel ships
// (this module is only loaded with the schema machinery): the syntax is Go's, errors carry Go's texts, and matching
// takes linear time, so a pattern such as `^(a+)+$` cannot stall the process on a hostile string.
//
// The RE2 port's parser takes time quadratic in a pattern's literal runs (it copies the run at every character:
// about 1.5 ms for a run of 1,000 characters here, 60 ms for 8,000). Bonsai breaks long runs with empty groups
// before it reads a pattern (`ab(?:)ab` matches what `abab` does), and reads patterns of at most `maxPatternLength`
// characters. Upstream has no such limit; real CRDs' patterns are a few hundred characters at most.
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
      r = { re: RE2JS.compile(brokenRuns(pattern)) };
    } catch {
      // Read again as written, for Go's error text (which quotes the pattern).
      try {
        r = { re: RE2JS.compile(pattern) };
      } catch (e) {
        r = { error: e instanceof Error ? e.message : String(e) };
      }
    }
  }
  cache.set(pattern, r);
  return r;
}

/** Characters that are a literal wherever they stand outside a class, an escape, a repeat count or a group's head. */
const plain = /[A-Za-z0-9 _\-\/,;:=<>!@#%&'"~`]/;
/** Literal runs longer than this are broken. */
const runLimit = 32;

/**
 * `pattern` with an empty group `(?:)` after every `runLimit` characters of a run of plain literals; the same pattern
 * when it has no such run. Classes (`[...]`), escapes, repeat counts (`{...}`) and group heads (`(?...`) are stepped
 * over whole, so nothing is inserted where it would change what the pattern means; a `\Q` quote stops the breaking.
 */
export function brokenRuns(pattern: string): string {
  if (pattern.length <= runLimit) return pattern;
  let out = '';
  let from = 0;
  let run = 0;
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (plain.test(c)) {
      if (run >= runLimit) {
        out += `${pattern.slice(from, i)}(?:)`;
        from = i;
        run = 0;
      }
      run++;
      i++;
      continue;
    }
    run = 0;
    if (c === '\\') {
      const n = pattern[i + 1];
      if (n === 'Q') break;
      if ((n === 'p' || n === 'P' || n === 'x') && pattern[i + 2] === '{') i = closing(pattern, i + 2, '}') + 1;
      else i += n === 'x' ? 4 : n === 'p' || n === 'P' ? 3 : 2;
    } else if (c === '[') i = classEnd(pattern, i) + 1;
    else if (c === '{') i = closing(pattern, i, '}') + 1;
    else if (c === '(' && pattern[i + 1] === '?') i = headEnd(pattern, i + 2);
    else i++;
  }
  return from === 0 ? pattern : out + pattern.slice(from);
}

/** The index of the first `close` after `at`, or the pattern's end. */
function closing(pattern: string, at: number, close: string): number {
  const j = pattern.indexOf(close, at + 1);
  return j < 0 ? pattern.length : j;
}

/** The index of the `]` closing the class opened at `at` (a `]` first in the class is a literal; `[:name:]` nests). */
function classEnd(pattern: string, at: number): number {
  let i = at + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++;
  while (i < pattern.length && pattern[i] !== ']') {
    if (pattern[i] === '\\') i += 2;
    else if (pattern[i] === '[' && pattern[i + 1] === ':') i = closing(pattern, i + 1, ']') + 1;
    else i++;
  }
  return i;
}

/** Past the head of a group opened by `(?`: flags end at `)` or `:`, a name at `>`. */
function headEnd(pattern: string, at: number): number {
  let i = at;
  while (i < pattern.length && pattern[i] !== ')' && pattern[i] !== ':' && pattern[i] !== '>') i++;
  return i + 1;
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
