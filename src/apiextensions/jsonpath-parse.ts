// Parsing of client-go JSONPath templates (see jsonpath.ts): a hand-written scanner with the same token rules as
// upstream's parser, producing the node tree jsonpath.ts evaluates. Bounded: template length and nesting.

import { hasOwn } from '../util/own.js';

/** A template that does not parse, or an evaluation that fails (upstream: an error from Parse or FindResults). */
export class JsonPathError extends Error {}

export type Node =
  | { t: 'text'; text: string }
  | { t: 'field'; name: string }
  | { t: 'wildcard' }
  | { t: 'recursive' }
  | { t: 'array'; start?: number; end?: number; derivedEnd: boolean; step?: number }
  | { t: 'union'; lists: Node[][] }
  | { t: 'filter'; left: Node[]; right: Node[]; op: string }
  | { t: 'int'; value: number }
  | { t: 'float'; value: number }
  | { t: 'bool'; value: boolean }
  | { t: 'ident'; name: string };

/** A top-level piece of a template: literal text or an action `{...}`. */
export type Segment = { t: 'text'; text: string } | { t: 'action'; nodes: Node[] };

/** Bounds on what one template may cost. */
export const maxTemplateLength = 4096;
const maxNesting = 32;

const isDigit = (c: string) => c >= '0' && c <= '9';
const isAlnum = (c: string) => c === '_' || /^[\p{L}\p{Nd}]$/u.test(c);
const isTerminator = (c: string) => c === '' || ' \t\r\n.,[]$@{}'.includes(c);
const sliceRe = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const filterRe = /^([^!<>=]+)([!<>=]+)(.+?)$/s;

export class Parser {
  private pos = 0;
  constructor(private readonly input: string, private readonly nesting: number) {
    if (nesting > maxNesting) throw new JsonPathError('template nests too deeply');
  }

  private peek(off = 0): string {
    return this.input.charAt(this.pos + off);
  }

  parseTemplate(): Segment[] {
    const out: Segment[] = [];
    let textStart = 0;
    while (this.pos < this.input.length) {
      if (this.peek() === '{') {
        if (this.pos > textStart) out.push({ t: 'text', text: this.input.slice(textStart, this.pos) });
        this.pos++;
        out.push({ t: 'action', nodes: this.parseAction() });
        textStart = this.pos;
      } else this.pos++;
    }
    if (this.pos > textStart) out.push({ t: 'text', text: this.input.slice(textStart) });
    return out;
  }

  /** Nodes up to the closing `}` (consumed). */
  private parseAction(): Node[] {
    const nodes: Node[] = [];
    for (;;) {
      const rest = this.input.slice(this.pos, this.pos + 3);
      if (rest.startsWith('}')) {
        this.pos++;
        return nodes;
      }
      if (rest === '[?(') {
        nodes.push(this.parseFilter());
        continue;
      }
      if (rest.startsWith('..')) {
        if (nodes.length > 0 && nodes[nodes.length - 1].t === 'recursive') throw new JsonPathError('invalid multiple recursive descent');
        this.pos += 2;
        nodes.push({ t: 'recursive' });
        if (isAlnum(this.peek())) nodes.push(this.parseField());
        continue;
      }
      const c = this.peek();
      if (c === '' || c === '\r' || c === '\n') throw new JsonPathError('unclosed action');
      if (c === ' ' || c === '@' || c === '$') {
        this.pos++;
      } else if (c === '[') {
        nodes.push(...this.parseArray());
      } else if (c === '"' || c === "'") {
        nodes.push({ t: 'text', text: this.parseQuote(c) });
      } else if (c === '.') {
        this.pos++;
        nodes.push(this.parseField());
      } else if (c === '+' || c === '-' || isDigit(c)) {
        nodes.push(this.parseNumber());
      } else if (isAlnum(c)) {
        const start = this.pos;
        while (!isTerminator(this.peek())) this.pos++;
        const word = this.input.slice(start, this.pos);
        nodes.push(word === 'true' || word === 'false' ? { t: 'bool', value: word === 'true' } : { t: 'ident', name: word });
      } else {
        throw new JsonPathError(`unrecognized character in action: U+${c.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')} '${c}'`);
      }
    }
  }

  private parseField(): Node {
    let name = '';
    for (;;) {
      const c = this.peek();
      if (c === '\\') {
        name += this.peek(1);
        this.pos += 2;
      } else if (isTerminator(c)) break;
      else {
        name += c;
        this.pos++;
      }
    }
    return name === '*' ? { t: 'wildcard' } : { t: 'field', name };
  }

