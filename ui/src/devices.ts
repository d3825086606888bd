// A node's devices as its detail panel lists them, from the node's ResourceSlices and the cluster's ResourceClaims:
// each device with its model, and who holds it (a claim and the pods it is reserved for), or free. A MIG partition
// is listed only while held, under its GPU (which then is neither free nor allocatable whole). Pods asking for
// `nvidia.com/gpu` through the node's capacity hold whole GPUs too: as the scheduler counts them, the first free
// ones in the driver's order.
import { arr, rec, str, type Obj, type PodView } from './model.js';

export interface DeviceRow {
  /** `<driver>/<pool>/<device>`. */
  key: string;
  name: string;
  model: string;
  /** The MIG profile (`1g.10gb`), '' for a whole device. */
  profile: string;
  memory: string;
  /** For a partition: the key of its GPU (the device consuming the same counter set that is not a partition). */
  parent: string;
  /** `<ns>/<claim>` holding it, '' when none does. */
  claim: string;
  /** The pods holding it: those a claim is reserved for, or the pod holding it through the nvidia.com/gpu capacity. */
  pods: string[];
  state: 'free' | 'claimed' | 'capacity' | 'partitioned';
}

const attr = (d: Obj, name: string, driver: string): string => {
  const attrs = rec(d.attributes);
  const v = rec(attrs[name] ?? attrs[`${driver}/${name}`]);
  return str(v.string) || (typeof v.int === 'number' ? String(v.int) : str(v.version));
};

interface Holder { claim: string; pods: string[] }

/** Who holds each device (by key), from the claims' allocations. */
function holders(claims: Obj[]): Map<string, Holder> {
  const out = new Map<string, Holder>();
  for (const c of claims) {
    const meta = rec(c.metadata);
    const ns = str(meta.namespace);
    const status = rec(c.status);
    const pods = arr(status.reservedFor).map(rec).filter((r) => str(r.resource) === 'pods').map((r) => `${ns}/${str(r.name)}`);
    for (const r of arr(rec(rec(status.allocation).devices).results).map(rec)) {
      if (r.adminAccess === true) continue;
      out.set(`${str(r.driver)}/${str(r.pool)}/${str(r.device)}`, { claim: `${ns}/${str(meta.name)}`, pods });
    }
  }
  return out;
}

/** The node's devices (slices of the node, in their order), with their holders. `pods`: the pods bound to the node. */
export function nodeDevices(slices: Obj[], claims: Obj[], pods: PodView[]): DeviceRow[] {
  const held = holders(claims);
  const rows: DeviceRow[] = [];
  const wholeBySet = new Map<string, string>();
  for (const s of slices) {
    const spec = rec(s.spec);
    const driver = str(spec.driver);
    const pool = str(rec(spec.pool).name);
    for (const d of arr(spec.devices).map(rec)) {
      const name = str(d.name);
      const key = `${driver}/${pool}/${name}`;
      const counterSet = str(rec(arr(d.consumesCounters)[0]).counterSet);
      const partition = attr(d, 'type', driver) === 'mig';
      if (!partition && counterSet) wholeBySet.set(`${driver}/${pool}/${counterSet}`, key);
      const h = held.get(key);
      rows.push({
        key, name, model: attr(d, 'productName', driver) || driver, profile: partition ? attr(d, 'profile', driver) : '',
        memory: str(rec(rec(d.capacity).memory).value), parent: partition && counterSet ? `${driver}/${pool}/${counterSet}` : '',
        claim: h?.claim ?? '', pods: h?.pods ?? [], state: h ? 'claimed' : 'free',
      });
    }
  }
  const byKey = new Map(rows.map((r) => [r.key, r]));
  for (const r of rows) {
    if (!r.parent) continue;
    r.parent = wholeBySet.get(r.parent) ?? '';
    const gpu = byKey.get(r.parent);
    if (r.state === 'claimed' && gpu?.state === 'free') gpu.state = 'partitioned';
  }
  // Pods bound through the capacity (no claim reserved for them) take the first free whole GPUs.
  const claimed = new Set([...held.values()].flatMap((h) => h.pods));
  const free = rows.filter((r) => r.state === 'free' && !r.parent && r.key.startsWith('gpu.bonsai.dev/'));
  for (const p of pods) {
    if (!p.req.gpu || claimed.has(p.key)) continue;
    for (let i = 0; i < p.req.gpu && free.length; i++) Object.assign(free.shift()!, { state: 'capacity', pods: [p.key] });
  }
  return rows.filter((r) => !r.parent || r.state === 'claimed');
}
