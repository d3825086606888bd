// Optional-syntax rewriting. The parser of @bufbuild/cel 0.6 does not know `a.?b` or `a[?k]`; both become
// ordinary member calls before parsing: `a._optField_('b')` and `a._optIndex_(k)`, which lib-optional
// implements. Strings and comments are skipped; optional list and map literal entries stay unsupported.
import { optFieldFn, optIndexFn } from './lib-optional.js';

const identStart = /[A-Za-z_]/;
const identChar = /[A-Za-z0-9_]/;

/** Index just past the string literal starting at i (handles r/b prefixes' quotes and triple quotes). */
function skipString(src: string, i: number, raw: boolean): number {
  const q = src[i];
  const triple = src.startsWith(q.repeat(3), i);
  const close = triple ? q.repeat(3) : q;
  let j = i + close.length;
  while (j < src.length) {
    if (!raw && src[j] === '\\') {
      j += 2;
      continue;
    }
    if (src.startsWith(close, j)) return j + close.length;
    if (!triple && src[j] === '\n') return j;
    j++;
  }
  return j;
}

export function rewriteOptionalSyntax(src: string): string {
  if (!src.includes('?')) return src;
  let out = '';
  const stack: boolean[] = [];
  let prevSignificant = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === '"' || c === "'") {
      const raw = /[rR]/.test(src[i - 1] ?? '') && !identChar.test(src[i - 2] ?? '');
      const j = skipString(src, i, raw);
      out += src.slice(i, j);
      prevSignificant = 'lit';
      i = j;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      const j = src.indexOf('\n', i);
      const end = j < 0 ? src.length : j;
      out += src.slice(i, end);
      i = end;
      continue;
    }
    if (c === '.') {
      let j = i + 1;
      while (j < src.length && /\s/.test(src[j])) j++;
      if (src[j] === '?') {
        let k = j + 1;
        while (k < src.length && /\s/.test(src[k])) k++;
        if (identStart.test(src[k] ?? '')) {
          let e = k;
          while (e < src.length && identChar.test(src[e])) e++;
          out += `.${optFieldFn}('${src.slice(k, e)}')`;
          prevSignificant = ')';
          i = e;
          continue;
        }
      }
    }
    if (c === '[') {
      let j = i + 1;
      while (j < src.length && /\s/.test(src[j])) j++;
      const isIndex = prevSignificant === 'ident' || prevSignificant === ')' || prevSignificant === ']' || prevSignificant === 'lit';
      if (src[j] === '?' && isIndex) {
        out += `.${optIndexFn}(`;
        stack.push(true);
        i = j + 1;
        prevSignificant = '(';
        continue;
      }
      stack.push(false);
    }
    if (c === ']') {
      out += stack.pop() ? ')' : ']';
      prevSignificant = ']';
      i++;
      continue;
    }
    if (identChar.test(c)) {
      let e = i;
      while (e < src.length && identChar.test(src[e])) e++;
      out += src.slice(i, e);
      prevSignificant = 'ident';
      i = e;
      continue;
    }
    if (!/\s/.test(c)) prevSignificant = c;
    out += c;
    i++;
  }
  return out;
}
