// The fields a write added, changed and removed, compared as structured-merge-diff compares two objects: a field is
// added where the old object has nothing at its path (containers too, with everything below them), removed where the
// new one has nothing, modified where a leaf (scalar, atomic list or map) differs. Subtrees the two objects share
// (status writes keep the stored spec) are skipped at once. The walk stops descending at `maxChangeDepth` and
// compares what lies deeper as one leaf. Bookkeeping metadata (name, uid, resourceVersion, ...) is never compared.
import { isRecord } from '../../machinery/types.js';
import { maxObjectDepth } from '../../machinery/depth-limits.js';
import { jsonEqual } from '../../util/json-tree.js';
import { hasOwn, setOwn } from '../../util/own.js';
import { comparePathElements } from './fieldset.js';
import { fieldNode, itemNode, type SchemaNode } from './schema.js';
import { isGranular, itemPathElement } from './structured.js';

export const ADDED = 1;
export const MODIFIED = 2;
export const REMOVED = 3;

/** A node of the change tree: `change` is 0 on paths that only lead to changes. */
export interface ChangeNode {
  change: number;
  children: Map<string, ChangeNode> | undefined;
}

/** How deep the walk descends; deeper values count as one leaf (no object a client can store nests that far usefully). */
export const maxChangeDepth = 200;

/** Metadata fields no manager owns (upstream's stripped set). */
const unmanagedMeta: ReadonlySet<string> = new Set(['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion']);

interface Cursor {
  parent: Cursor | undefined;
  pe: string;
  node: ChangeNode | undefined;
}

export class FieldChanges {
  readonly root: ChangeNode = { change: 0, children: undefined };
  /** Paths added or modified (what the writer takes over). */
  owned = 0;
  /** Paths removed. */
  removed = 0;

  isEmpty(): boolean {
    return this.owned === 0 && this.removed === 0;
  }

  mark(c: Cursor, change: number): void {
    nodeAt(c).change = change;
    if (change === REMOVED) this.removed++;
    else this.owned++;
  }

  /** The added and modified fields in FieldsV1 form; undefined when there are none. */
  ownedFieldsV1(): Record<string, unknown> | undefined {
    return this.owned ? (encodeOwned(this.root) ?? undefined) : undefined;
  }
}

function nodeAt(c: Cursor): ChangeNode {
  if (c.node) return c.node;
  const parent = nodeAt(c.parent!);
  const children = (parent.children ??= new Map());
  let n = children.get(c.pe);
  if (!n) children.set(c.pe, (n = { change: 0, children: undefined }));
  return (c.node = n);
}

const child = (parent: Cursor, pe: string): Cursor => ({ parent, pe, node: undefined });

function encodeOwned(n: ChangeNode): Record<string, unknown> | null {
  const member = n.change === ADDED || n.change === MODIFIED;
  if (!n.children) return member ? {} : null;
  const out: Record<string, unknown> = {};
  let any = false;
  for (const pe of [...n.children.keys()].sort(comparePathElements)) {
    const c = encodeOwned(n.children.get(pe)!);
    if (c) {
      setOwn(out, pe, c);
      any = true;
    }
  }
  if (!any) return member ? {} : null;
  if (member) return { '.': {}, ...out };
  return out;
}

type Rec = Record<string, unknown>;

function walk(out: FieldChanges, l: unknown, r: unknown, n: SchemaNode | undefined, at: Cursor, depth: number): void {
  if (l === r) return;
  const lg = l !== undefined && depth < maxChangeDepth && isGranular(l, n);
  const rg = r !== undefined && depth < maxChangeDepth && isGranular(r, n);
  if (!lg && !rg) {
    if (l === undefined) out.mark(at, ADDED);
    else if (r === undefined) out.mark(at, REMOVED);
    else if (!jsonEqual(l, r, maxObjectDepth)) out.mark(at, MODIFIED);
    return;
  }
  // A null container (the empty Go value of a list or map) stands for an empty one.
  if (l === undefined) out.mark(at, ADDED);
  else if (r === undefined) out.mark(at, REMOVED);
  else if (l !== null && r !== null && (lg !== rg || Array.isArray(l) !== Array.isArray(r))) out.mark(at, MODIFIED);
  const lv = lg ? l : undefined;
  const rv = rg ? r : undefined;
  if (Array.isArray(lv) || Array.isArray(rv)) {
    walkList(out, Array.isArray(lv) ? lv : [], Array.isArray(rv) ? rv : [], n, at, depth);
  } else {
    walkMap(out, isRecord(lv) ? lv : undefined, isRecord(rv) ? rv : undefined, n, at, depth, undefined);
  }
}

