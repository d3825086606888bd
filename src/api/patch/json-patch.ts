// RFC 6902 JSON Patch, with the failure modes of the JSON patch library the upstream apiserver uses:
// a document that is not a list of operations is a 400; an operation that cannot be applied is a 422.
import { tooLarge } from '../../machinery/errors.js';
import { isRecord } from '../../machinery/types.js';
import { hasOwn, setOwn } from '../../util/own.js';
import { badRequest, clone, deepEqual, jsonKindName, unprocessable } from './util.js';

/** kube-apiserver's bound on the operations of one JSON patch. */
const maxJsonPatchOperations = 10_000;

type Container = Record<string, unknown> | unknown[];

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

/** The container holding the last token of `tokens`, walking from `root`. */
function parentOf(root: unknown, tokens: string[], op: string, path: string): Container {
  let cur: unknown = root;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(cur, t, false)];
    else if (isRecord(cur) && hasOwn(cur, t)) cur = cur[t];
    else throw new OpFailed(`${op} operation does not apply: doc is missing path: "${path}"`);
  }
  if (!Array.isArray(cur) && !isRecord(cur)) throw new OpFailed(`${op} operation does not apply: doc is missing path: "${path}"`);
  return cur;
}

function getAt(root: unknown, tokens: string[], op: string, path: string): { found: boolean; value: unknown } {
  if (tokens.length === 0) return { found: true, value: root };
  const parent = parentOf(root, tokens, op, path);
  const key = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, key, false);
    return { found: true, value: parent[i] };
  }
  if (!hasOwn(parent, key)) return { found: false, value: undefined };
  return { found: true, value: parent[key] };
}

/** Each op returns the (possibly replaced) root document. */
function add(root: unknown, tokens: string[], value: unknown, op = 'add', path = ''): unknown {
  if (tokens.length === 0) return value;
  const parent = parentOf(root, tokens, op, path);
  const key = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true), 0, value);
  else setOwn(parent, key, value);
  return root;
}

function remove(root: unknown, tokens: string[], op = 'remove', path = ''): unknown {
  if (tokens.length === 0) throw new OpFailed(`${op} operation does not apply: cannot remove the document root`);
  const parent = parentOf(root, tokens, op, path);
  const key = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, false), 1);
  else if (hasOwn(parent, key)) delete parent[key];
  else throw new OpFailed(`Unable to remove nonexistent key: ${key}: missing value`);
  return root;
}

function replace(root: unknown, tokens: string[], value: unknown, path: string): unknown {
  if (tokens.length === 0) return value;
  const parent = parentOf(root, tokens, 'replace', path);
  const key = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent[arrayIndex(parent, key, false)] = value;
  else if (hasOwn(parent, key)) setOwn(parent, key, value);
  else throw new OpFailed(`replace operation does not apply: doc is missing key: ${path}: missing value`);
  return root;
}

function applyOne(root: unknown, op: Record<string, unknown>): unknown {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  const path = typeof op.path === 'string' ? op.path : '';
  const value = op.value === undefined ? null : clone(op.value);
  switch (kind) {
    case 'add':
      return add(root, parsePointer(op.path), value, 'add', path);
    case 'remove':
      return remove(root, parsePointer(op.path), 'remove', path);
    case 'replace':
      return replace(root, parsePointer(op.path), value, path);
    case 'move':
    case 'copy': {
      if (typeof op.from !== 'string') throw new OpFailed('operation missing from field');
      const from = parsePointer(op.from);
      const got = getAt(root, from, kind, op.from);
      if (!got.found) throw new OpFailed(`${kind} operation does not apply: doc is missing from path: ${op.from}: missing value`);
      const to = parsePointer(op.path);
      if (kind === 'move') {
        if (op.path !== op.from && path.startsWith(`${op.from}/`)) throw new OpFailed('move operation cannot move a value into one of its children');
        root = remove(root, from, 'move', op.from);
        return add(root, to, got.value, 'move', path);
      }
      return add(root, to, clone(got.value), 'copy', path);
    }
    case 'test': {
      const got = getAt(root, parsePointer(op.path), 'test', path);
      if (!got.found || got.value === null) {
        if (op.value === undefined || op.value === null) return root;
      } else if (deepEqual(got.value, op.value)) return root;
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
  let root = clone(doc);
  try {
    for (const op of patch as Record<string, unknown>[]) root = applyOne(root, op);
  } catch (e) {
    if (e instanceof OpFailed) throw unprocessable();
    throw e;
  }
  return root;
}
