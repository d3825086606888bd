// Reading a number out of a JSON response as the metrics-api scaler does with GJSON: a dotted path (`a.b.c`,
// `\.` escapes a dot), numeric components index arrays, `#` is an array's length. A number is the value; a string
// must parse as a Kubernetes quantity. Hostile responses: the body is bounded by the caller, JSON.parse keeps
// `__proto__` as an own key, lookups read own properties only, and paths have a bounded number of components.
import { getOwn } from '../../util/own.js';

export const maxPathComponents = 64;

const binarySuffix: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const decimalSuffix: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** A quantity string's value (`1500m` -> 1.5, `2Ki` -> 2048), or undefined when it is not one. */
export function parseQuantityString(s: string): number | undefined {
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/.exec(s.trim());
  if (!m || s.length > 64) return undefined;
  const base = Number(m[1] + (m[2] ?? ''));
  const unit = m[3] ?? '';
  const mult = binarySuffix[unit] ?? decimalSuffix[unit];
  const v = base * (mult ?? 1);
  return Number.isFinite(v) ? v : undefined;
}

/** Splits a GJSON-like path on unescaped dots. */
export function splitPath(path: string): string[] {
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (c === '\\' && i + 1 < path.length) {
      cur += path[++i];
    } else if (c === '.') {
      parts.push(cur);
      cur = '';
    } else cur += c;
  }
  parts.push(cur);
  return parts;
}

type GType = 'Null' | 'False' | 'Number' | 'String' | 'True' | 'JSON';

function typeName(v: unknown): GType {
  if (v === undefined || v === null) return 'Null';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return 'Number';
  if (typeof v === 'string') return 'String';
  return 'JSON';
}

/** The value at `path` in a parsed JSON document (undefined when absent). */
export function lookup(doc: unknown, path: string): unknown {
  const parts = splitPath(path);
  if (parts.length > maxPathComponents) return undefined;
  let cur: unknown = doc;
  for (const p of parts) {
    if (Array.isArray(cur)) {
      if (p === '#') cur = cur.length;
      else if (/^\d{1,9}$/.test(p)) cur = cur[Number(p)];
      else return undefined;
    } else if (cur !== null && typeof cur === 'object') {
      cur = getOwn(cur, p);
    } else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** The metrics-api scaler's reading of a JSON body; throws upstream's errors. */
export function valueFromJson(body: string, valueLocation: string): number {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    doc = undefined; // GJSON finds nothing in text that is not JSON: the value is Null.
  }
  const v = lookup(doc, valueLocation);
  if (typeof v === 'string') {
    const q = parseQuantityString(v);
    if (q === undefined) throw new Error(`valueLocation ${JSON.stringify(valueLocation)} points to a string that is not parseable as a Quantity`);
    return q;
  }
  if (typeof v !== 'number') throw new Error(`valueLocation ${JSON.stringify(valueLocation)} must point to a numeric value or a string parseable as a Quantity, got ${typeName(v)}`);
  return v;
}
