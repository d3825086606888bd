// The simulated cloud's instance-type catalog, as the kwok provider models one: families with different memory per
// CPU in sizes of 1..64 CPUs, amd64 and arm64, on-demand and spot offerings in every zone, and GPU types. Capacity
// is what the instance has; allocatable subtracts the kube-reserved overhead (100m CPU, 10Mi memory) kwok charges.
import { formatScaled } from '../../machinery/resources.js';
import { labels as wk, type CapacityType } from './types.js';

export interface Offering {
  zone: string;
  capacityType: CapacityType;
  /** $ per hour */
  price: number;
  available: boolean;
}

export interface InstanceType {
  name: string;
  family: string;
  size: string;
  arch: string;
  os: string;
  cpuMilli: number;
  memoryBytes: number;
  pods: number;
  gpus: number;
  gpuType?: string;
  /** Quantities as a Node's status.capacity lists them. */
  capacity: Record<string, string>;
  /** Quantities as a Node's status.allocatable lists them (capacity minus overhead). */
  allocatable: Record<string, string>;
  offerings: Offering[];
}

export const gpuResource = 'nvidia.com/gpu';
export const reservedCpuMilli = 100;
export const reservedMemoryBytes = 10 * 1024 * 1024;
const gi = 1024 ** 3;

export class Catalog {
  private readonly byName = new Map<string, InstanceType>();
  private readonly sorted: InstanceType[];

  constructor(types: readonly InstanceType[]) {
    for (const t of types) this.byName.set(t.name, t);
    // Cheapest first (by the cheapest available offering), so "first that fits" is "cheapest that fits".
    this.sorted = [...this.byName.values()].sort((a, b) => cheapestPrice(a) - cheapestPrice(b) || a.name.localeCompare(b.name));
  }

  /** Every instance type, cheapest first. */
  all(): InstanceType[] {
    return this.sorted;
  }

  get(name: string): InstanceType | undefined {
    return this.byName.get(name);
  }
}

/** The cheapest available offering's price (Infinity when none is available). */
export function cheapestPrice(t: InstanceType): number {
  let p = Infinity;
  for (const o of t.offerings) if (o.available && o.price < p) p = o.price;
  return p;
}

/** The labels an instance type puts on its nodes (besides the offering's zone and capacity type). */
export function instanceTypeLabels(t: InstanceType): Record<string, string> {
  const out: Record<string, string> = {
    [wk.instanceType]: t.name,
    [wk.arch]: t.arch,
    [wk.os]: t.os,
    [wk.instanceFamily]: t.family,
    [wk.instanceSize]: t.size,
    [wk.instanceCpu]: String(t.cpuMilli / 1000),
    [wk.instanceMemory]: formatScaled(t.memoryBytes, 1024, ['', 'Ki', 'Mi', 'Gi', 'Ti']),
  };
  if (t.gpus) {
    out[wk.instanceGpuCount] = String(t.gpus);
    if (t.gpuType) out[wk.instanceGpuName] = t.gpuType;
  }
  return out;
}

/** Builds the capacity/allocatable lists from the numeric fields. */
export function withResources(t: Omit<InstanceType, 'capacity' | 'allocatable'>, extra: Record<string, string> = {}): InstanceType {
  const capacity: Record<string, string> = {
    cpu: formatScaled(t.cpuMilli, 1000, ['m', '']),
    memory: formatScaled(t.memoryBytes, 1024, ['', 'Ki', 'Mi', 'Gi', 'Ti']),
    pods: String(t.pods),
    'ephemeral-storage': '20Gi',
    ...extra,
  };
  if (t.gpus) capacity[gpuResource] = String(t.gpus);
  const allocatable = {
    ...capacity,
    cpu: formatScaled(Math.max(0, t.cpuMilli - reservedCpuMilli), 1000, ['m', '']),
    memory: formatScaled(Math.max(0, t.memoryBytes - reservedMemoryBytes), 1024, ['', 'Ki', 'Mi', 'Gi', 'Ti']),
  };
  return { ...t, capacity, allocatable };
}

const families: Array<{ family: string; memPerCpu: number }> = [
  { family: 'c', memPerCpu: 2 },
  { family: 'm', memPerCpu: 4 },
  { family: 'r', memPerCpu: 8 },
];
const sizes = [1, 2, 4, 8, 16, 32, 48, 64];
const gpuShapes = [
  { gpus: 1, cpu: 8, memGi: 32 },
  { gpus: 4, cpu: 32, memGi: 128 },
  { gpus: 8, cpu: 64, memGi: 512 },
];
const perCpuHour = 0.0252;
const perGiHour = 0.00107;
const perGpuHour = 0.95;
const armDiscount = 0.92;
const spotFactor = 0.7;
/** Spot prices differ a little per zone (deterministically), as spot markets do. */
const zoneSpotFactor = [1, 1.04, 0.97, 1.02, 0.99];

function offerings(zones: readonly string[], onDemand: number): Offering[] {
  const out: Offering[] = [];
  zones.forEach((zone, i) => {
    out.push({ zone, capacityType: 'spot', price: round(onDemand * spotFactor * zoneSpotFactor[i % zoneSpotFactor.length]!), available: true });
    out.push({ zone, capacityType: 'on-demand', price: round(onDemand), available: true });
  });
  return out;
}

const round = (p: number) => Math.round(p * 1e6) / 1e6;

/** The built-in catalog: c/m/r families (2, 4, 8 GiB per CPU), 1..64 CPUs, amd64 and arm64, plus 1/4/8-GPU types. */
export function builtinCatalog(zones: readonly string[] = ['zone-a', 'zone-b', 'zone-c']): Catalog {
  const types: InstanceType[] = [];
  for (const { family, memPerCpu } of families) {
    for (const cpu of sizes) {
      for (const arch of ['amd64', 'arm64']) {
        const memGi = cpu * memPerCpu;
        const onDemand = (cpu * perCpuHour + memGi * perGiHour) * (arch === 'arm64' ? armDiscount : 1);
        types.push(withResources({
          name: `${family}-${cpu}x-${arch}-linux`, family, size: `${cpu}x`, arch, os: 'linux', cpuMilli: cpu * 1000, memoryBytes: memGi * gi,
          pods: Math.min(16 * cpu, 1024), gpus: 0, offerings: offerings(zones, onDemand),
        }));
      }
    }
  }
  for (const { gpus, cpu, memGi } of gpuShapes) {
    const onDemand = cpu * perCpuHour + memGi * perGiHour + gpus * perGpuHour;
    types.push(withResources({
      name: `g-${cpu}x-${gpus}gpu-amd64-linux`, family: 'g', size: `${cpu}x`, arch: 'amd64', os: 'linux', cpuMilli: cpu * 1000, memoryBytes: memGi * gi,
      pods: Math.min(16 * cpu, 1024), gpus, gpuType: 'nvidia-a10g', offerings: offerings(zones, onDemand),
    }));
  }
  return new Catalog(types);
}
