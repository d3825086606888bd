// The syntax error Go's encoding/json reports for malformed JSON (`invalid character 'x' looking for beginning of
// value`, `unexpected end of JSON input`), found by a scanner with the same states as Go's. Iterative, and like Go's
// scanner it gives up past 10,000 levels of nesting.
import { jsonTooDeep, maxJsonDepth } from '../machinery/depth-limits.js';

type Step = (c: number) => Step | string;

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** quoteChar: the offending byte between single quotes, escaped as strconv.Quote escapes it. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x5c: '\\\\' };
  if (named[c]) return `'${named[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  if (c >= 0x80 && c < 0xa0) return `'\\u${c.toString(16).padStart(4, '0')}'`;
  if (c === 0xad) return "'\\u00ad'";
  return `'${String.fromCharCode(c)}'`;
}

const fail = (c: number, context: string) => `invalid character ${quoteChar(c)} ${context}`;

/** The error Go reports for `bytes`, or undefined when they are one well-formed JSON value. */
export function goJsonSyntaxError(bytes: Uint8Array): string | undefined {
  // What follows a complete value: 'o' after an object key, 'v' after a member's value, 'a' after an array element.
  const stack: Array<'o' | 'v' | 'a'> = [];

  const endValue = (c: number): Step | string => {
    const top = stack[stack.length - 1];
    if (top === undefined) return isSpace(c) ? endTop : fail(c, 'after top-level value');
    if (isSpace(c)) return endValue;
    if (top === 'o') {
      if (c === 0x3a) {
        stack[stack.length - 1] = 'v';
        return beginValue;
      }
      return fail(c, 'after object key');
    }
    if (top === 'v') {
      if (c === 0x2c) {
        stack[stack.length - 1] = 'o';
        return beginString;
      }
      if (c === 0x7d) {
        stack.pop();
        return endValue;
      }
      return fail(c, 'after object key:value pair');
    }
    if (c === 0x2c) return beginValue;
    if (c === 0x5d) {
      stack.pop();
      return endValue;
    }
    return fail(c, 'after array element');
  };
  const endTop: Step = (c) => (isSpace(c) ? endTop : fail(c, 'after top-level value'));

  const literal = (word: string, i: number): Step => (c) => {
    if (c !== word.charCodeAt(i)) return fail(c, `in literal ${word} (expecting ${quoteChar(word.charCodeAt(i))})`);
    return i + 1 === word.length ? endValue : literal(word, i + 1);
  };

  const inString: Step = (c) => {
    if (c === 0x22) return endValue;
    if (c === 0x5c) return inEscape;
    if (c < 0x20) return fail(c, 'in string literal');
    return inString;
  };
  const inEscape: Step = (c) => {
    if ([0x62, 0x66, 0x6e, 0x72, 0x74, 0x5c, 0x2f, 0x22].includes(c)) return inString;
    if (c === 0x75) return hex(0);
    return fail(c, 'in string escape code');
  };
  const hex = (n: number): Step => (c) => {
    if (!isHex(c)) return fail(c, 'in \\u hexadecimal character escape');
    return n === 3 ? inString : hex(n + 1);
  };

  const afterDigits = (c: number): Step | string => {
    if (c === 0x2e) return dot;
    if (c === 0x65 || c === 0x45) return exponent;
    return endValue(c);
  };
  const neg: Step = (c) => (c === 0x30 ? zero : c >= 0x31 && c <= 0x39 ? digits : fail(c, 'in numeric literal'));
  const zero: Step = (c) => afterDigits(c);
  const digits: Step = (c) => (isDigit(c) ? digits : afterDigits(c));
  const dot: Step = (c) => (isDigit(c) ? fraction : fail(c, 'after decimal point in numeric literal'));
  const fraction: Step = (c) => (isDigit(c) ? fraction : c === 0x65 || c === 0x45 ? exponent : endValue(c));
  const exponent: Step = (c) => (c === 0x2b || c === 0x2d ? expSign : isDigit(c) ? expDigits : fail(c, 'in exponent of numeric literal'));
  const expSign: Step = (c) => (isDigit(c) ? expDigits : fail(c, 'in exponent of numeric literal'));
  const expDigits: Step = (c) => (isDigit(c) ? expDigits : endValue(c));

  const beginValue: Step = (c) => {
    if (isSpace(c)) return beginValue;
    switch (c) {
      case 0x7b: return stack.push('o') > maxJsonDepth ? jsonTooDeep('object') : beginStringOrEmpty;
      case 0x5b: return stack.push('a') > maxJsonDepth ? jsonTooDeep('array') : beginValueOrEmpty;
      case 0x22: return inString;
      case 0x2d: return neg;
      case 0x30: return zero;
      case 0x74: return literal('true', 1);
      case 0x66: return literal('false', 1);
      case 0x6e: return literal('null', 1);
      default: return c >= 0x31 && c <= 0x39 ? digits : fail(c, 'looking for beginning of value');
    }
  };
  const beginValueOrEmpty: Step = (c) => {
    if (isSpace(c)) return beginValueOrEmpty;
    if (c === 0x5d) {
      stack.pop();
      return endValue;
    }
    return beginValue(c);
  };
  const beginString: Step = (c) => {
    if (isSpace(c)) return beginString;
    return c === 0x22 ? inString : fail(c, 'looking for beginning of object key string');
  };
  const beginStringOrEmpty: Step = (c) => {
    if (isSpace(c)) return beginStringOrEmpty;
    if (c === 0x7d) {
      stack.pop();
      return endValue;
    }
    return beginString(c);
  };

  let step: Step = beginValue;
  for (const c of bytes) {
    const next = step(c);
    if (typeof next === 'string') return next;
    step = next;
  }
  // A number at the very end is complete; anything else short of a finished value is cut off.
  const complete = step === endTop || step === endValue || step === zero || step === digits || step === fraction || step === expDigits;
  if (complete && stack.length === 0) return undefined;
  return 'unexpected end of JSON input';
}
