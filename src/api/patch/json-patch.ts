// RFC 6902 JSON Patch, with the failure modes of the JSON patch library the upstream apiserver uses:
// a document that is not a list of operations is a 400; an operation that cannot be applied is a 422.
// What `copy` operations add is bounded as the library bounds it (AccumulatedCopySizeLimit): a patch of a few
// dozen copies that each double a value would otherwise build gigabytes.
import { tooLarge } from '../../machinery/errors.js';
import { isRecord } from '../../machinery/types.js';
import { hasOwn, setOwn } from '../../util/own.js';
import { maxBodyBytes } from '../body-reader.js';
import { SharedTree, type Container } from './shared-tree.js';
import { jsonSizeUpTo } from './size.js';
import { badRequest, clone, deepEqual, jsonKindName, unprocessable } from './util.js';

/** kube-apiserver's bound on the operations of one JSON patch. */
const maxJsonPatchOperations = 10_000;

/**
 * The bytes all `copy` operations of one patch may add together: kube-apiserver's JSONPatchMaxCopyBytes, which it
 * defaults to its request body limit (3 MiB) and hands to evanphx/json-patch as AccumulatedCopySizeLimit.
 */
export const maxCopyBytes = maxBodyBytes;

/** Thrown internally for an operation that does not apply; reported to clients as a generic 422. */
class OpFailed extends Error {}

function parsePointer(path: unknown): string[] {
  if (typeof path !== 'string') throw new OpFailed('operation missing path field');
  if (path === '') return [];
  if (!path.startsWith('/')) throw new OpFailed(`invalid path: ${path}`);
  return path.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(arr: unknown[], token: string, forInsert: boolean): number {
  if (forInsert && token === '-') return arr.length;
  if (!/^-?\d+$/.test(token)) throw new OpFailed(`Unable to access invalid index: ${token}`);
  let i = Number(token);
  if (i < 0) {
    if (i < -arr.length) throw new OpFailed(`Unable to access invalid index: ${token}`);
    i += arr.length;
  }
  if (forInsert ? i > arr.length : i >= arr.length) throw new OpFailed(`Unable to access invalid index: ${token}`);
  return i;
}

/** The container holding the last token of `tokens`; with `write`, it and the containers above it are owned. */
function parentOf(doc: SharedTree, tokens: string[], op: string, path: string, write: boolean): Container {
  let cur: unknown = write ? doc.ownedRoot() : doc.root;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) {
      const i = arrayIndex(cur, t, false);
      cur = write ? doc.ownedChild(cur, i) : cur[i];
    } else if (isRecord(cur) && hasOwn(cur, t)) cur = write ? doc.ownedChild(cur, t) : cur[t];
    else throw new OpFailed(`${op} operation does not apply: doc is missing path: "${path}"`);
  }
  if (!Array.isArray(cur) && !isRecord(cur)) throw new OpFailed(`${op} operation does not apply: doc is missing path: "${path}"`);
  return cur;
}

function getAt(doc: SharedTree, tokens: string[], op: string, path: string): { found: boolean; value: unknown } {
  if (tokens.length === 0) return { found: true, value: doc.root };
  const parent = parentOf(doc, tokens, op, path, false);
  const key = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, key, false);
    return { found: true, value: parent[i] };
  }
  if (!hasOwn(parent, key)) return { found: false, value: undefined };
  return { found: true, value: parent[key] };
}

function add(doc: SharedTree, tokens: string[], value: unknown, op = 'add', path = ''): void {
  if (tokens.length === 0) {
    doc.root = value;
    return;
  }
  const parent = parentOf(doc, tokens, op, path, true);
  const key = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true), 0, value);
  else setOwn(parent, key, value);
}

function remove(doc: SharedTree, tokens: string[], op = 'remove', path = ''): void {
  if (tokens.length === 0) throw new OpFailed(`${op} operation does not apply: cannot remove the document root`);
  const parent = parentOf(doc, tokens, op, path, true);
  const key = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, false), 1);
  else if (hasOwn(parent, key)) delete parent[key];
  else throw new OpFailed(`Unable to remove nonexistent key: ${key}: missing value`);
}

