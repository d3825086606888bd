// Realistic DRA objects for the allocator tests: GPU nodes as NVIDIA's DRA driver publishes them (one device per
// GPU with product name, architecture, memory, driver and CUDA versions, UUID, PCIe root), MIG profiles of an H100
// consuming a GPU's shared counters, the GPU and MIG DeviceClasses, and claims.
import type {
  CounterSet, Device, DeviceClaimConfiguration, DeviceClass, DeviceConstraint, DeviceRequest, DeviceTaint, ResourceClaim, ResourceSlice,
} from '../../src/generated/k8s/resource/v1.js';
import type { NodeSelector } from '../../src/generated/k8s/core/v1.js';
import { allocate, allocatedDevices, loadDeviceCel, type AllocateInput, type AllocateOutcome, type AllocatorNode } from '../../src/scheduler/dra/index.js';

export const driver = 'gpu.bonsai.dev';

export interface GpuModel { product: string; architecture: string; memory: string; cuda: string }
export const h100: GpuModel = { product: 'NVIDIA H100 80GB HBM3', architecture: 'Hopper', memory: '80Gi', cuda: '9.0.0' };
export const l4: GpuModel = { product: 'NVIDIA L4', architecture: 'Ada Lovelace', memory: '24Gi', cuda: '8.9.0' };
export const a100: GpuModel = { product: 'NVIDIA A100-SXM4-40GB', architecture: 'Ampere', memory: '40Gi', cuda: '8.0.0' };

export function gpu(node: string, index: number, model: GpuModel, extra: { pcieRoot?: string; taints?: DeviceTaint[] } = {}): Device {
  return {
    name: `gpu-${index}`,
    attributes: {
      type: { string: 'gpu' },
      index: { int: index },
      uuid: { string: `GPU-${node}-${index}` },
      productName: { string: model.product },
      architecture: { string: model.architecture },
      brand: { string: 'Nvidia' },
      driverVersion: { version: '550.54.15' },
      cudaComputeCapability: { version: model.cuda },
      'resource.kubernetes.io/pcieRoot': { string: extra.pcieRoot ?? `pci0000:${index < 4 ? '00' : '80'}` },
    },
    capacity: { memory: { value: model.memory } },
    ...(extra.taints ? { taints: extra.taints } : {}),
  };
}

interface SliceOpts {
  pool?: string; generation?: number; count?: number; name?: string;
  allNodes?: boolean; nodeSelector?: NodeSelector; sharedCounters?: CounterSet[]; driver?: string;
}

export function slice(node: string, devices: Device[], o: SliceOpts = {}): ResourceSlice {
  const where = o.allNodes ? { allNodes: true } : o.nodeSelector ? { nodeSelector: o.nodeSelector } : { nodeName: node };
  return {
    metadata: { name: o.name ?? `${node}-${o.driver ?? driver}-${o.generation ?? 1}` },
    spec: {
      driver: o.driver ?? driver, ...where, devices,
      pool: { name: o.pool ?? node, generation: o.generation ?? 1, resourceSliceCount: o.count ?? 1 },
      ...(o.sharedCounters ? { sharedCounters: o.sharedCounters } : {}),
    },
  };
}

/** A node with `n` GPUs of a model in one slice. */
export const gpuNode = (node: string, n: number, model: GpuModel): ResourceSlice => slice(node, Array.from({ length: n }, (_, i) => gpu(node, i, model)));

export const migProfiles = [
  { profile: '1g.10gb', memory: 10, slices: 1, count: 7 },
  { profile: '3g.40gb', memory: 40, slices: 3, count: 2 },
  { profile: '7g.80gb', memory: 80, slices: 7, count: 1 },
];

/**
 * An H100 node whose GPUs are partitionable: one slice with the counter sets (80Gi of memory and 7 compute slices per
 * GPU), one with the devices: each full GPU and each MIG placement, all consuming their GPU's counters.
 */