  private parseNumber(): Node {
    const start = this.pos;
    if (this.peek() === '+' || this.peek() === '-') this.pos++;
    while (this.peek() === '.' || isDigit(this.peek())) this.pos++;
    const text = this.input.slice(start, this.pos);
    if (/^[+-]?\d+$/.test(text)) return { t: 'int', value: Number(text) };
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text)) return { t: 'float', value: Number(text) };
    throw new JsonPathError(`cannot parse number ${text}`);
  }

  private parseQuote(quote: string): string {
    const start = this.pos;
    this.pos++;
    for (;;) {
      const c = this.peek();
      if (c === '' || c === '\n') throw new JsonPathError('unterminated quoted string');
      this.pos++;
      if (c === quote && this.input.charAt(this.pos - 2) !== '\\') break;
    }
    return unquote(this.input.slice(start, this.pos));
  }

  private parseArray(): Node[] {
    const start = this.pos;
    for (;;) {
      const c = this.peek();
      if (c === '' || c === '\n') throw new JsonPathError('unterminated array');
      this.pos++;
      if (c === ']') break;
    }
    let text = this.input.slice(start + 1, this.pos - 1);
    if (text === '*') text = ':';
    const parts = text.split(',');
    if (parts.length > 1) {
      return [{ t: 'union', lists: parts.map((p) => this.sub(`[${p.trim()}]`)) }];
    }
    const key = /^'([^']*)'$/.exec(text);
    if (key) return this.sub(`.${key[1]}`);
    const m = sliceRe.exec(text);
    if (!m) throw new JsonPathError(`invalid array index ${text}`);
    const num = (s: string) => {
      const n = Number(s);
      if (!Number.isSafeInteger(n)) throw new JsonPathError(`array index ${s} is not a number`);
      return n;
    };
    const start0 = m[1] !== '' ? num(m[1]) : undefined;
    let end: number | undefined;
    let derivedEnd = false;
    if (m[2] === undefined) {
      end = (start0 ?? 0) + 1;
      derivedEnd = true;
    } else if (m[2].length > 1) end = num(m[2].slice(1));
    const step = m[3] !== undefined && m[3].length > 1 ? num(m[3].slice(1)) : undefined;
    return [{ t: 'array', start: start0, end, derivedEnd, step }];
  }

  /** Parses `text` as the inside of one action, as upstream's parseAction does for unions, keys and filters. */
  private sub(text: string): Node[] {
    const segs = new Parser(`{${text}}`, this.nesting + 1).parseTemplate();
    const first = segs[0];
    return first && first.t === 'action' ? first.nodes : [];
  }

  private parseFilter(): Node {
    this.pos += 3;
    const start = this.pos;
    let begin = false;
    let end = false;
    let pair = '';
    for (;;) {
      const c = this.peek();
      if (c === '' || c === '\n') throw new JsonPathError('unterminated filter');
      this.pos++;
      if (c === '"' || c === "'") {
        if (!begin) {
          begin = true;
          pair = c;
        } else if (this.input.charAt(this.pos - 2) !== '\\' && c === pair) end = true;
      } else if (c === ')' && begin === end) break;
    }
    if (this.peek() !== ']') throw new JsonPathError('unclosed array expect ]');
    this.pos++;
    const text = this.input.slice(start, this.pos - 2);
    const m = filterRe.exec(text);
    if (!m) return { t: 'filter', left: this.sub(text), right: [], op: 'exists' };
    return { t: 'filter', left: this.sub(m[1]), right: this.sub(m[3]), op: m[2] };
  }
}

/** strconv.Unquote extended to single-quoted strings (upstream's UnquoteExtend), for the escapes JSON knows. */
function unquote(s: string): string {
  const body = s.slice(1, -1);
  if (!body.includes('\\')) return body;
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = body[++i] ?? '';
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", a: '\x07', b: '\b', f: '\f', v: '\v' };
    if (hasOwn(simple, n)) out += simple[n];
    else if (n === 'u' && /^[0-9a-fA-F]{4}$/.test(body.slice(i + 1, i + 5))) {
      out += String.fromCharCode(parseInt(body.slice(i + 1, i + 5), 16));
      i += 4;
    } else if (n === 'x' && /^[0-9a-fA-F]{2}$/.test(body.slice(i + 1, i + 3))) {
      out += String.fromCharCode(parseInt(body.slice(i + 1, i + 3), 16));
      i += 2;
    } else throw new JsonPathError(`unquote string ${s} error invalid syntax`);
  }
  return out;
}

// ---- evaluation ----

/** A decoded JSON value; null stands for a nil interface. */