function replace(doc: SharedTree, tokens: string[], value: unknown, path: string): void {
  if (tokens.length === 0) {
    doc.root = value;
    return;
  }
  const parent = parentOf(doc, tokens, 'replace', path, true);
  const key = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent[arrayIndex(parent, key, false)] = value;
  else if (hasOwn(parent, key)) setOwn(parent, key, value);
  else throw new OpFailed(`replace operation does not apply: doc is missing key: ${path}: missing value`);
}

/** The encoded size of each copied value, summed over a patch; refuses the copy that takes the sum past the limit. */
class CopyBudget {
  private used = 0;
  constructor(private readonly doc: SharedTree) {}
  /** Charges the copy of `value`, which is then shared by the document (never cloned). */
  spend(value: unknown): void {
    const size = jsonSizeUpTo(value, maxCopyBytes - this.used, 'go', this.doc.knownSize);
    this.used += size;
    // The library's words, which kube-apiserver does not pass on (its 422 carries a fixed message).
    if (this.used > maxCopyBytes) throw new OpFailed(`Unable to complete the copy, the accumulated size increase of copy is ${this.used}, exceeding the limit ${maxCopyBytes}`);
    this.doc.share(value, size);
  }
}

function applyOne(doc: SharedTree, op: Record<string, unknown>, copies: CopyBudget): void {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  const path = typeof op.path === 'string' ? op.path : '';
  const value = op.value === undefined ? null : clone(op.value);
  switch (kind) {
    case 'add':
      return add(doc, parsePointer(op.path), value, 'add', path);
    case 'remove':
      return remove(doc, parsePointer(op.path), 'remove', path);
    case 'replace':
      return replace(doc, parsePointer(op.path), value, path);
    case 'move':
    case 'copy': {
      if (typeof op.from !== 'string') throw new OpFailed('operation missing from field');
      const from = parsePointer(op.from);
      const got = getAt(doc, from, kind, op.from);
      if (!got.found) throw new OpFailed(`${kind} operation does not apply: doc is missing from path: ${op.from}: missing value`);
      const to = parsePointer(op.path);
      if (kind === 'move') {
        if (op.path !== op.from && path.startsWith(`${op.from}/`)) throw new OpFailed('move operation cannot move a value into one of its children');
        remove(doc, from, 'move', op.from);
        return add(doc, to, got.value, 'move', path);
      }
      // Shared before the destination is reached: a copy into the value itself then writes into a copy of it.
      copies.spend(got.value);
      return add(doc, to, got.value, 'copy', path);
    }
    case 'test': {
      const got = getAt(doc, parsePointer(op.path), 'test', path);
      if (!got.found || got.value === null) {
        if (op.value === undefined || op.value === null) return;
      } else if (deepEqual(got.value, op.value)) return;
      throw new OpFailed(`testing value ${path} failed: test failed`);
    }
    default:
      throw new OpFailed(`Unexpected kind: ${kind}`);
  }
}

/** Applies an RFC 6902 patch (already parsed from JSON) to a copy of `doc`. */
export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  if (patch === null || patch === undefined) return clone(doc);
  if (!Array.isArray(patch)) throw badRequest(`json: cannot unmarshal ${jsonKindName(patch)} into Go value of type jsonpatch.Patch`);
  if (patch.length > maxJsonPatchOperations) {
    throw tooLarge(`Request entity too large: The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${patch.length}`);
  }
  for (const op of patch) {
    if (!isRecord(op)) throw badRequest(`json: cannot unmarshal ${jsonKindName(op)} into Go value of type jsonpatch.Operation`);
  }
  const tree = new SharedTree(doc);
  const copies = new CopyBudget(tree);
  try {
    for (const op of patch as Record<string, unknown>[]) applyOne(tree, op, copies);
  } catch (e) {
    if (e instanceof OpFailed) throw unprocessable();
    throw e;
  }
  return tree.finish();
}
