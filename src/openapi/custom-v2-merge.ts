// Merges custom resources into the static v2 document without parsing it: their definitions and paths are
// spliced in before the closing braces of the top-level `definitions` and `paths` objects (found once by a
// scan that skips strings and nesting). Keys already in the static document are never shadowed: a custom
// definition or path with a static name is left out.
import type { OpenApiSchema } from './schema-types.js';

interface Span {
  /** Index of the value's closing `}`. */
  end: number;
  /** True when the object has no members. */
  empty: boolean;
  /** Its member keys (the top-level objects we splice into). */
  keys: Set<string>;
}

let scanned: { source: Buffer; text: string; spans: Map<string, Span> } | undefined;

/** Closing-brace offsets and member keys of the top-level object values named in `wanted`. */
export function topLevelObjects(t: string, wanted: string[]): Map<string, Span> {
  const out = new Map<string, Span>();
  let depth = 0;
  let atKey = false;
  let key: string | undefined;
  let current: { name: string; keys: Set<string>; empty: boolean } | undefined;
  let memberKeyNext = false;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c === 34) {
      let j = i + 1;
      for (;;) {
        j = t.indexOf('"', j);
        if (j < 0) return out;
        let n = 0;
        for (let b = j - 1; t.charCodeAt(b) === 92; b--) n++;
        if (n % 2 === 0) break;
        j++;
      }
      if (depth === 1 && atKey) {
        key = JSON.parse(t.slice(i, j + 1)) as string;
        atKey = false;
      } else if (depth === 2 && current && memberKeyNext) {
        current.keys.add(JSON.parse(t.slice(i, j + 1)) as string);
        current.empty = false;
        memberKeyNext = false;
      }
      i = j;
    } else if (c === 123 || c === 91) {
      depth++;
      if (depth === 1) atKey = true;
      else if (depth === 2 && c === 123 && key !== undefined && wanted.includes(key)) {
        current = { name: key, keys: new Set(), empty: true };
        memberKeyNext = true;
      }
    } else if (c === 125 || c === 93) {
      if (depth === 2 && current) {
        out.set(current.name, { end: i, empty: current.empty, keys: current.keys });
        current = undefined;
      }
      depth--;
    } else if (c === 44) {
      if (depth === 1) atKey = true;
      else if (depth === 2 && current) memberKeyNext = true;
    }
  }
  return out;
}

function members(obj: Record<string, unknown>, skip: Set<string>): string {
  const parts: string[] = [];
  for (const k of Object.keys(obj)) if (!skip.has(k)) parts.push(`${JSON.stringify(k)}:${JSON.stringify(obj[k])}`);
  return parts.join(',');
}

/** The static v2 document with the custom definitions and paths added. */
export function spliceV2(base: Buffer, parts: { definitions: Record<string, OpenApiSchema>; paths: Record<string, unknown> }): Buffer {
  if (scanned?.source !== base) {
    const text = base.toString('utf8');
    scanned = { source: base, text, spans: topLevelObjects(text, ['definitions', 'paths']) };
  }
  const { text, spans } = scanned;
  const inserts: Array<[number, string]> = [];
  for (const [name, obj] of [['definitions', parts.definitions], ['paths', parts.paths]] as const) {
    const span = spans.get(name);
    if (!span) continue;
    const m = members(obj, span.keys);
    if (m) inserts.push([span.end, span.empty ? m : `,${m}`]);
  }
  inserts.sort((a, b) => a[0] - b[0]);
  const chunks: string[] = [];
  let at = 0;
  for (const [pos, s] of inserts) {
    chunks.push(text.slice(at, pos), s);
    at = pos;
  }
  chunks.push(text.slice(at));
  return Buffer.from(chunks.join(''), 'utf8');
}
