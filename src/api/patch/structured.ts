// Schema-aware operations for server-side apply, following structured-merge-diff's model: field sets of a
// value, merging an applied configuration into a live object (addressing and removing by path: locate.ts).
import { isRecord } from '../../machinery/types.js';
import { cloneJson } from '../../util/json-tree.js';
import { hasOwn, setOwn } from '../../util/own.js';
import { recurse, runRecursion, type Step } from '../../util/trampoline.js';
import { maxObjectDepth } from '../../machinery/depth-limits.js';
import type { FieldPath } from './fieldset.js';
import { FieldSet } from './fieldset.js';
import { fieldNode, isDeclaredField, itemNode, structKind, type SchemaNode } from './schema.js';
import { badRequest } from './util.js';

type Rec = Record<string, unknown>;

/** The path element of a list item: `k:{...}` for map lists, `v:...` for sets, else its index. */
export function itemPathElement(item: unknown, index: number, list: SchemaNode | undefined): string {
  const k = structKind(list);
  if (k.kind === 'list' && k.listType === 'map' && k.keys.length && isRecord(item)) {
    // The usual key, one string or number (a container's name): its text without building an object.
    if (k.keys.length === 1) {
      const v = item[k.keys[0]];
      if (typeof v === 'string' || typeof v === 'number') return `k:{${JSON.stringify(k.keys[0])}:${JSON.stringify(v)}}`;
    }
    const itemSchema = itemNode(list);
    const key: Rec = {};
    for (const name of k.keys.length > 1 ? [...k.keys].sort() : k.keys) {
      const v = item[name] ?? fieldNode(itemSchema, name)?.s.default;
      if (v !== undefined) key[name] = v;
    }
    return `k:${JSON.stringify(key)}`;
  }
  if (k.kind === 'list' && k.listType === 'set') return `v:${JSON.stringify(item)}`;
  return `i:${index}`;
}

/** Whether the position holds a container whose children are tracked separately (not a leaf). */
export function isGranular(v: unknown, n: SchemaNode | undefined): boolean {
  const k = structKind(n);
  if (k.kind === 'map') return !k.atomic && isRecord(v);
  if (k.kind === 'list') return k.listType !== 'atomic' && Array.isArray(v);
  if (k.kind === 'deduced') return isRecord(v);
  return false;
}

/** A key of a real map (additionalProperties) rather than a struct field; map entries are always members. */
function isMapEntry(n: SchemaNode | undefined, key: string): boolean {
  return !!n && typeof n.s.additionalProperties === 'object' && !isDeclaredField(n, key);
}

const tooDeep = () => badRequest(`the applied configuration nests more than ${maxObjectDepth} levels deep`);

/** The set of fields a value (an applied configuration) specifies. */
export function toFieldSet(v: unknown, n: SchemaNode | undefined): FieldSet {
  const set = new FieldSet();
  const work: [unknown, SchemaNode | undefined, FieldPath][] = [[v, n, []]];
  while (work.length) {
    const [val, node, path] = work.pop()!;
    if (path.length > maxObjectDepth) throw tooDeep();
    if (!isGranular(val, node)) {
      set.insert(path);
      continue;
    }
    if (Array.isArray(val)) {
      val.forEach((item, i) => {
        const p = [...path, itemPathElement(item, i, node)];
        work.push([item, itemNode(node), p]);
        set.insert(p);
      });
      continue;
    }
    for (const [key, child] of Object.entries(val as Rec)) {
      const p = [...path, `f:${key}`];
      work.push([child, fieldNode(node, key), p]);
      if (child === null || (isRecord(child) && Object.keys(child).length === 0) || isMapEntry(node, key)) set.insert(p);
    }
  }
  return set;
}

/** A copy of an applied value without its null members (nulls in the configuration mean "not set"). */
const withoutNulls = (v: unknown) => cloneJson(v, true);

function* merge(lhs: unknown, rhs: unknown, n: SchemaNode | undefined): Step<unknown> {
  if (rhs === undefined) return cloneJson(lhs);
  if (lhs === undefined || lhs === null || !isGranular(rhs, n) || !isGranular(lhs, n)) return withoutNulls(rhs);
  if (Array.isArray(rhs)) return yield* mergeLists(lhs as unknown[], rhs, n);
  const l = lhs as Rec;
  const r = rhs as Rec;
  const out: Rec = {};
  for (const k of Object.keys(l)) {
    if (!hasOwn(r, k)) setOwn(out, k, cloneJson(l[k]));
    else if (r[k] !== null) setOwn(out, k, yield* recurse(merge, l[k], r[k], fieldNode(n, k)));
  }
  for (const k of Object.keys(r)) if (!hasOwn(l, k) && r[k] !== null) setOwn(out, k, withoutNulls(r[k]));
  return out;
}

/** Merges an applied configuration (`rhs`) into a live value (`lhs`). */
export function mergeValues(lhs: unknown, rhs: unknown, n: SchemaNode | undefined): unknown {
  return runRecursion(merge(lhs, rhs, n), maxObjectDepth + 1, tooDeep);
}

/**
 * Associative/set list merge: items matched by path element; applied items keep their relative order and
 * live-only items stay where they were relative to the items around them.
 */
function* mergeLists(lhs: unknown[], rhs: unknown[], n: SchemaNode | undefined): Step<unknown[]> {
  const item = itemNode(n);
  const lk = lhs.map((v, i) => itemPathElement(v, i, n));
  const rk = rhs.map((v, i) => itemPathElement(v, i, n));
  const lByKey = new Map<string, unknown>();
  lk.forEach((k, i) => lByKey.has(k) || lByKey.set(k, lhs[i]));
  const rSet = new Set(rk);
  const shared = rk.filter((k) => lByKey.has(k));
  let nextShared = 0;
  const done = new Set<string>();
  const out: unknown[] = [];
  function* takeRight(ri: number): Step<void> {
    done.add(rk[ri]);
    out.push(yield* recurse(merge, lByKey.get(rk[ri]), rhs[ri], item));
    if (shared[nextShared] === rk[ri]) nextShared++;
  }
  let li = 0;
  let ri = 0;
  while (li < lk.length || ri < rk.length) {
    if (li < lk.length && ri < rk.length) {
      if (lk[li] === rk[ri]) {
        yield* takeRight(ri);
        li++;
        ri++;
        continue;
      }
      if (rSet.has(lk[li]) && nextShared < shared.length && shared[nextShared] !== lk[li]) {
        li++;
        continue;
      }
    }
    if (li < lk.length) {
      if (!rSet.has(lk[li])) {
        out.push(cloneJson(lhs[li]));
        li++;
        continue;
      }
      if (done.has(lk[li])) li++;
    }
    if (ri < rk.length) yield* takeRight(ri++);
  }
  return out;
}
