// YAML request bodies. The yaml library composes documents recursively, so nesting is measured first: flow
// brackets by a quick scan (its parser slows down badly on thousands of nested brackets), then every
// collection on the parser's concrete syntax tree, which it builds without recursion, where aliases and anchors
// are counted too. Only then is the document composed (large bodies in a worker thread: body-off-thread.ts). The result is copied into plain JSON data: aliases expanded (within limits, as go-yaml
// limits them), cycles refused, `!!binary` as a string, non-finite numbers refused as JSON cannot carry them.
import { decodeJson } from './json-body.js';
import type { CST, LineCounter as LineCounterType } from 'yaml';
import { yaml } from '../util/yaml.js';
import { setOwn } from '../util/own.js';
import { maxYamlDepth } from '../machinery/depth-limits.js';
import { DecodeError } from './json-body.js';

const tooDeep = (line: number) => new DecodeError(`yaml: line ${line}: exceeded max depth of ${maxYamlDepth}`);

/** Bracket nesting outside quotes and comments: a cheap upper bound on flow nesting. */
function flowDepthExceeded(text: string, limit: number): number {
  let depth = 0;
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line++;
    else if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === '\\') i++;
        else if (text[i] === '\n') line++;
      }
    } else if (c === "'") {
      for (i++; i < text.length && text[i] !== "'"; i++) if (text[i] === '\n') line++;
    } else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]))) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else if (c === '[' || c === '{') {
      if (++depth > limit) return line;
    } else if ((c === ']' || c === '}') && depth > 0) depth--;
  }
  return 0;
}

type Token = CST.Token;

/**
 * Aliases and anchors a document may hold. The yaml library resolves each alias by a scan over every alias and
 * anchor before it (quadratic: 100,000 aliases take minutes); go-yaml bounds what aliases expand to instead, a bound
 * toJsonTree applies as well. These counts are far above what manifests use.
 */
export const maxYamlAliases = 1_000;
export const maxYamlAnchors = 10_000;
const excessiveAliasing = () => new DecodeError('yaml: document contains excessive aliasing');

/** Collection nesting and alias and anchor counts on the concrete syntax tree; throws at the first excess. */
function checkTree(tokens: Token[], lines: LineCounterType, limit: number): void {
  let aliases = 0;
  let anchors = 0;
  const props = (list: readonly { type: string }[] | undefined) => {
    for (const p of list ?? []) if (p.type === 'anchor' && ++anchors > maxYamlAnchors) throw excessiveAliasing();
  };
  const work: [Token, number][] = tokens.map((t) => [t, 0]);
  while (work.length) {
    const [t, depth] = work.pop()!;
    const push = (child: Token | null | undefined, d: number) => {
      if (child) work.push([child, d]);
    };
    switch (t.type) {
      case 'document':
        props(t.start);
        push(t.value, depth);
        break;
      case 'alias':
        if (++aliases > maxYamlAliases) throw excessiveAliasing();
        break;
      case 'block-scalar':
        props(t.props);
        break;
      case 'block-map':
      case 'block-seq':
      case 'flow-collection': {
        if (depth + 1 > limit) throw tooDeep(lines.linePos(t.offset).line);
        for (const item of t.items) {
          props(item.start);
          if ('sep' in item) props(item.sep);
          push(item.key, depth + 1);
          push(item.value, depth + 1);
        }
        break;
      }
      default:
        break;
    }
  }
}

// go-yaml's bound on alias expansion: up to 99% of a small document may come from aliases, 10% of a large one.
function allowedAliasRatio(nodes: number): number {
  if (nodes <= 400_000) return 0.99;
  if (nodes >= 4_000_000) return 0.1;
  return 0.99 - 0.89 * ((nodes - 400_000) / 3_600_000);
}

interface Item {
  src: object;
  dst: object;
  depth: number;
  parent?: Item;
  aliased: boolean;
}

