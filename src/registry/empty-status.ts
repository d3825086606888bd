// A kind's status as upstream always serialises it: Go encodes a non-pointer status struct even when nothing was
// ever written to it, as `{}` or with the zero values of its fields that lack `omitempty`. Clients rely on it
// (the Python client reads `status.available_replicas` of a Deployment it has just created).
import { isRecord, type KObject } from '../machinery/types.js';
import { getOwn } from '../util/own.js';
import type { ResourceDef } from './resource.js';

/**
 * Adds the zero values `target` lacks (a JSON null reads as the zero value too, as Go decodes it). The recursion
 * follows `zero`, a kind's static template a few levels deep, so it needs no depth limit.
 */
function fillMissing(target: Record<string, unknown>, zero: Record<string, unknown>): void {
  const entries = entriesOf(zero);
  for (let i = 0; i < entries.length; i++) {
    const [k, v] = entries[i];
    const have = getOwn(target, k);
    if (have === undefined || (have === null && v !== null)) target[k] = structuredClone(v);
    else if (isRecord(have) && isRecord(v)) fillMissing(have, v);
  }
}

/** The entries of a static template, listed once (every write of the kind walks them). */
const templateEntries = new WeakMap<Record<string, unknown>, Array<[string, unknown]>>();
function entriesOf(zero: Record<string, unknown>): Array<[string, unknown]> {
  let entries = templateEntries.get(zero);
  if (!entries) templateEntries.set(zero, (entries = Object.entries(zero)));
  return entries;
}

/** Gives `obj` its kind's empty status, or fills in the zero fields its status lacks. */
export function fillEmptyStatus(def: ResourceDef, obj: KObject): void {
  const zero = def.emptyStatus;
  if (!zero) return;
  if (!isRecord(obj.status)) obj.status = {};
  fillMissing(obj.status as Record<string, unknown>, zero);
}
