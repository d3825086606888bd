// What changed between two states of the cluster: objects added, removed, and the fields changed in the others,
// as compact paths (`spec.replicas: 3 → 4`, `status.conditions[Ready].status: "False" → "True"`). Bookkeeping
// fields every write touches (resourceVersion, managedFields, heartbeat times) are not changes a class looks for.
import { arr, rec, str, type Obj } from './model.js';

export interface FieldChange {
  path: string;
  /** Compact JSON; absent when the field did not exist on that side. */
  before?: string;
  after?: string;
}

export interface ObjectDiff {
  /** `Pod default/web-1`, `Node bonsai-worker-1`. */
  id: string;
  change: 'added' | 'removed' | 'changed';
  fields: FieldChange[];
}

const ignored = new Set(['resourceVersion', 'managedFields', 'lastHeartbeatTime', 'lastProbeTime']);
/** Fields listed per object at most; more are counted. */
export const maxFields = 30;

function objectId(o: Obj, resource: string): string {
  const m = rec(o.metadata);
  const kind = str(o.kind) || resource;
  return `${kind} ${m.namespace ? `${str(m.namespace)}/` : ''}${str(m.name)}`;
}

const compact = (v: unknown): string => {
  const s = JSON.stringify(v) ?? 'null';
  return s.length > 120 ? `${s.slice(0, 117)}…` : s;
};

/** Arrays of objects named by `name` or `type` (containers, conditions) compare by that name, others by index. */
function keyed(a: unknown[]): Map<string, unknown> | undefined {
  const out = new Map<string, unknown>();
  for (const v of a) {
    const r = rec(v);
    const k = str(r.name) || str(r.type);
    if (!k || out.has(k)) return undefined;
    out.set(k, v);
  }
  return out;
}

function walk(path: string, a: unknown, b: unknown, out: FieldChange[]): void {
  if (out.length > maxFields) return;
  if (JSON.stringify(a) === JSON.stringify(b)) return;
  const bothObjects = a && b && typeof a === 'object' && typeof b === 'object';
  if (bothObjects && Array.isArray(a) && Array.isArray(b)) {
    const ka = keyed(a);
    const kb = keyed(b);
    if (ka && kb) {
      for (const k of new Set([...ka.keys(), ...kb.keys()])) walk(`${path}[${k}]`, ka.get(k), kb.get(k), out);
      return;
    }
    if (a.length === b.length) {
      a.forEach((v, i) => walk(`${path}[${i}]`, v, b[i], out));
      return;
    }
  } else if (bothObjects && !Array.isArray(a) && !Array.isArray(b)) {
    const ra = a as Obj;
    const rb = b as Obj;
    for (const k of new Set([...Object.keys(ra), ...Object.keys(rb)])) {
      if (ignored.has(k)) continue;
      walk(path ? `${path}.${k}` : k, Object.prototype.hasOwnProperty.call(ra, k) ? ra[k] : undefined, Object.prototype.hasOwnProperty.call(rb, k) ? rb[k] : undefined, out);
    }
    return;
  }
  out.push({ path, before: a === undefined ? undefined : compact(a), after: b === undefined ? undefined : compact(b) });
}

/** The fields that differ between two versions of one object. */
export function fieldChanges(before: Obj, after: Obj): FieldChange[] {
  const out: FieldChange[] = [];
  walk('', before, after, out);
  return out;
}

/** Objects by resource, as /bonsai/v1/history/state answers them. */
export type Snapshot = Record<string, unknown>;

function index(s: Snapshot): Map<string, Obj> {
  const out = new Map<string, Obj>();
  for (const [resource, items] of Object.entries(s)) {
    for (const o of arr(items).map(rec)) out.set(objectId(o, resource), o);
  }
  return out;
}

export function diffStates(before: Snapshot, after: Snapshot): ObjectDiff[] {
  const a = index(before);
  const b = index(after);
  const out: ObjectDiff[] = [];
  for (const [id, o] of b) {
    const old = a.get(id);
    if (!old) out.push({ id, change: 'added', fields: [] });
    else {
      const fields = fieldChanges(old, o);
      if (fields.length) out.push({ id, change: 'changed', fields });
    }
  }
  for (const id of a.keys()) if (!b.has(id)) out.push({ id, change: 'removed', fields: [] });
  const order = { added: 0, removed: 1, changed: 2 };
  return out.sort((x, y) => order[x.change] - order[y.change] || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
}
