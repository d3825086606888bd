// How many bytes a decoded JSON value takes once encoded, counted only up to a bound: the count stops as soon as it
// passes the bound, so measuring a value built to be huge costs no more than the bound (plus the one string being
// counted), never the value's size. Two encoders are counted: Go's encoding/json (what upstream's limits measure:
// `<`, `>`, `&`, U+2028 and U+2029 escaped) and JSON.stringify (what Bonsai stores).
import { isRecord } from '../../machinery/types.js';

export type JsonEncoder = 'go' | 'js';

/** Characters an encoder writes as more than themselves, or that are not single UTF-8 bytes. */
const special = { go: /[\u0000-\u001f"\\<>&\u2028\u2029]|[^\u0000-\u007f]/, js: /[\u0000-\u001f"\\]|[^\u0000-\u007f]/ };
const escaped = { go: /[\u0000-\u001f"\\<>&\u2028\u2029]/g, js: /[\u0000-\u001f"\\]/g };
/** Escapes two characters long (Go writes \b and \f as \u0008 and \u000c). */
const short = { go: '"\\\n\r\t', js: '"\\\n\r\t\b\f' };

/** The encoded length of a string, quotes included (a lone surrogate counts 3 bytes, at most what it takes). */
function stringSize(s: string, enc: JsonEncoder): number {
  if (!special[enc].test(s)) return s.length + 2;
  let n = Buffer.byteLength(s, 'utf8') + 2;
  for (const [c] of s.matchAll(escaped[enc])) {
    if (short[enc].includes(c)) n += 1;
    else if (c === '\u2028' || c === '\u2029') n += 3; // three UTF-8 bytes become `\u2028`
    else n += 5; // `<` or a control character becomes `\u003c`
  }
  return n;
}

function scalarSize(v: unknown, enc: JsonEncoder): number {
  if (typeof v === 'string') return stringSize(v, enc);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v).length : 4;
  if (typeof v === 'boolean') return v ? 4 : 5;
  return 4; // null
}

/**
 * The encoded size of `value` if it is at most `bound` bytes; otherwise some number above `bound`, found without
 * walking the rest of the value. Members holding `undefined` count as absent, as JSON.stringify leaves them out.
 * `known` may give the size of a container already counted, which is then not walked again.
 */
export function jsonSizeUpTo(value: unknown, bound: number, enc: JsonEncoder = 'go', known?: (v: object) => number | undefined): number {
  let size = 0;
  const work: unknown[] = [value];
  while (work.length) {
    const v = work.pop();
    const counted = known && typeof v === 'object' && v !== null ? known(v) : undefined;
    if (counted !== undefined) size += counted;
    else if (Array.isArray(v)) {
      size += 2 + Math.max(0, v.length - 1);
      if (size > bound) return size;
      for (let i = v.length - 1; i >= 0; i--) work.push(v[i] === undefined ? null : v[i]);
    } else if (isRecord(v)) {
      let members = 0;
      for (const k of Object.keys(v)) {
        const m = v[k];
        if (m === undefined) continue;
        members++;
        size += stringSize(k, enc) + 1;
        if (size > bound) return size;
        work.push(m);
      }
      size += 2 + Math.max(0, members - 1);
    } else size += scalarSize(v, enc);
    if (size > bound) return size;
  }
  return size;
}