function walkMap(out: FieldChanges, l: Rec | undefined, r: Rec | undefined, n: SchemaNode | undefined, at: Cursor, depth: number, skip: ReadonlySet<string> | undefined): void {
  if (r) {
    for (const k of Object.keys(r)) {
      const rv = r[k];
      if (rv === undefined || skip?.has(k)) continue;
      const lv = l && hasOwn(l, k) ? l[k] : undefined;
      if (lv === rv) continue;
      walk(out, lv, rv, fieldNode(n, k), child(at, `f:${k}`), depth + 1);
    }
  }
  if (l) {
    for (const k of Object.keys(l)) {
      const lv = l[k];
      if (lv === undefined || skip?.has(k) || (r && hasOwn(r, k) && r[k] !== undefined)) continue;
      walk(out, lv, undefined, fieldNode(n, k), child(at, `f:${k}`), depth + 1);
    }
  }
}

function walkList(out: FieldChanges, l: unknown[], r: unknown[], n: SchemaNode | undefined, at: Cursor, depth: number): void {
  const item = itemNode(n);
  const left = new Map<string, unknown>();
  l.forEach((v, i) => {
    const pe = itemPathElement(v, i, n);
    if (!left.has(pe)) left.set(pe, v);
  });
  const seen = new Set<string>();
  r.forEach((v, i) => {
    const pe = itemPathElement(v, i, n);
    if (seen.has(pe)) return;
    seen.add(pe);
    walk(out, left.get(pe), v, item, child(at, pe), depth + 1);
  });
  for (const [pe, v] of left) if (!seen.has(pe)) walk(out, v, undefined, item, child(at, pe), depth + 1);
}

export interface CompareOptions {
  /** Only `.status` is compared (a status write); otherwise `.status` is left out when `skipStatus`. */
  statusOnly?: boolean;
  skipStatus?: boolean;
}

/** The changes from `oldObj` to `newObj` (whole objects; `oldObj` undefined compares against nothing). */
export function compareObjects(oldObj: Rec | undefined, newObj: Rec, root: SchemaNode | undefined, opts: CompareOptions = {}): FieldChanges {
  const out = new FieldChanges();
  const top: Cursor = { parent: undefined, pe: '', node: out.root };
  if (opts.statusOnly) {
    const lv = oldObj?.status;
    const rv = newObj.status;
    if (lv !== rv) walk(out, lv, rv, fieldNode(root, 'status'), child(top, 'f:status'), 1);
    return out;
  }
  const skip = opts.skipStatus ? rootSkipWithStatus : rootSkip;
  walkMap(out, oldObj, newObj, root, top, 0, skip);
  const lm = oldObj?.metadata;
  const rm = newObj.metadata;
  if (lm !== rm) walkMap(out, isRecord(lm) ? lm : undefined, isRecord(rm) ? rm : undefined, fieldNode(root, 'metadata'), child(top, 'f:metadata'), 1, unmanagedMeta);
  return out;
}

/**
 * The fields of a new object in FieldsV1 form, as `compareObjects(emptyObjectLike(obj) or nothing, obj)` finds them
 * added, built in one walk without the change tree (the common create, with no managers before it).
 */
export function createdFieldsV1(obj: Rec, root: SchemaNode | undefined, builtin: boolean, skipStatus: boolean): Rec | undefined {
  const shape = builtin ? builtinShape : undefined;
  const out: Rec = {};
  let any = false;
  for (const k of Object.keys(obj).sort()) {
    const v = obj[k];
    if (v === undefined || k === 'apiVersion' || k === 'kind' || (skipStatus && k === 'status')) continue;
    let enc: Rec | undefined;
    if (k === 'metadata') {
      enc = isRecord(v) ? encodeAddedMap(v, fieldNode(root, k), undefined, 1, unmanagedMeta) : undefined;
    } else {
      enc = encodeAdded(v, fieldNode(root, k), shape && hasOwn(shape, k) ? shape[k] : undefined, 1);
    }
    if (enc) {
      out[`f:${k}`] = enc;
      any = true;
    }
  }
  return any ? out : undefined;
}


/**
 * The one empty object every leaf member of a created field set shares (stored objects are never written in place:
 * writers copy first), so that a pod's field set is not thirty objects of its own.
 */
