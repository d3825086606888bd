// RFC 7386 JSON Merge Patch. Nulls in the patch delete; nulls inside newly added objects are dropped.
// Iterative, so a patch as deep as the JSON decoder accepts is applied; keys are own keys only.
import { isRecord } from '../../machinery/types.js';
import { cloneJson } from '../../util/json-tree.js';
import { getOwn, setOwn } from '../../util/own.js';
import { badRequest } from './util.js';

type Rec = Record<string, unknown>;

function mergeInto(target: Rec, patch: Rec): Rec {
  const work: [Rec, Rec][] = [[target, patch]];
  while (work.length) {
    const [t, p] = work.pop()!;
    for (const [k, pv] of Object.entries(p)) {
      const tv = getOwn(t, k);
      if (pv === null) delete t[k];
      else if (isRecord(pv) && isRecord(tv)) work.push([tv, pv]);
      else setOwn(t, k, cloneJson(pv, true));
    }
  }
  return target;
}

/** Applies a merge patch (parsed JSON) to a copy of `doc`. Only objects are accepted as patches. */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) throw badRequest('Invalid JSON Patch');
  if (!isRecord(doc)) return cloneJson(patch, true);
  return mergeInto(cloneJson(doc), patch);
}
