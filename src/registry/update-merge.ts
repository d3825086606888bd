// What an update keeps of the stored object: the resourceVersion precondition, the system metadata, the status (or
// the spec, on a status write), a subresource's part, and whether the update deletes the object instead.
import { ApiError, badRequest } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import { maxObjectDepth } from '../machinery/depth-limits.js';
import { jsonEqualExcept } from '../util/json-tree.js';
import { hasOwn } from '../util/own.js';
import { managedFieldsDecodable } from './managed-fields.js';
import { ownCopy } from './own-copy.js';

/** What of a kind's definition an update reads (structurally a ResourceDef). */
interface MergeDef {
  kind: string;
  group: string;
  plural: string;
  namespaced: boolean;
  subresources?: readonly string[];
  partialWrites?: Partial<Record<string, { merge(cur: KObject, next: KObject, now: Date): KObject }>>;
}

const maxUint64 = (1n << 64n) - 1n;

/**
 * Whether an update carrying `sent` may replace the object at `current`: as upstream's storage versioner reads it, an
 * empty or "0" resourceVersion is an unconditional update, any other must be the current one (numerically: "05" is
 * 5). A value that is no unsigned integer is refused (upstream lets strconv's error through as a 500; here a 400).
 */
export function matchesResourceVersion(sent: unknown, current: string | undefined): boolean {
  if (sent === undefined || sent === null || sent === '') return true;
  // The common case, a write carrying the version it read: equal digit strings short of 20 digits fit in 64 bits.
  if (sent === current && current.length < 20 && /^\d+$/.test(current)) return true;
  const text = String(sent);
  if (!/^\d+$/.test(text)) throw badRequest(`strconv.ParseUint: parsing ${JSON.stringify(text)}: invalid syntax`);
  const n = BigInt(text);
  if (n > maxUint64) throw badRequest(`strconv.ParseUint: parsing ${JSON.stringify(text)}: value out of range`);
  return n === 0n || (current !== undefined && /^\d+$/.test(current) && n === BigInt(current));
}

const notSpec: ReadonlySet<string> = new Set(['metadata', 'status']);
/** Whether the object's spec (everything but metadata and status) is unchanged, as its generation counts changes. */
export const sameSpec = (a: KObject, b: KObject) => jsonEqualExcept(a, b, notSpec, maxObjectDepth);

/**
 * A status write: the current object with the status of `next`. Everything but metadata and status is the stored
 * object's own (shared: the spec cannot change through the status, so it is neither copied nor validated again);
 * the metadata is a copy, as later steps set fields on it.
 */
function withStatus(cur: KObject, next: KObject): KObject {
  return { ...cur, metadata: { ...cur.metadata }, status: next.status };
}

export function merge(def: MergeDef, cur: KObject, next: KObject, subresource: string | undefined, now: Date): KObject {
  const cm = cur.metadata;
  let result: KObject;
  if (subresource === 'status') {
    result = withStatus(cur, next);
  } else if (subresource) {
    const part = def.partialWrites?.[subresource];
    // A subresource the kind does not write: what upstream answers for a path it does not serve.
    if (!part) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
    result = part.merge(cur, next, now);
  } else {
    result = next;
    if (def.subresources?.includes('status')) {
      if (cur.status === undefined) delete result.status;
      else result.status = ownCopy(def, cur.status);
    }
  }
  const m = (result.metadata ??= {});
  m.name = cm.name;
  if (def.namespaced) m.namespace = cm.namespace;
  m.uid = cm.uid;
  m.creationTimestamp = cm.creationTimestamp;
  if (cm.deletionTimestamp) m.deletionTimestamp = cm.deletionTimestamp;
  else delete m.deletionTimestamp;
  if (cm.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = cm.deletionGracePeriodSeconds;
  else delete m.deletionGracePeriodSeconds;
  if (cm.generation !== undefined) m.generation = cm.generation;
  // Kept from the stored object unless the write carries decodable ones (set only when there are some: no property
  // added and deleted again on every write).
  const mf = m.managedFields;
  if (mf === undefined || mf === null || !managedFieldsDecodable(mf)) {
    if (cm.managedFields !== undefined) m.managedFields = cm.managedFields;
    else if (hasOwn(m, 'managedFields')) delete m.managedFields;
  }
  delete m.selfLink;
  return result;
}

/**
 * Whether an update removes the object instead of writing it: it is being deleted and nothing holds it any longer. A
 * namespace is held by its spec finalizers too (the finalize subresource removes them), as upstream's namespace store decides.
 */
export function deletesOnUpdate(def: MergeDef, result: KObject, cur: KObject): boolean {
  if (!result.metadata.deletionTimestamp || result.metadata.finalizers?.length) return false;
  if (def.group === '' && def.plural === 'namespaces') return !(result.spec as { finalizers?: unknown[] } | undefined)?.finalizers?.length;
  return !!cur.metadata.finalizers?.length;
}
