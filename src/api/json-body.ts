// JSON request bodies: a linear bracket scan refuses nesting deeper than Go's decoder takes (10,000 levels), then
// JSON.parse (which does not recurse), then, where a number may be too large for a float64, one pass over the result
// (JSON.parse turns such numbers into Infinity, which would be stored as null).
import { jsonTooDeep, maxJsonDepth } from '../machinery/depth-limits.js';

/** Finds, in JSON text, the first number literal that does not fit a float64 (JSON.parse makes it Infinity). */
function overflowingNumber(text: string): string {
  const re = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      re.lastIndex = i;
      const m = re.exec(text);
      if (m && m.index === i) {
        if (!Number.isFinite(Number(m[0]))) return m[0];
        i += m[0].length - 1;
      }
    }
  }
  return '';
}

/**
 * Where brackets outside strings first nest deeper than `maxDepth`: the bracket's kind, or undefined. A linear scan
 * run before JSON.parse, which takes seconds over a million nested brackets before anything could refuse them.
 */
export function bracketDepthExceeded(text: string, maxDepth: number): 'object' | 'array' | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return c === 0x5b ? 'array' : 'object';
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return undefined;
}

/** A body that does not decode; `message` is the decoder's own text, callers add their context. */
export class DecodeError extends Error {}

function check(value: unknown, text: string, maxDepth: number): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new DecodeError(`json: cannot unmarshal number ${overflowingNumber(text) || String(value)} into Go value of type float64`);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const work: [unknown, number][] = [[value, 1]];
  while (work.length) {
    const [v, depth] = work.pop()!;
    if (depth > maxDepth) throw new DecodeError(jsonTooDeep(Array.isArray(v) ? 'array' : 'object'));
    for (const c of Array.isArray(v) ? v : Object.values(v as object)) {
      if (typeof c === 'object' && c !== null) work.push([c, depth + 1]);
      else if (typeof c === 'number' && !Number.isFinite(c)) {
        throw new DecodeError(`json: cannot unmarshal number ${overflowingNumber(text) || String(c)} into Go value of type float64`);
      }
    }
  }
}

/** A number literal that could be too large for a float64 (conservative: strings may match too). */
const mayOverflow = /\d{309}|[eE]\+?\d{3}/;

/** Parses JSON text; throws DecodeError with encoding/json-like wording. */
export function decodeJson(text: string, maxDepth = maxJsonDepth): unknown {
  if (text.length > 2 * maxDepth) {
    const deep = bracketDepthExceeded(text, maxDepth);
    if (deep) throw new DecodeError(jsonTooDeep(deep));
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    throw new DecodeError((e as Error).message);
  }
  // Nesting was bounded above; without a long digit run or a 3-digit exponent no number overflows: most bodies need
  // no second pass.
  if (mayOverflow.test(text)) check(value, text, maxDepth);
  return value;
}
