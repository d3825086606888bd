// RFC 7386 JSON Merge Patch. Nulls in the patch delete; nulls inside newly added objects are dropped.
import { isRecord } from '../../machinery/types.js';
import { badRequest, clone } from './util.js';

function pruneNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => (x === null ? x : pruneNulls(x)));
  if (!isRecord(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = pruneNulls(x);
  return out;
}

function mergeInto(target: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  for (const [k, pv] of Object.entries(patch)) {
    if (pv === null) {
      delete target[k];
    } else if (isRecord(pv) && isRecord(target[k])) {
      target[k] = mergeInto(target[k] as Record<string, unknown>, pv);
    } else {
      target[k] = pruneNulls(clone(pv));
    }
  }
  return target;
}

/** Applies a merge patch (parsed JSON) to a copy of `doc`. Only objects are accepted as patches. */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) throw badRequest('Invalid JSON Patch');
  if (!isRecord(doc)) return pruneNulls(clone(patch));
  return mergeInto(clone(doc), patch);
}
