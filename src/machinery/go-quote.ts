// Go's strconv.Quote (what `%q` prints), for values echoed in upstream's messages: printable characters as they
// are, the C escapes, `\x` for other control bytes, `\u`/`\U` for other unprintable characters.
import { hasOwn } from '../util/own.js';

/** unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const escapes: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\' };

export function isGoPrintable(ch: string): boolean {
  return printable.test(ch);
}

export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    if (hasOwn(escapes, ch)) out += escapes[ch];
    else if (printable.test(ch)) out += ch;
    else {
      const code = ch.codePointAt(0) ?? 0;
      if (code < 0x80) out += `\\x${code.toString(16).padStart(2, '0')}`;
      else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, '0')}`;
      else out += `\\U${code.toString(16).padStart(8, '0')}`;
    }
  }
  return `${out}"`;
}
