// CRD patterns are Go (RE2) regular expressions; ajv runs them as JavaScript ones. Most read the same; for the rest
// (`\-` outside a class refused by unicode mode, a leading `(?i)`, `\z`) the closest JavaScript reading is used.

function attempts(pattern: string, flags: string): [string, string][] {
  const out: [string, string][] = [[pattern, flags]];
  let p = pattern;
  let f = flags;
  const inline = /^\(\?([is]+)\)/.exec(p);
  if (inline) {
    p = p.slice(inline[0].length);
    f += inline[1];
  }
  p = p.replace(/\\z/g, '$').replace(/\\A/g, '^');
  out.push([p, f], [p, f.replace('u', '')]);
  return out;
}

/** The RegExp ajv uses for a schema pattern; one no engine reads matches everything (checkStructural refuses it). */
export function makeRegExp(pattern: string, flags: string): RegExp {
  for (const [p, f] of attempts(pattern, flags)) {
    try {
      return new RegExp(p, f);
    } catch { /* next reading */ }
  }
  return /(?:)/;
}
makeRegExp.code = 'new RegExp';

/** Why a pattern cannot be read, or undefined when it can. */
export function regexpError(pattern: string): string | undefined {
  let first = '';
  for (const [p, f] of attempts(pattern, 'u')) {
    try {
      new RegExp(p, f);
      return undefined;
    } catch (e) {
      first ||= e instanceof Error ? e.message : String(e);
    }
  }
  return first;
}