/** Copies the composed value into a tree of plain JSON data. */
function toJsonTree(value: unknown): unknown {
  const seen = new Set<object>();
  let nodes = 0;
  let aliasedNodes = 0;
  const leaf = (v: unknown): unknown => {
    if (typeof v === 'number' && !Number.isFinite(v)) {
      throw new DecodeError(`json: unsupported value: ${Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf'}`);
    }
    if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8');
    if (typeof v === 'bigint') return Number(v);
    if (v instanceof Date) return v.toISOString();
    return v;
  };
  const isContainer = (v: unknown): v is object => typeof v === 'object' && v !== null && !(v instanceof Uint8Array) && !(v instanceof Date);
  const start = (src: object, parent: Item | undefined, work: Item[]): object => {
    const aliased = (parent?.aliased ?? false) || seen.has(src);
    if (seen.has(src)) {
      for (let a: Item | undefined = parent; a; a = a.parent) if (a.src === src) throw new DecodeError('yaml: anchor value contains itself');
    }
    seen.add(src);
    const depth = (parent?.depth ?? 0) + 1;
    if (depth > maxYamlDepth) throw new DecodeError(`yaml: exceeded max depth of ${maxYamlDepth}`);
    const dst = Array.isArray(src) ? [] : {};
    work.push({ src, dst, depth, parent, aliased });
    return dst;
  };
  const count = (aliased: boolean) => {
    nodes++;
    if (aliased) aliasedNodes++;
    if (aliasedNodes > 100 && nodes > 1000 && aliasedNodes / nodes > allowedAliasRatio(nodes)) throw new DecodeError('yaml: document contains excessive aliasing');
  };
  if (!isContainer(value)) return leaf(value);
  const work: Item[] = [];
  const root = start(value, undefined, work);
  while (work.length) {
    const item = work.pop()!;
    const entries: [string, unknown][] = item.src instanceof Map
      ? [...item.src.entries()].map(([k, v]) => [String(k), v])
      : item.src instanceof Set ? [...item.src].map((v, i) => [String(i), v]) : Object.entries(item.src);
    for (const [k, v] of entries) {
      count(item.aliased);
      const out = isContainer(v) ? start(v, item, work) : leaf(v);
      if (Array.isArray(item.dst)) item.dst.push(out);
      else setOwn(item.dst, k, out);
    }
  }
  return root;
}

/**
 * Parses the first YAML document of `text` into JSON data, as go-yaml's Unmarshal does (later documents are
 * ignored; `<<` merge keys are honoured); throws DecodeError with line and column where the library gives them.
 */
export function decodeYaml(text: string): unknown {
  // JSON is YAML: clients (kubectl apply --server-side) mostly send JSON, which JSON.parse reads far faster.
  if (/^\s*\{/.test(text)) {
    try {
      return decodeJson(text, maxYamlDepth);
    } catch {
      // Not JSON after all (or too deep): the YAML parser decides, in its words.
    }
  }
  const lib = yaml();
  const bracketLine = flowDepthExceeded(text, maxYamlDepth);
  if (bracketLine) throw tooDeep(bracketLine);
  const lines = new lib.LineCounter();
  const tokens = [...new lib.Parser(lines.addNewLine).parse(text)];
  checkTree(tokens, lines, maxYamlDepth);
  const where = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return ` at line ${line}, column ${col}`;
  };
  // logLevel 'error': problems are reported, warnings (unresolved tags, stringified keys) are not printed.
  const options = { maxAliasCount: 100, logLevel: 'error', merge: true } as const;
  let value: unknown = null;
  for (const doc of new lib.Composer(options).compose(tokens, true, text.length)) {
    const error = doc.errors[0];
    if (error) throw new DecodeError(`${error.message.split('\n')[0]}${where(error.pos[0])}`);
    try {
      value = doc.toJS({ maxAliasCount: 100 }) as unknown;
    } catch (e) {
      throw new DecodeError((e as Error).message.split('\n')[0]);
    }
    break;
  }
  return toJsonTree(value);
}