export function migNode(node: string, gpus = 1): ResourceSlice[] {
  const counterSets: CounterSet[] = [];
  const devices: Device[] = [];
  for (let g = 0; g < gpus; g++) {
    const set = `gpu-${g}-counters`;
    counterSets.push({ name: set, counters: { memory: { value: '80Gi' }, computeSlices: { value: '7' } } });
    devices.push({ ...gpu(node, g, h100), consumesCounters: [{ counterSet: set, counters: { memory: { value: '80Gi' }, computeSlices: { value: '7' } } }] });
    for (const p of migProfiles) {
      for (let i = 0; i < p.count; i++) {
        devices.push({
          name: `gpu-${g}-mig-${p.profile}-${i}`,
          attributes: { type: { string: 'mig' }, profile: { string: p.profile }, parentIndex: { int: g }, productName: { string: h100.product } },
          capacity: { memory: { value: `${p.memory}Gi` } },
          consumesCounters: [{ counterSet: set, counters: { memory: { value: `${p.memory}Gi` }, computeSlices: { value: String(p.slices) } } }],
        });
      }
    }
  }
  return [
    slice(node, [], { count: 2, name: `${node}-counters`, sharedCounters: counterSets }),
    slice(node, devices, { count: 2, name: `${node}-devices` }),
  ];
}

export function deviceClass(name: string, ...selectors: string[]): DeviceClass {
  return { metadata: { name }, spec: { selectors: selectors.map((expression) => ({ cel: { expression } })) } };
}

export const gpuClass = deviceClass('gpu.bonsai.dev', `device.driver == "${driver}" && device.attributes["${driver}"].type == "gpu"`);
export const migClass = deviceClass('mig.bonsai.dev', `device.driver == "${driver}" && device.attributes["${driver}"].type == "mig"`);
export const classes = (...list: DeviceClass[]) => new Map((list.length ? list : [gpuClass, migClass]).map((c) => [c.metadata.name!, c]));

/** An ExactCount request of the GPU class (or another), with CEL selectors. */
export function req(name: string, o: { count?: number; all?: boolean; cls?: string; selectors?: string[]; adminAccess?: boolean; tolerations?: NonNullable<DeviceRequest['exactly']>['tolerations'] } = {}): DeviceRequest {
  return {
    name,
    exactly: {
      deviceClassName: o.cls ?? gpuClass.metadata.name!, allocationMode: o.all ? 'All' : 'ExactCount', ...(o.all ? {} : { count: o.count ?? 1 }),
      ...(o.selectors ? { selectors: o.selectors.map((expression) => ({ cel: { expression } })) } : {}),
      ...(o.adminAccess ? { adminAccess: true } : {}), ...(o.tolerations ? { tolerations: o.tolerations } : {}),
    },
  };
}

export function claim(name: string, requests: DeviceRequest[], o: { constraints?: DeviceConstraint[]; config?: DeviceClaimConfiguration[] } = {}): ResourceClaim {
  return { metadata: { name, namespace: 'ml' }, spec: { devices: { requests, ...(o.constraints ? { constraints: o.constraints } : {}), ...(o.config ? { config: o.config } : {}) } } };
}

/** A claim as it looks once allocated these devices (for `allocated`). */
export function allocatedClaim(name: string, devices: { pool: string; device: string; adminAccess?: boolean }[]): ResourceClaim {
  return {
    ...claim(name, [req('gpu')]),
    status: { allocation: { devices: { results: devices.map((d) => ({ request: 'gpu', driver, pool: d.pool, device: d.device, ...(d.adminAccess ? { adminAccess: true } : {}) })) } } },
  };
}

/** Runs the allocator with the DRA CEL environment. */
export async function run(node: AllocatorNode | string, slices: ResourceSlice[], claims: ResourceClaim[], o: Partial<AllocateInput> & { holding?: ResourceClaim[] } = {}): Promise<AllocateOutcome> {
  const cel = await loadDeviceCel();
  return allocate({
    node: typeof node === 'string' ? { name: node } : node, slices, claims, classes: o.classes ?? classes(),
    allocated: o.allocated ?? allocatedDevices(o.holding ?? []), ...(o.limits ? { limits: o.limits } : {}),
  }, cel);
}

/** The devices of the first claim's allocation as `pool/device` (request name first when asked). */
export function devicesOf(out: AllocateOutcome, claimIndex = 0, withRequest = false): string[] {
  if (!out.ok) throw new Error(`allocation failed: ${out.message} ${JSON.stringify(out.requests)}`);
  return (out.allocations[claimIndex].devices?.results ?? []).map((r) => (withRequest ? `${r.request}=` : '') + `${r.pool}/${r.device}`);
}
