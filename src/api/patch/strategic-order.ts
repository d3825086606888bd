// Strategic merge patch helpers for lists: element typing, partitioning, ordering and the upstream-like errors.
import { isRecord } from '../../machinery/types.js';
import { hasOwn } from '../../util/own.js';
import { badRequest, goString, goTypeName, internal, unprocessable } from './util.js';

export const DIRECTIVE = '$patch';
export const RETAIN_KEYS = '$retainKeys';
export const SET_ORDER = '$setElementOrder/';
export const DELETE_PRIMITIVE = '$deleteFromPrimitiveList/';

export type ElemKind = 'map' | 'scalar';

export const errNoMergeKey = (m: unknown, key: string) => internal(`map: ${goString(m)} does not contain declared merge key: ${key}`);
export const errBadArgType = (expected: string, actual: unknown) => internal(`expected a ${expected}, but received a ${goTypeName(actual)}`);
export const errBadPatchType = (t: unknown, m: unknown) => internal(`unknown patch type: ${goString(t)} in map: ${goString(m)}`);
export const errBadRetainKeys = () => badRequest('invalid patch format of retainKeys');

function typeTag(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  if (isRecord(v)) return 'map';
  return typeof v;
}

/** The common element kind of the given lists; upstream rejects mixed element types and lists of lists. */
export function elementKind(...lists: unknown[][]): ElemKind | undefined {
  let prev: string | undefined;
  for (const l of lists) {
    for (const v of l) {
      const t = typeTag(v);
      if (t === 'list') throw unprocessable();
      if (prev !== undefined && prev !== t) throw internal(`list element types are not identical: ${goString(lists)}`);
      prev = t;
    }
  }
  return prev === undefined ? undefined : prev === 'map' ? 'map' : 'scalar';
}

/** The merge-key value of a list item (maps) or the item itself (scalars). */
function identity(v: unknown, mergeKey: string, kind: ElemKind): unknown {
  return kind === 'map' ? (isRecord(v) ? v[mergeKey] : undefined) : v;
}

/**
 * Where each identity first occurs in `list`: looked up in constant time, so that ordering lists of a patch as long
 * as the body limit allows stays linear (a search per item made 8,000 items take seconds).
 */
class Positions {
  private readonly first = new Map<unknown, number>();
  constructor(list: unknown[], private readonly mergeKey: string, private readonly kind: ElemKind) {
    list.forEach((x, i) => {
      const id = identity(x, mergeKey, kind);
      if (!this.first.has(id)) this.first.set(id, i);
    });
  }
  /** The first index of an item with `v`'s identity, or -1. */
  of(v: unknown): number {
    return this.first.get(identity(v, this.mergeKey, this.kind)) ?? -1;
  }
}

export function requireMergeKey(lists: unknown[][], mergeKey: string): void {
  for (const l of lists) {
    for (const item of l) {
      if (!isRecord(item)) throw errBadArgType('map[string]interface {}', item);
      if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    }
  }
}

export const isDeleteItem = (v: unknown) => isRecord(v) && v[DIRECTIVE] === 'delete';

/** Splits `merged` into the items present in `by` and the rest, keeping their relative order. */
export function partition(merged: unknown[], by: unknown[], mergeKey: string, kind: ElemKind): [unknown[], unknown[]] {
  if (kind === 'map') requireMergeKey([merged], mergeKey);
  const present: unknown[] = [];
  const rest: unknown[] = [];
  const inBy = new Positions(by, mergeKey, kind);
  for (const v of merged) (inBy.of(v) >= 0 ? present : rest).push(v);
  return [present, rest];
}

/** Stable sort of `items` by their position in `order` (items missing from `order` keep their place at the end). */
function sortByOrder(items: unknown[], order: unknown[], mergeKey: string, kind: ElemKind): unknown[] {
  let toDelete: unknown[] = [];
  if (kind === 'map') {
    requireMergeKey([items, order], mergeKey);
    toDelete = items.filter(isDeleteItem);
    items = items.filter((v) => !isDeleteItem(v));
  }
  const inOrder = new Positions(order, mergeKey, kind);
  const ranked = items.map((v, i) => ({ v, i, r: inOrder.of(v) }));
  ranked.sort((a, b) => {
    const ra = a.r < 0 ? Infinity : a.r;
    const rb = b.r < 0 ? Infinity : b.r;
    return ra === rb ? a.i - b.i : ra - rb;
  });
  return [...ranked.map((x) => x.v), ...toDelete];
}

/**
 * Orders a merged list: patch items by `patchOrder`, server-only items by `serverOrder`, then interleaves the
 * two so that each server-only item lands before the first patch item that follows it in the live list.
 */
export function normalizeOrder(patchItems: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string, kind: ElemKind): unknown[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey, kind);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  const inServer = new Positions(serverOrder, mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = inServer.of(left[i]);
      const ri = inServer.of(right[j]);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

function sameKey(a: unknown, b: unknown, mergeKey: string): boolean {
  if (!mergeKey) return a === b;
  if (!isRecord(a)) throw errBadArgType('map[string]interface {}', a);
  if (!isRecord(b)) throw errBadArgType('map[string]interface {}', b);
  if (!hasOwn(a, mergeKey)) throw errNoMergeKey(a, mergeKey);
  if (!hasOwn(b, mergeKey)) throw errNoMergeKey(b, mergeKey);
  return a[mergeKey] === b[mergeKey];
}

/** The non-deleted items of the patch list must appear in `$setElementOrder` and in the same relative order. */
export function validateSetOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (!order.length || !patchList.length) return;
  let items = patchList;
  if (mergeKey) {
    for (const v of patchList) if (!isRecord(v)) throw errBadArgType('map[string]interface {}', v);
    items = patchList.filter((v) => !isDeleteItem(v));
  }
  let p = 0;
  let s = 0;
  while (p < items.length && s < order.length) {
    if (isRecord(items[p]) && hasOwn(items[p] as object, DIRECTIVE)) {
      p++;
      continue;
    }
    if (sameKey(items[p], order[s], mergeKey)) p++;
    s++;
  }
  if (p < items.length && s >= order.length) {
    throw internal(`The order in patch list:\n${goString(patchList)}\n doesn't match ${SET_ORDER.slice(0, -1)} list:\n${goString(order)}\n`);
  }
}

/** Splits a comma strategy list into (has retainKeys, the other strategy). */
export function mainStrategy(strategies: string[]): string {
  const others = strategies.filter((s) => s !== 'retainKeys');
  if (strategies.length > 2 || others.length > 1) throw internal(`unexpected patch strategy: ${goString(strategies)}`);
  return others[0] ?? '';
}
