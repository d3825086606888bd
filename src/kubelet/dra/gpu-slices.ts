// What the simulated GPU driver (gpu.bonsai.dev, modelled on NVIDIA's gpu.nvidia.com) publishes for a node: one pool
// named after the node, with a device per GPU (`gpu-0`, …) carrying NVIDIA's attribute names, and, on nodes labelled
// for MIG, every MIG placement as a partition (`gpu-0-mig-1g10gb-0`) consuming counters of its GPU's counter set, so
// that partitions overlapping in memory slices, or the whole GPU and any partition, are never allocated together.
// As in 1.35's API, counter sets live in their own slice of the pool, and a slice of devices that consume counters holds
// at most 64 of them.
import { createHash } from 'node:crypto';
import type { Node } from '../../generated/k8s/core/v1.js';
import type { CounterSet, Device, DeviceClass, ResourceSliceSpec } from '../../generated/k8s/resource/v1.js';
import { driverVersions, gpuModel, type GpuModel, type MigProfile } from './gpu-models.js';
import { simulatedGpuDriver } from '../../machinery/dra-names.js';

export const gpuDriver = simulatedGpuDriver;
/** A node label asking the driver to publish MIG partitions of its GPUs. */
export const migLabel = 'bonsai.dev/gpu-mig';
const gpusPerCounterSlice = 8;
const maxDevicesWithCounters = 64;
const maxDevices = 128;

/** How many GPUs a node has: its `nvidia.com/gpu` capacity, else the `nvidia.com/gpu.count` label. */
export function gpuCount(node: Node): number {
  const raw = node.status?.capacity?.['nvidia.com/gpu'] ?? node.metadata.labels?.['nvidia.com/gpu.count'];
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? Math.min(n, 64) : 0;
}

