// The JSONPath templates of client-go's util/jsonpath, as CRD printer columns and selectable fields use them:
// `{.spec.replicas}`, `{.status.conditions[?(@.type=="Ready")].status}`, `{.spec.items[0].name}`, `{.items[*]}`,
// `{['a.b']}`, `{..name}`, unions `[0,2]` and slices `[1:3:2]`. A template is compiled once into a small node
// tree and evaluated over decoded JSON with missing keys allowed (as the table convertor asks). Evaluation is
// bounded (result count, recursion depth) and reads only own properties. `range`/`end` blocks are not supported.
import { hasOwn } from '../util/own.js';
import { maxObjectDepth } from '../machinery/depth-limits.js';

/** A template that does not parse, or an evaluation that fails (upstream: an error from Parse or FindResults). */
export class JsonPathError extends Error {}

type Node =
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
type Segment = { t: 'text'; text: string } | { t: 'action'; nodes: Node[] };

/** Bounds on what one template and one evaluation may cost. */
const maxTemplateLength = 4096;
const maxResults = 10_000;
const maxNesting = 32;

export interface CompiledJsonPath {
  readonly source: string;
  /** Results for each top-level segment, as FindResults returns them; throws JsonPathError on evaluation errors. */
  find(data: unknown): unknown[][];
}

/** Compiles a full template (with braces), e.g. `{.spec.replicas}`; throws JsonPathError when it does not parse. */
export function compileTemplate(template: string): CompiledJsonPath {
  if (template.length > maxTemplateLength) throw new JsonPathError(`template longer than ${maxTemplateLength} characters`);
  const segments = new Parser(template, 0).parseTemplate();
  return { source: template, find: (data) => findResults(segments, data) };
}

/** Compiles a CRD-style path such as `.spec.replicas` (wrapped in braces, as upstream does). */
export function compileJsonPath(path: string): CompiledJsonPath {
  return compileTemplate(`{${path}}`);
}

// ---- parsing (a hand-written scanner with the same token rules as upstream's parser) ----

const isDigit = (c: string) => c >= '0' && c <= '9';
const isAlnum = (c: string) => c === '_' || /^[\p{L}\p{Nd}]$/u.test(c);
const isTerminator = (c: string) => c === '' || ' \t\r\n.,[]$@{}'.includes(c);
const sliceRe = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const filterRe = /^([^!<>=]+)([!<>=]+)(.+?)$/s;

