// The DRA objects the dashboard keeps beside nodes and pods (live from watches, or as of a revision in time travel):
// ResourceSlices by node and ResourceClaims, and from them the GPUs claims hold per node for the map's GPU bar. A
// device is, or is a partition of, one physical GPU by src/machinery/gpu-devices.ts's rule (the one the devices
// panel and the scheduler use): an allocated device is looked up in the slices, each physical GPU counted once.
import { physicalGpu, type SliceDevice } from '../../src/machinery/gpu-devices.js';
import { simulatedGpuDriver } from '../../src/machinery/dra-names.js';
import { arr, keyOf, rec, str, type Obj, type WatchEvent } from './objects.js';

/** A slice's device (JSON) as the rule reads it. */
function sliceDevice(d: Obj): SliceDevice {
  const consumesCounters = arr(d.consumesCounters).map(rec).flatMap((c) => (typeof c.counterSet === 'string' ? [{ counterSet: c.counterSet }] : []));
  return { name: str(d.name), consumesCounters };
}

/** The physical GPU device `d` of a slice of `driver`'s pool `pool` is or is part of: `<driver>/<pool>/<GPU>`. */
export const gpuOfDevice = (driver: string, pool: string, d: Obj): string => `${driver}/${physicalGpu(pool, sliceDevice(d))}`;

/** `<driver>/<pool>/<device>` of an allocation result or a slice's device. */
export const deviceKeyOf = (driver: string, pool: string, device: string): string => `${driver}/${pool}/${device}`;

interface Placed {
  node: string;
  gpu: string;
}

export class DraState {
  private slices = new Map<string, Obj>();
  private claims = new Map<string, Obj>();
  /** The slices of each node, in name order (as the API lists them). */
  private byNode = new Map<string, Obj[]>();
  /** The simulated GPU driver's devices of node-local slices: their node and physical GPU, by device key. */
  private devices = new Map<string, Placed>();
  /** GPUs held through ResourceClaims, by node. */
  claimGpus = new Map<string, number>();

  slicesOn(node: string): Obj[] {
    return this.byNode.get(node) ?? [];
  }

  claimList(): Obj[] {
    return [...this.claims.values()];
  }

  resetSlices(items: Obj[]): void {
    this.slices = new Map(items.map((o) => [keyOf(o), o]));
    this.slicesChanged();
  }

  applySlices(events: WatchEvent[]): void {
    apply(this.slices, events);
    this.slicesChanged();
  }

  resetClaims(items: Obj[]): void {
    this.claims = new Map(items.map((o) => [keyOf(o), o]));
    this.count();
  }

  applyClaims(events: WatchEvent[]): void {
    apply(this.claims, events);
    this.count();
  }

  private slicesChanged(): void {
    this.byNode = new Map();
    this.devices = new Map();
    for (const name of [...this.slices.keys()].sort()) {
      const s = this.slices.get(name)!;
      const spec = rec(s.spec);
      const node = str(spec.nodeName);
      if (!node) continue;
      let list = this.byNode.get(node);
      if (!list) this.byNode.set(node, (list = []));
      list.push(s);
      const driver = str(spec.driver);
      if (driver !== simulatedGpuDriver) continue;
      const pool = str(rec(spec.pool).name);
      for (const d of arr(spec.devices).map(rec)) this.devices.set(deviceKeyOf(driver, pool, str(d.name)), { node, gpu: gpuOfDevice(driver, pool, d) });
    }
    this.count();
  }

  /** The GPUs the claims' allocations hold, by node: the simulated driver's devices found in the slices, each GPU once. */
  private count(): void {
    const held = new Map<string, Set<string>>();
    for (const c of this.claims.values()) {
      for (const r of arr(rec(rec(rec(c.status).allocation).devices).results).map(rec)) {
        if (r.adminAccess === true) continue;
        const at = this.devices.get(deviceKeyOf(str(r.driver), str(r.pool), str(r.device)));
        if (!at) continue;
        let gpus = held.get(at.node);
        if (!gpus) held.set(at.node, (gpus = new Set()));
        gpus.add(at.gpu);
      }
    }
    this.claimGpus = new Map([...held].map(([node, gpus]) => [node, gpus.size]));
  }
}

function apply(into: Map<string, Obj>, events: WatchEvent[]): void {
  for (const e of events) {
    if (e.type === 'DELETED') into.delete(keyOf(e.object));
    else if (e.type === 'ADDED' || e.type === 'MODIFIED') into.set(keyOf(e.object), e.object);
  }
}