function uuidFrom(prefix: string, seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${prefix}-${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const hex2 = (n: number) => n.toString(16).padStart(2, '0');
const counterSetName = (gpu: number) => `gpu-${gpu}-counter-set`;
const memorySliceCounter = (i: number) => `memory-slice-${i}`;

/** The counters a whole GPU offers (and consumes when allocated whole). */
function wholeCounters(model: GpuModel): CounterSet['counters'] {
  const max = (f: (p: MigProfile) => number) => String(Math.max(...model.mig.map(f)));
  const counters: CounterSet['counters'] = {
    multiprocessors: { value: String(model.multiprocessors) }, memory: { value: model.memory },
    'copy-engines': { value: max((p) => p.copyEngines) }, decoders: { value: max((p) => p.decoders) },
    'jpeg-engines': { value: max((p) => p.jpegEngines) }, 'ofa-engines': { value: max((p) => p.ofaEngines) },
  };
  for (let i = 0; i < model.memorySlices; i++) counters[memorySliceCounter(i)] = { value: '1' };
  return counters;
}

function gpuDevice(node: string, model: GpuModel, i: number, partitioned: boolean): Device {
  const bus = `0000:${hex2(0x18 + i * 0x10)}:00.0`;
  return {
    name: `gpu-${i}`,
    attributes: {
      type: { string: 'gpu' }, uuid: { string: uuidFrom('GPU', `${node}/${i}`) }, index: { int: i },
      productName: { string: model.productName }, brand: { string: 'Nvidia' }, architecture: { string: model.architecture },
      cudaComputeCapability: { version: model.cudaComputeCapability },
      driverVersion: { version: driverVersions.driverVersion }, cudaDriverVersion: { version: driverVersions.cudaDriverVersion },
      pcieBusID: { string: bus }, 'resource.kubernetes.io/pcieRoot': { string: `pci0000:${i < 4 ? '00' : '80'}` },
    },
    capacity: { memory: { value: model.memory }, multiprocessors: { value: String(model.multiprocessors) } },
    ...(partitioned ? { consumesCounters: [{ counterSet: counterSetName(i), counters: wholeCounters(model) }] } : {}),
  };
}

function migDevice(node: string, model: GpuModel, gpu: number, p: MigProfile, start: number): Device {
  const counters: CounterSet['counters'] = {
    multiprocessors: { value: String(p.multiprocessors) }, memory: { value: p.memory }, 'copy-engines': { value: String(p.copyEngines) },
    decoders: { value: String(p.decoders) }, 'jpeg-engines': { value: String(p.jpegEngines) }, 'ofa-engines': { value: String(p.ofaEngines) },
  };
  for (let s = start; s < start + p.size; s++) counters[memorySliceCounter(s)] = { value: '1' };
  return {
    name: `gpu-${gpu}-mig-${p.name.replace('.', '')}-${start}`,
    attributes: {
      type: { string: 'mig' }, uuid: { string: uuidFrom('MIG', `${node}/${gpu}/${p.name}/${start}`) },
      parentUUID: { string: uuidFrom('GPU', `${node}/${gpu}`) }, parentIndex: { int: gpu }, profile: { string: p.name },
      productName: { string: model.productName }, brand: { string: 'Nvidia' }, architecture: { string: model.architecture },
      cudaComputeCapability: { version: model.cudaComputeCapability },
      driverVersion: { version: driverVersions.driverVersion }, cudaDriverVersion: { version: driverVersions.cudaDriverVersion },
      'resource.kubernetes.io/pcieRoot': { string: `pci0000:${gpu < 4 ? '00' : '80'}` },
    },
    capacity: {
      multiprocessors: { value: String(p.multiprocessors) }, memory: { value: p.memory }, copyEngines: { value: String(p.copyEngines) },
      decoders: { value: String(p.decoders) }, encoders: { value: String(p.encoders) }, jpegEngines: { value: String(p.jpegEngines) },
      ofaEngines: { value: String(p.ofaEngines) },
    },
    consumesCounters: [{ counterSet: counterSetName(gpu), counters }],
  };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The specs of the slices of a node's pool (generation `generation`), in a stable order: counter sets first, then
 * devices, a GPU's partitions in the same slice as the GPU. Empty when the node has no GPUs.
 */
export function gpuSliceSpecs(node: Node, generation = 1): ResourceSliceSpec[] {
  const name = node.metadata.name ?? '';
  const count = gpuCount(node);
  if (!count) return [];
  const model = gpuModel(node.metadata.labels?.['nvidia.com/gpu.product']);
  const partitioned = model.mig.length > 0 && node.metadata.labels?.[migLabel] === 'true';
  const perGpu: Device[][] = [];
  for (let i = 0; i < count; i++) {
    const devices = [gpuDevice(name, model, i, partitioned)];
    if (partitioned) for (const p of model.mig) for (const s of p.starts) devices.push(migDevice(name, model, i, p, s));
    perGpu.push(devices);
  }
  const limit = partitioned ? maxDevicesWithCounters : maxDevices;
  const groups = chunks(perGpu, Math.max(1, Math.floor(limit / perGpu[0].length))).map((g) => g.flat());
  const counterSlices = partitioned
    ? chunks([...Array(count).keys()], gpusPerCounterSlice).map((gpus) => gpus.map((i): CounterSet => ({ name: counterSetName(i), counters: wholeCounters(model) })))
    : [];
  const total = counterSlices.length + groups.length;
  const pool = { name, generation, resourceSliceCount: total };
  return [
    ...counterSlices.map((sharedCounters): ResourceSliceSpec => ({ driver: gpuDriver, pool, nodeName: name, sharedCounters })),
    ...groups.map((devices): ResourceSliceSpec => ({ driver: gpuDriver, pool, nodeName: name, devices })),
  ];
}

/** The DeviceClasses the driver's installation brings: whole GPUs, and MIG partitions. */
export function gpuDeviceClasses(): DeviceClass[] {
  const cls = (name: string, type: string): DeviceClass => ({
    apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: { name },
    spec: { selectors: [{ cel: { expression: `device.driver == '${gpuDriver}' && device.attributes['${gpuDriver}'].type == '${type}'` } }] },
  });
  return [cls(gpuDriver, 'gpu'), cls(`mig.${gpuDriver}`, 'mig')];
}
