// A node's devices as its detail panel lists them, from the node's ResourceSlices and the cluster's ResourceClaims:
// each device with its model, and who holds it (a claim and the pods it is reserved for), or free. A MIG partition
// is listed only while held, under its GPU: the whole device of the same physical GPU (src/machinery/gpu-devices.ts,
// the rule the map's GPU bar and the scheduler use), which then is neither free nor allocatable whole. Pods asking for
// `nvidia.com/gpu` through the node's capacity hold whole GPUs too: those the kubelet chose for them (by UUID, in
// their status), or, for a pod it has not chosen for yet, the first free ones in the driver's order as it will.
import { simulatedGpuDriver } from '../../src/machinery/dra-names.js';
import { firstFree } from '../../src/machinery/gpu-devices.js';
import { deviceKeyOf, gpuOfDevice } from './dra-state.js';
import { arr, rec, str, type Obj, type PodView } from './model.js';

export interface DeviceRow {
  /** `<driver>/<pool>/<device>`. */
  key: string;
  name: string;
  model: string;
  /** The MIG profile (`1g.10gb`), '' for a whole device. */
  profile: string;
  memory: string;
  /** For a partition: the key of its GPU (the whole device of the same physical GPU). */
  parent: string;
  /** Its UUID, as the kubelet names the GPUs it hands out through the capacity. */
  uuid: string;
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
    // By name: reservedFor is in the order the pods were scheduled, which two pods created together do not fix.
    const pods = arr(status.reservedFor).map(rec).filter((r) => str(r.resource) === 'pods').map((r) => `${ns}/${str(r.name)}`).sort();
    for (const r of arr(rec(rec(status.allocation).devices).results).map(rec)) {
      if (r.adminAccess === true) continue;
      out.set(deviceKeyOf(str(r.driver), str(r.pool), str(r.device)), { claim: `${ns}/${str(meta.name)}`, pods });
    }
  }
  return out;
}

/** The node's devices (slices of the node, in their order), with their holders. `pods`: the pods bound to the node. */
export function nodeDevices(slices: Obj[], claims: Obj[], pods: PodView[]): DeviceRow[] {
  const held = holders(claims);
  const rows: DeviceRow[] = [];
  /** Each row's physical GPU, and the whole device of each physical GPU. */
  const gpuOf = new Map<DeviceRow, string>();
  const whole = new Map<string, DeviceRow>();
  const partitions = new Set<DeviceRow>();
  for (const s of slices) {
    const spec = rec(s.spec);
    const driver = str(spec.driver);
    const pool = str(rec(spec.pool).name);
    for (const d of arr(spec.devices).map(rec)) {
      const name = str(d.name);
      const key = deviceKeyOf(driver, pool, name);
      const partition = attr(d, 'type', driver) === 'mig';
      const h = held.get(key);
      const row: DeviceRow = {
        key, name, model: attr(d, 'productName', driver) || driver, profile: partition ? attr(d, 'profile', driver) : '',
        memory: str(rec(rec(d.capacity).memory).value), parent: '', uuid: attr(d, 'uuid', driver),
        claim: h?.claim ?? '', pods: h?.pods ?? [], state: h ? 'claimed' : 'free',
      };
      rows.push(row);
      gpuOf.set(row, gpuOfDevice(driver, pool, d));
      if (partition) partitions.add(row);
      else whole.set(gpuOf.get(row)!, row);
    }
  }
  for (const r of rows) {
    const gpu = whole.get(gpuOf.get(r)!);
    if (!partitions.has(r) || !gpu) continue;
    r.parent = gpu.key;
    if (r.state === 'claimed' && gpu.state === 'free') gpu.state = 'partitioned';
  }
  // Pods bound through the capacity (no claim reserved for them) hold the GPUs the kubelet chose for them; those it
  // has not chosen for yet, the first free whole GPUs.
  const claimed = new Set([...held.values()].flatMap((h) => h.pods));
  const capacity = pods.filter((p) => p.req.gpu && !claimed.has(p.key) && p.phase !== 'Succeeded' && p.phase !== 'Failed');
  const gpus = rows.filter((r) => !partitions.has(r) && r.key.startsWith(`${simulatedGpuDriver}/`));
  const byUuid = new Map(gpus.map((r) => [r.uuid, r]));
  for (const p of capacity) {
    for (const id of p.gpuIds) {
      const r = byUuid.get(id);
      if (r?.state === 'free') Object.assign(r, { state: 'capacity', pods: [p.key] });
    }
  }
  const busy = new Set(gpus.filter((r) => r.state !== 'free').map((r) => r.key));
  for (const p of capacity) {
    if (p.gpuIds.length) continue;
    for (const r of firstFree(gpus, (x) => x.key, busy, p.req.gpu)) {
      Object.assign(r, { state: 'capacity', pods: [p.key] });
      busy.add(r.key);
    }
  }
  return rows.filter((r) => !r.parent || r.state === 'claimed');
}
