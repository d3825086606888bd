// Strategic merge patch: JSON merge patch plus per-field list semantics taken from the kind's OpenAPI schema
// (x-kubernetes-patch-merge-key / x-kubernetes-patch-strategy) and the $patch, $retainKeys,
// $setElementOrder/ and $deleteFromPrimitiveList/ directives. Fields without schema merge like a merge patch.
import { isRecord, type GroupVersionKind, type KObject } from '../../machinery/types.js';
import { getOwn, hasOwn, setOwn } from '../../util/own.js';
import { recurse, runRecursion, type Step } from '../../util/trampoline.js';
import { maxJsonDepth } from '../../machinery/depth-limits.js';
import { fieldNode, itemNode, patchMeta, rootNode, type SchemaNode } from './schema.js';
import {
  DELETE_PRIMITIVE, DIRECTIVE, RETAIN_KEYS, SET_ORDER, elementKind, errBadArgType, errBadPatchType, errBadRetainKeys,
  errNoMergeKey, isDeleteItem, mainStrategy, normalizeOrder, partition, validateSetOrder,
} from './strategic-order.js';
import { badRequest, clone, internal, jsonKindName } from './util.js';

type Rec = Record<string, unknown>;
const shape = (v: unknown) => (Array.isArray(v) ? 'list' : isRecord(v) ? 'map' : 'scalar');

/** A patch value placed where the original has nothing: directives are resolved, nulls dropped. */
function* materialize(v: unknown, n: SchemaNode | undefined): Step<{ keep: boolean; value?: unknown }> {
  if (isRecord(v)) {
    if (v[DIRECTIVE] === 'delete') return { keep: false };
    return { keep: true, value: yield* recurse(mergeMap, {}, v, n) };
  }
  if (Array.isArray(v)) return { keep: true, value: yield* recurse(materializeList, v, itemNode(n)) };
  return { keep: true, value: v };
}

function* materializeList(list: unknown[], item: SchemaNode | undefined): Step<unknown[]> {
  const out: unknown[] = [];
  for (const v of list) {
    if (isRecord(v) && hasOwn(v, DIRECTIVE)) continue;
    out.push(isRecord(v) ? yield* recurse(mergeMap, {}, v, item) : v);
  }
  return out;
}

