// Copies the write pipeline takes of what callers hold, and the depth limit on what it stores.
import type { KObject } from '../machinery/types.js';
import { maxObjectDepth, objectTooDeep } from '../machinery/depth-limits.js';
import { copyJson, jsonDepth, JsonTooDeep } from '../util/json-tree.js';

/** What is stored is copied and serialized by V8's recursive routines: refuse what nests deeper than they go. */
export function checkDepth(def: { kind: string }, obj: KObject): void {
  if (jsonDepth(obj, maxObjectDepth) > maxObjectDepth) throw objectTooDeep(def.kind);
}

/** A copy the pipeline may change of a value a caller holds, refused (as checkDepth does) when it nests too deep. */
export function ownCopy<T>(def: { kind: string }, value: T): T {
  try {
    return copyJson(value, maxObjectDepth);
  } catch (e) {
    if (e instanceof JsonTooDeep) throw objectTooDeep(def.kind);
    throw e;
  }
}
