// The JSONPath templates of client-go's util/jsonpath, as CRD printer columns and selectable fields use them:
// `{.spec.replicas}`, `{.status.conditions[?(@.type=="Ready")].status}`, `{.spec.items[0].name}`, `{.items[*]}`,
// `{['a.b']}`, `{..name}`, unions `[0,2]` and slices `[1:3:2]`. A template is compiled once into a small node
// tree and evaluated over decoded JSON with missing keys allowed (as the table convertor asks). Evaluation is
// bounded (result count, recursion depth) and reads only own properties. `range`/`end` blocks are not supported.
import { hasOwn } from '../util/own.js';
import { maxObjectDepth } from '../machinery/depth-limits.js';
import { JsonPathError, maxTemplateLength, Parser, type Node, type Segment } from './jsonpath-parse.js';

export { JsonPathError };

/** Bounds on what one evaluation may cost. */
const maxResults = 10_000;

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