function applyRetainKeys(original: Rec, patch: Rec): void {
  if (!hasOwn(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw errBadRetainKeys();
  const keep = new Set(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_PRIMITIVE) || k.startsWith(SET_ORDER)) continue;
    if (!keep.has(k)) throw errBadRetainKeys();
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/** Merges each `$setElementOrder/<list>` with its list (if patched) and orders the result by the directive. */
function* applySetElementOrder(original: Rec, patch: Rec, n: SchemaNode | undefined): Step<void> {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw errBadArgType('[]interface {}', order);
    const listKey = key.slice(SET_ORDER.length);
    const inOrig = hasOwn(original, listKey);
    const inPatch = hasOwn(patch, listKey);
    // The list's name comes from the patch: a missing `constructor` list is missing, not Object.
    const origList = getOwn(original, listKey);
    const patchList = getOwn(patch, listKey);
    if (inOrig && !Array.isArray(origList)) throw errBadArgType('[]interface {}', origList);
    if (inPatch && !Array.isArray(patchList)) throw errBadArgType('[]interface {}', patchList);
    const sub = fieldNode(n, listKey);
    const meta = patchMeta(sub);
    const strategy = mainStrategy(meta.strategies);
    const o = (origList as unknown[] | undefined) ?? [];
    const p = (patchList as unknown[] | undefined) ?? [];
    validateSetOrder(p, order, meta.mergeKey);
    let merged: unknown[];
    if (inOrig && !inPatch) merged = o;
    else if (!inOrig && inPatch) merged = yield* recurse(materializeList, p, itemNode(sub));
    else if (inOrig && inPatch) merged = yield* recurse(mergeListField, o, p, itemNode(sub), strategy, meta.mergeKey, false);
    else continue;
    delete patch[listKey];
    const kind = elementKind(o, p);
    if (!kind || (kind === 'map' && !meta.mergeKey)) {
      setOwn(original, listKey, merged);
      continue;
    }
    const [ordered, serverOnly] = partition(merged, order, meta.mergeKey, kind);
    setOwn(original, listKey, normalizeOrder(ordered, serverOnly, order, o, meta.mergeKey, kind));
  }
}

function* mergeMap(original: Rec | undefined, patch: Rec, n: SchemaNode | undefined): Step<Rec> {
  if (hasOwn(patch, DIRECTIVE)) {
    const d = patch[DIRECTIVE];
    if (d === 'replace') {
      const rest = { ...patch };
      delete rest[DIRECTIVE];
      return yield* recurse(mergeMap, {}, rest, n);
    }
    if (d === 'delete') return {};
    throw errBadPatchType(d, patch);
  }
  const orig = original ?? {};
  applyRetainKeys(orig, patch);
  yield* applySetElementOrder(orig, patch, n);
  for (const [key, pv] of Object.entries(patch)) {
    let k = key;
    let deleteList = false;
    if (key.startsWith(DELETE_PRIMITIVE)) {
      k = key.slice(DELETE_PRIMITIVE.length);
      deleteList = true;
    }
    if (pv === null) {
      delete orig[k];
      continue;
    }
    const sub = fieldNode(n, k);
    if (!hasOwn(orig, k) || shape(orig[k]) !== shape(pv)) {
      if (deleteList) continue;
      const m = yield* recurse(materialize, pv, sub);
      if (m.keep) setOwn(orig, k, m.value);
      else delete orig[k];
      continue;
    }
    const meta = patchMeta(sub);
    const strategy = mainStrategy(meta.strategies);
    if (isRecord(pv)) {
      setOwn(orig, k, yield* recurse(mergeMap, strategy === 'replace' ? {} : (orig[k] as Rec), pv, sub));
    } else if (Array.isArray(pv)) {
      setOwn(orig, k, yield* recurse(mergeListField, orig[k] as unknown[], pv, itemNode(sub), strategy, meta.mergeKey, deleteList));
    } else {
      setOwn(orig, k, pv);
    }
  }
  return orig;
}

function* mergeListField(original: unknown[], patch: unknown[], item: SchemaNode | undefined, strategy: string, mergeKey: string, deleteList: boolean): Step<unknown[]> {
  if (strategy === 'merge' || deleteList) return yield* mergeList(original, patch, item, mergeKey, deleteList);
  return yield* materializeList(patch, item);
}

function* mergeList(original: unknown[], patch: unknown[], item: SchemaNode | undefined, mergeKey: string, deleteList: boolean): Step<unknown[]> {
  if (!original.length && !patch.length) return original;
  const kind = elementKind(original, patch)!;
  if (kind === 'scalar') {
    if (deleteList) {
      const drop = new Set(patch);
      return original.filter((v) => !drop.has(v));
    }
    const merged = [...new Set([...original, ...patch])];
    const [ordered, serverOnly] = partition(merged, patch, '', kind);
    return normalizeOrder(ordered, serverOnly, patch, original, '', kind);
  }
  if (!mergeKey) throw internal(`cannot merge lists without merge key for ${item?.s.type ?? 'Struct'}`);

  // Directive items first: deletions shrink the original, a replace marker discards it.
  const deleted = new Set<unknown>();
  const plain: Rec[] = [];
  let replace = false;
  for (const v of patch as Rec[]) {
    if (!hasOwn(v, DIRECTIVE)) {
      plain.push(v);
      continue;
    }
    if (isDeleteItem(v)) {
      if (!hasOwn(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
      deleted.add(v[mergeKey]);
    } else if (v[DIRECTIVE] === 'replace') replace = true;
    else if (v[DIRECTIVE] === 'merge') throw internal('merging lists cannot yet be specified in the patch');
    else throw errBadPatchType(v[DIRECTIVE], v);
  }
  if (replace) {
    const out: Rec[] = [];
    for (const v of plain) out.push(yield* recurse(mergeMap, {}, v, item));
    return out;
  }

  const orig = deleted.size ? original.filter((x) => !(isRecord(x) && deleted.has(x[mergeKey]))) : original;
  const merged = orig.slice();
  // Where each merge key first occurs (items are maps here: elementKind refused anything else).
  const at = new Map<unknown, number>();
  merged.forEach((x, i) => {
    const key = (x as Rec)[mergeKey];
    if (!at.has(key)) at.set(key, i);
  });
  for (const v of plain) {
    if (!hasOwn(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    const i = at.get(v[mergeKey]);
    if (i !== undefined) merged[i] = yield* recurse(mergeMap, merged[i] as Rec, v, item);
    else {
      at.set(v[mergeKey], merged.length);
      merged.push(yield* recurse(mergeMap, {}, v, item));
    }
  }
  const [ordered, serverOnly] = partition(merged, plain, mergeKey, kind);
  return normalizeOrder(ordered, serverOnly, plain, orig, mergeKey, kind);
}

/** Applies a strategic merge patch (parsed JSON) to a copy of `original`, using the schema of `gvk`. */
export function applyStrategicMergePatch(original: KObject, patch: unknown, gvk: GroupVersionKind): KObject {
  if (patch === null || patch === undefined) return clone(original);
  if (!isRecord(patch)) throw badRequest(`json: cannot unmarshal ${jsonKindName(patch)} into Go value of type map[string]interface {}`);
  const tooDeep = () => badRequest(`the strategic merge patch nests more than ${maxJsonDepth} levels deep`);
  return runRecursion(mergeMap(clone(original) as Rec, clone(patch), rootNode(gvk)), 2 * maxJsonDepth + 2, tooDeep) as KObject;
}
