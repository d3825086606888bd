// A rule's `fieldPath` (`.spec.foo`, `.labels['x.y/z']`) checked against the schema and turned into the suffix
// appended to the node's field path (`.foo`, `[x.y/z]`), as upstream's ValidFieldPath does.
import type { SchemaView } from '../cel/schema-view.js';

function unescapeQuoted(s: string): string | undefined {
  let bad = false;
  const out = s.replace(/\\(.)/g, (_m, c: string) => {
    const map: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };
    if (!(c in map)) bad = true;
    return map[c] ?? '';
  });
  return bad ? undefined : out;
}

export function resolveFieldPath(path: string, view: SchemaView): string | { error: string } {
  let out = '';
  let s: SchemaView | undefined = view;
  let i = 0;
  const step = (name: string): string | undefined => {
    if (!s) return 'does not refer to a valid field';
    if (s.properties) {
      const next = s.properties.get(name);
      if (!next) return 'does not refer to a valid field';
      out += `.${name}`;
      s = next;
    } else if (s.additionalProperties) {
      out += `[${name}]`;
      s = s.additionalProperties;
    } else return 'does not refer to a valid field';
    return undefined;
  };
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      let j = i + 1;
      while (j < path.length && !'.[]'.includes(path[j])) j++;
      if (j === i + 1) return { error: 'unexpected end of JSON path' };
      const e = step(path.slice(i + 1, j));
      if (e) return { error: e };
      i = j;
    } else if (c === '[') {
      if (path[i + 1] !== "'") return { error: `expected single quoted string but got ${path.slice(i + 1).split(']')[0]}` };
      let j = i + 2;
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== '\\')) j++;
      const name = unescapeQuoted(path.slice(i + 2, j));
      if (name === undefined) return { error: 'invalid string literal' };
      if (path[j + 1] !== ']') return { error: 'expected ] but got end of path' };
      const e = step(name);
      if (e) return { error: e };
      i = j + 2;
    } else return { error: `expected [ or . but got: ${path.slice(i)}` };
  }
  return out;
}
