// onJobFailureMessagePatterns are Go (RE2) regular expressions from clients: matched with the linear-time RE2 engine
// @bufbuild/cel ships (a backtracking JS RegExp could stall the process on a hostile pattern), loaded on first use.
type Re2Module = typeof import('@bufbuild/re2');
type Compiled = { test(s: string): boolean } | null;

let re2: Re2Module | undefined;
const cache = new Map<string, Compiled>();
const maxCached = 1024;
const maxPatternLength = 4096;

/** Loads the engine; call (and await) before matching patterns. */
export async function loadPatterns(): Promise<void> {
  re2 ??= await import('@bufbuild/re2');
}

export const patternsLoaded = (): boolean => re2 !== undefined;

/** Whether the pattern matches somewhere in `message`; a pattern that does not compile matches nothing (as upstream, which logs and skips it). */
export function patternMatches(pattern: string, message: string): boolean {
  if (!re2) throw new Error('loadPatterns() first');
  let c = cache.get(pattern);
  if (c === undefined) {
    try {
      c = pattern.length > maxPatternLength ? null : re2.RE2JS.compile(pattern);
    } catch {
      c = null;
    }
    if (cache.size >= maxCached) cache.clear();
    cache.set(pattern, c);
  }
  return c !== null && c.test(message);
}