const leaf: Rec = Object.freeze({}) as Rec;

/** A field's path element and schema below a schema position, remembered per position (bounded: maps have any keys). */
interface Step { pe: string; node: SchemaNode | undefined }
const steps = new WeakMap<object, Map<string, Step>>();
const unknownPosition = {};
/** The remembered steps below one schema position. */
function stepsAt(n: SchemaNode | undefined): Map<string, Step> {
  const owner = n ? n.s : unknownPosition;
  let m = steps.get(owner);
  if (!m) steps.set(owner, (m = new Map()));
  return m;
}
function fieldStep(at: Map<string, Step>, n: SchemaNode | undefined, name: string): Step {
  let st = at.get(name);
  if (!st) {
    st = { pe: `f:${name}`, node: fieldNode(n, name) };
    if (at.size < 512) at.set(name, st);
  }
  return st;
}

/**
 * The FieldsV1 of a value added whole. `shape` is what the empty object already has there: undefined (nothing: the
 * container is a member itself), an object (a struct: only what it holds is added) or null (a list serialized as null).
 * Undefined when nothing is added. Keys are `f:`/`k:`/`v:`/`i:` path elements, never a prototype key.
 */
function encodeAdded(v: unknown, n: SchemaNode | undefined, shape: unknown, depth: number): Rec | undefined {
  if (depth >= maxChangeDepth || !isGranular(v, n)) return leaf;
  let out: Rec | undefined;
  if (Array.isArray(v)) {
    const item = itemNode(n);
    const first = new Map<string, unknown>();
    for (let i = 0; i < v.length; i++) {
      const pe = itemPathElement(v[i], i, n);
      if (!first.has(pe)) first.set(pe, v[i]);
    }
    const pes = [...first.keys()];
    if (pes.length > 1) pes.sort(comparePathElements);
    if (pes.length) {
      out = shape === undefined ? { '.': leaf } : {};
      for (const pe of pes) out[pe] = encodeAdded(first.get(pe), item, undefined, depth + 1) ?? leaf;
    }
  } else out = encodeAddedMap(v as Rec, n, isRecord(shape) ? shape : undefined, depth, undefined, shape === undefined);
  if (out) return out;
  return shape === undefined ? leaf : undefined;
}

function encodeAddedMap(v: Rec, n: SchemaNode | undefined, shape: Rec | undefined, depth: number, skip: ReadonlySet<string> | undefined, member = false): Rec | undefined {
  const keys = Object.keys(v);
  if (keys.length > 1) keys.sort();
  let out: Rec | undefined;
  const at = stepsAt(n);
  for (const k of keys) {
    const c = v[k];
    if (c === undefined || skip?.has(k)) continue;
    const st = fieldStep(at, n, k);
    const enc = encodeAdded(c, st.node, shape && hasOwn(shape, k) ? shape[k] : undefined, depth + 1);
    if (!enc) continue;
    out ??= member ? { '.': leaf } : {};
    out[st.pe] = enc;
  }
  return out;
}

const rootSkip: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'metadata']);
const rootSkipWithStatus: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'metadata', 'status']);

/**
 * The containers an empty object of a built-in kind already has (its Go type's struct fields that are not pointers),
 * as upstream compares a create against such an object: they are not added themselves, only what they hold.
 */
const podSpec = { containers: null };
const builtinShape: Rec = {
  metadata: {},
  spec: {
    containers: null,
    template: { metadata: {}, spec: podSpec },
    strategy: {},
    updateStrategy: {},
    jobTemplate: { metadata: {}, spec: { template: { metadata: {}, spec: podSpec } } },
  },
  status: { loadBalancer: {}, nodeInfo: {}, daemonEndpoints: { kubeletEndpoint: {} } },
  template: { metadata: {}, spec: podSpec },
};

/**
 * The part of `shape` that `obj` also has: what an empty object of the kind shares with it (objects, and the lists
 * a Go type serializes as null when empty).
 */
export function emptyObjectLike(obj: Rec, shape: Rec = builtinShape, depth = 0): Rec {
  const out: Rec = {};
  if (depth > 8) return out;
  for (const k of Object.keys(shape)) {
    const v = hasOwn(obj, k) ? obj[k] : undefined;
    if (shape[k] === null) {
      if (v !== undefined) out[k] = null;
    } else if (isRecord(v)) out[k] = emptyObjectLike(v, shape[k] as Rec, depth + 1);
  }
  return out;
}
