// Go's fmt renderings of decoded JSON values, for error texts that upstream builds with %v, %+v, %#v, %T and %q.
// Values are what Go's decoders produce: objects are map[string]interface{}, arrays []interface{}, numbers int64
// (`ints`: integers, as the apiserver's PreserveInts decoding keeps them) or float64.
import { goQuote } from '../machinery/go-quote.js';

/** %q of a string (strconv.Quote); re-exported for the callers that format values here. */
export { goQuote };

const maxDepth = 64;

/** strconv.FormatFloat(v, 'g', -1, 64), which %v uses for a float64: shortest digits, exponent form below 1e-4 and from 1e6. */
export function goFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const [mantissa, expText] = v.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const digits = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : String(Math.abs(exp));
    return `${mantissa}e${exp < 0 ? '-' : '+'}${digits}`;
  }
  return String(v);
}

function number(v: number, ints: boolean): string {
  return ints && Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER ? String(v) : goFloat(v);
}

/** %v (and %+v, the same for these values): `map[a:1 b:[x y]]`, strings unquoted, keys sorted. */
export function goValue(v: unknown, ints = false, depth = 0): string {
  if (depth > maxDepth) return '...';
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return number(v, ints);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map((x) => goValue(x, ints, depth + 1)).join(' ')}]`;
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${entries.map(([k, x]) => `${k}:${goValue(x, ints, depth + 1)}`).join(' ')}]`;
  }
  return String(v);
}

/** %#v: `map[string]interface {}{"a":1}`, `[]interface {}{"x", true}`, quoted strings. */
export function goSharpValue(v: unknown, ints = false, depth = 0): string {
  if (depth > maxDepth) return '...';
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return number(v, ints);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map((x) => goSharpValue(x, ints, depth + 1)).join(', ')}}`;
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[string]interface {}{${entries.map(([k, x]) => `${goQuote(k)}:${goSharpValue(x, ints, depth + 1)}`).join(', ')}}`;
  }
  return String(v);
}

/** %T of a decoded JSON value. */
export function goTypeName(v: unknown, ints = false): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return ints && Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

/** reflect.Kind of a decoded JSON value, as the unstructured converter names it. */
export function goKind(v: unknown, ints = false): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return ints && Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'slice' : 'map';
}

/** The JSON type of a non-null value as encoding/json names it in `json: cannot unmarshal <kind> into ...`. */
export function jsonKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'array' : 'object';
}

/** json.Marshal of a decoded value: map keys sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped as Go escapes them. */
export function goJsonMarshal(v: unknown): string {
  const sorted = (x: unknown, depth: number): unknown => {
    if (depth > maxDepth || x === null || typeof x !== 'object') return x;
    if (Array.isArray(x)) return x.map((e) => sorted(e, depth + 1));
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const k of Object.keys(x as Record<string, unknown>).sort()) out[k] = sorted((x as Record<string, unknown>)[k], depth + 1);
    return out;
  };
  return escapeHtml(JSON.stringify(sorted(v, 0)));
}

const htmlEscapes: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** JSON text with `<`, `>`, `&`, U+2028 and U+2029 escaped as Go's encoder escapes them (its HTML-safe output). */
export function escapeHtml(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (c) => htmlEscapes[c]);
}