class Parser {
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
type Val = unknown;

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function findResults(segments: Segment[], data: unknown): unknown[][] {
  const budget = { left: maxResults };
  const out: unknown[][] = [];
  for (const seg of segments) {
    if (seg.t === 'text') out.push([seg.text]);
    else out.push(evalList([data], seg.nodes, budget));
  }
  return out;
}

function charge(budget: { left: number }, n: number): void {
  budget.left -= n;
  if (budget.left < 0) throw new JsonPathError(`more than ${maxResults} results`);
}

function evalList(input: Val[], nodes: Node[], budget: { left: number }): Val[] {
  let cur = input;
  for (const node of nodes) cur = evalNode(cur, node, budget);
  return cur;
}

function evalNode(input: Val[], node: Node, budget: { left: number }): Val[] {
  switch (node.t) {
    case 'text':
      return [node.text];
    case 'int':
    case 'float':
    case 'bool':
      return input.map(() => node.value);
    case 'ident':
      throw new JsonPathError(node.name === 'range' || node.name === 'end' ? `${node.name} is not supported` : `unrecognized identifier ${node.name}`);
    case 'field': {
      const out: Val[] = [];
      for (const v of input) if (isMap(v) && hasOwn(v, node.name)) out.push(v[node.name]);
      charge(budget, out.length);
      return out;
    }
    case 'wildcard': {
      const out: Val[] = [];
      for (const v of input) {
        const kids = Array.isArray(v) ? v : isMap(v) ? Object.values(v) : typeof v === 'string' ? Array.from(Buffer.from(v, 'utf8')) : [];
        charge(budget, kids.length);
        out.push(...kids);
      }
      return out;
    }
    case 'recursive': {
      const out: Val[] = [];
      for (const v of input) descend(v, out, budget, 0);
      return out;
    }
    case 'array':
      return evalArray(input, node, budget);
    case 'union': {
      const out: Val[] = [];
      for (const list of node.lists) out.push(...evalList(input, list, budget));
      return out;
    }
    case 'filter':
      return evalFilter(input, node, budget);
  }
}

/** `..`: every container value, then (depth first) the containers below it, as upstream's evalRecursive orders them. */
function descend(v: Val, out: Val[], budget: { left: number }, depth: number): void {
  if (depth > maxObjectDepth) throw new JsonPathError('document nests too deeply');
  const kids = Array.isArray(v) ? v : isMap(v) ? Object.values(v) : [];
  if (kids.length === 0) return;
  charge(budget, 1);
  out.push(v);
  for (const k of kids) descend(k, out, budget, depth + 1);
}

function goType(v: Val): string {
  if (v === null) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

function evalArray(input: Val[], node: Extract<Node, { t: 'array' }>, budget: { left: number }): Val[] {
  const out: Val[] = [];
  for (const v of input) {
    if (v === null) continue;
    if (!Array.isArray(v)) throw new JsonPathError(`${goType(v)} is not array or slice`);
    const len = v.length;
    let start = node.start ?? 0;
    if (start < 0) start += len;
    let end = node.end ?? len;
    if (end < 0 || (end === 0 && node.derivedEnd)) end += len;
    if (end === start) return out;
    if (start >= len || start < 0) throw new JsonPathError(`array index out of bounds: index ${start}, length ${len}`);
    if (end > len || end < 0) throw new JsonPathError(`array index out of bounds: index ${end - 1}, length ${len}`);
    if (start > end) throw new JsonPathError(`starting index ${start} is greater than ending index ${end}`);
    const step = node.step ?? 1;
    if (node.step !== undefined && step <= 0) throw new JsonPathError('step must be > 0');
    charge(budget, Math.ceil((end - start) / step));
    for (let i = start; i < end; i += step) out.push(v[i]);
  }
  return out;
}

type Kind = 'bool' | 'int' | 'float' | 'string';

function kindOf(v: Val, literalFloat: boolean): Kind {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return literalFloat || !Number.isInteger(v) ? 'float' : 'int';
  throw new JsonPathError('invalid type for comparison');
}

function compare(op: string, l: Val, lf: boolean, r: Val, rf: boolean): boolean {
  const kl = kindOf(l, lf);
  const kr = kindOf(r, rf);
  if (op === '==' || op === '!=') {
    if (kl !== kr) throw new JsonPathError('incompatible types for comparison');
    return (l === r) === (op === '==');
  }
  if (kl !== kr) throw new JsonPathError('incompatible types for comparison');
  if (kl === 'bool') throw new JsonPathError('invalid type for comparison');
  const a = l as number | string;
  const b = r as number | string;
  switch (op) {
    case '<': return a < b;
    case '>': return a > b;
    case '<=': return a <= b;
    case '>=': return a >= b;
    default: throw new JsonPathError(`unrecognized filter operator ${op}`);
  }
}

function evalFilter(input: Val[], node: Extract<Node, { t: 'filter' }>, budget: { left: number }): Val[] {
  const out: Val[] = [];
  const rightFloat = node.right.length === 1 && node.right[0].t === 'float';
  const leftFloat = node.left.length === 1 && node.left[0].t === 'float';
  for (const v of input) {
    if (!Array.isArray(v)) throw new JsonPathError(`${v === null ? '<nil>' : goType(v)} is not array or slice and cannot be filtered`);
    for (const item of v) {
      if (node.op === 'exists') {
        let lefts: Val[] = [];
        try {
          lefts = evalList([item], node.left, budget);
        } catch {
          lefts = [];
        }
        if (lefts.length > 0) out.push(item);
        continue;
      }
      const lefts = evalList([item], node.left, budget);
      if (lefts.length === 0) continue;
      if (lefts.length > 1) throw new JsonPathError('can only compare one element at a time');
      const rights = evalList([item], node.right, budget);
      if (rights.length === 0) continue;
      if (rights.length > 1) throw new JsonPathError('can only compare one element at a time');
      if (compare(node.op, lefts[0], leftFloat, rights[0], rightFloat)) out.push(item);
    }
  }
  return out;
}
