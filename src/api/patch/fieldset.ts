// A set of field paths in structured-merge-diff's notation, stored as a tree keyed by serialized path elements
// (`f:name`, `k:{"name":"app"}`, `v:"x"`, `i:0`), with conversion to and from managedFields' FieldsV1 JSON.
import { isRecord } from '../../machinery/types.js';
import { setOwn } from '../../util/own.js';

export type FieldPath = string[];

interface Node {
  member: boolean;
  children: Map<string, Node>;
}

const newNode = (): Node => ({ member: false, children: new Map() });

const RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** Path element order used for serialization: fields, then keys, then values, then indexes. */
export function comparePathElements(a: string, b: string): number {
  const ra = RANK[a[0]] ?? 4;
  const rb = RANK[b[0]] ?? 4;
  if (ra !== rb) return ra - rb;
  if (a[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
  if (a[0] === 'k' || a[0] === 'v') {
    try {
      return compareValues(JSON.parse(a.slice(2)), JSON.parse(b.slice(2)));
    } catch {
      // fall through to a plain string comparison
    }
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Orders JSON values: numbers numerically, strings lexically, objects field by field. Key values hold
 * scalars; anything nested deeper than a few levels is compared as text.
 */
function compareValues(x: unknown, y: unknown, depth = 0): number {
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  if (isRecord(x) && isRecord(y) && depth < 4) {
    const kx = Object.keys(x);
    const ky = Object.keys(y);
    for (let i = 0; i < Math.min(kx.length, ky.length); i++) {
      const c = (kx[i] < ky[i] ? -1 : kx[i] > ky[i] ? 1 : 0) || compareValues(x[kx[i]], y[ky[i]], depth + 1);
      if (c) return c;
    }
    return kx.length - ky.length;
  }
  const sx = typeof x === 'string' ? x : JSON.stringify(x);
  const sy = typeof y === 'string' ? y : JSON.stringify(y);
  return sx < sy ? -1 : sx > sy ? 1 : 0;
}

export class FieldSet {
  private root: Node = newNode();

  static fromPaths(paths: Iterable<FieldPath>): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Parses a FieldsV1 object (`{"f:spec":{"f:replicas":{}}}`); `.` marks an inner node as a member. */
  static fromFieldsV1(v: unknown): FieldSet {
    const s = new FieldSet();
    const work: [unknown, Node][] = [[v, s.root]];
    while (work.length) {
      const [obj, node] = work.pop()!;
      if (!isRecord(obj)) continue;
      for (const [k, child] of Object.entries(obj)) {
        if (k === '.') {
          node.member = true;
          continue;
        }
        let c = node.children.get(k);
        if (!c) node.children.set(k, (c = newNode()));
        if (!isRecord(child) || Object.keys(child).length === 0) c.member = true;
        else work.push([child, c]);
      }
    }
    return s;
  }

  insert(path: FieldPath): void {
    if (path.length === 0) return;
    let n = this.root;
    for (const pe of path) {
      let c = n.children.get(pe);
      if (!c) n.children.set(pe, (c = newNode()));
      n = c;
    }
    n.member = true;
  }

  private find(path: FieldPath): Node | undefined {
    let n: Node | undefined = this.root;
    for (const pe of path) {
      n = n.children.get(pe);
      if (!n) return undefined;
    }
    return n;
  }

  has(path: FieldPath): boolean {
    return !!this.find(path)?.member;
  }

  /** True when `path` or anything below it is a member. */
  hasAtOrBelow(path: FieldPath): boolean {
    const n = this.find(path);
    return !!n && (n.member || n.children.size > 0);
  }

  remove(path: FieldPath): void {
    const chain: Node[] = [this.root];
    for (const pe of path) {
      const c = chain[chain.length - 1].children.get(pe);
      if (!c) return;
      chain.push(c);
    }
    chain[chain.length - 1].member = false;
    for (let i = path.length; i > 0; i--) {
      const n = chain[i];
      if (n.member || n.children.size > 0) break;
      chain[i - 1].children.delete(path[i - 1]);
    }
  }

  /** Every member path, parents before children. */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    // Depth first in element order: children are pushed in reverse so the smallest is taken next.
    const work: [Node, FieldPath][] = [];
    const pushChildren = (n: Node, prefix: FieldPath) => {
      const keys = [...n.children.keys()].sort(comparePathElements);
      for (let i = keys.length - 1; i >= 0; i--) work.push([n.children.get(keys[i])!, [...prefix, keys[i]]]);
    };
    pushChildren(this.root, []);
    while (work.length) {
      const [c, p] = work.pop()!;
      if (c.member) out.push(p);
      pushChildren(c, p);
    }
    return out;
  }

  isEmpty(): boolean {
    return this.root.children.size === 0;
  }

  difference(other: FieldSet): FieldSet {
    return FieldSet.fromPaths(this.paths().filter((p) => !other.has(p)));
  }

  equals(other: FieldSet): boolean {
    const a = this.paths().map((p) => JSON.stringify(p));
    const b = other.paths().map((p) => JSON.stringify(p));
    return a.length === b.length && a.every((x, i) => x === b[i]);
  }

  toFieldsV1(): Record<string, unknown> {
    const root: Record<string, unknown> = {};
    const work: [Node, Record<string, unknown>, boolean][] = [[this.root, root, false]];
    while (work.length) {
      const [n, out, self] = work.pop()!;
      if (self && n.member && n.children.size > 0) out['.'] = {};
      for (const k of [...n.children.keys()].sort(comparePathElements)) {
        const child: Record<string, unknown> = {};
        setOwn(out, k, child);
        work.push([n.children.get(k)!, child, true]);
      }
    }
    return root;
  }
}

function valueString(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

/** JSON text of a key or value path element, parsed; undefined when a client stored something unparsable. */
function parseElement(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** Renders a path as upstream prints it in conflict messages: `.spec.containers[name="app"].image`. */
export function pathString(path: FieldPath): string {
  return path
    .map((pe) => {
      const body = pe.slice(2);
      switch (pe[0]) {
        case 'f':
          return `.${body}`;
        case 'k': {
          const key = parseElement(body);
          if (!isRecord(key)) return `[${body}]`;
          return `[${Object.keys(key).map((n) => `${n}=${valueString(key[n])}`).join(',')}]`;
        }
        case 'v': {
          const value = parseElement(body);
          return value === undefined ? `[=${body}]` : `[=${valueString(value)}]`;
        }
        default:
          return `[${body}]`;
      }
    })
    .join('');
}
