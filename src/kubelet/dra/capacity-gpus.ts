// The GPUs the simulated kubelet hands a pod asking for `nvidia.com/gpu` through its node's capacity (not served by
// a DRA claim), as NVIDIA's device plugin does at admission: whole GPUs of the node that no claim holds (whole or a
// MIG partition of) and no other such pod holds, the first free ones in the driver's order, each container its own
// (an init container reuses the first of the pod's). Chosen once, the choice is the pod's for its life: the kubelet
// keeps it in the pod's runtime record and reports it in the container statuses' allocatedResourcesStatus, as GPU
// UUIDs from the driver's ResourceSlices for the node, or as indexes (the device plugin's `index` ID strategy) when the
// node publishes none.
import type { Container, Node, Pod } from '../../generated/k8s/core/v1.js';
import type { Device, ResourceClaim, ResourceSlice } from '../../generated/k8s/resource/v1.js';
import type { Client } from '../../client/client.js';
import { gpuResourceName } from '../../machinery/dra-names.js';
import { firstFree, physicalGpu, recordedGpus, recordedIds } from '../../machinery/gpu-devices.js';
import { gpuCount, gpuDriver } from './gpu-slices.js';

/** A whole GPU of the node: the ID a container sees it by, and its physical GPU (see physicalGpu). */
export interface NodeGpu {
  id: string;
  gpu: string;
  /** Its device in the driver's pool, when the node publishes devices. */
  device?: Device;
}

const isWhole = (d: Device) => (d.attributes?.type ?? d.attributes?.[`${gpuDriver}/type`])?.string === 'gpu';

/** How many GPUs a container asks for through the capacity (limits, else requests; whole numbers only). */
export function gpuWant(c: Container): number {
  const raw = c.resources?.limits?.[gpuResourceName] ?? c.resources?.requests?.[gpuResourceName];
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : 0;
}

/** Whether the pod holds GPUs through its node's capacity: it asks for nvidia.com/gpu and no DRA claim serves it. */
export const usesCapacityGpus = (pod: Pod): boolean =>
  !pod.status?.extendedResourceClaimStatus && [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].some((c) => gpuWant(c) > 0);

/** The node's slices of the simulated driver. */
export const nodeGpuSlices = (client: Client, node: string): ResourceSlice[] =>
  client.list<ResourceSlice>('resource.k8s.io/v1/resourceslices').filter((s) => s.spec.driver === gpuDriver && s.spec.nodeName === node);

/** The node's whole GPUs in the driver's order: its devices, else as many indexes as its capacity says. */
export function nodeGpus(slices: readonly ResourceSlice[], node: Node | undefined): NodeGpu[] {
  const out: NodeGpu[] = [];
  for (const s of slices) {
    for (const d of s.spec.devices ?? []) {
      if (isWhole(d)) out.push({ id: d.attributes?.uuid?.string ?? d.name, gpu: physicalGpu(s.spec.pool.name, d), device: d });
    }
  }
  if (out.length || slices.some((s) => s.spec.devices?.length) || !node) return out;
  return [...Array(gpuCount(node)).keys()].map((i) => ({ id: String(i), gpu: `index/${i}` }));
}

/** The physical GPUs of the node's slices that allocated claims hold. */
function claimHeld(client: Client, slices: readonly ResourceSlice[]): Set<string> {
  const byKey = new Map<string, string>();
  for (const s of slices) for (const d of s.spec.devices ?? []) byKey.set(`${s.spec.pool.name}/${d.name}`, physicalGpu(s.spec.pool.name, d));
  const out = new Set<string>();
  if (!byKey.size) return out;
  for (const c of client.list<ResourceClaim>('resource.k8s.io/v1/resourceclaims')) {
    for (const r of c.status?.allocation?.devices?.results ?? []) {
      const gpu = r.driver === gpuDriver && !r.adminAccess ? byKey.get(`${r.pool}/${r.device}`) : undefined;
      if (gpu) out.add(gpu);
    }
  }
  return out;
}

const terminal = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/**
 * Chooses the GPUs of each container of a pod bound to `node` that holds GPUs through the capacity. `others`: the
 * GPU IDs the kubelet handed other live pods of the node and may not have reported yet. undefined when the pod
 * asks for none.
 */
export function chooseCapacityGpus(client: Client, pod: Pod, node: string, others: Iterable<string>): Map<string, string[]> | undefined {
  if (!usesCapacityGpus(pod)) return undefined;
  const slices = nodeGpuSlices(client, node);
  const gpus = nodeGpus(slices, client.get('v1/nodes', '', node));
  const gpuOfId = new Map(gpus.map((g) => [g.id, g.gpu]));
  const busy = claimHeld(client, slices);
  const taken = (id: string) => {
    const g = gpuOfId.get(id);
    if (g) busy.add(g);
  };
  for (const id of others) taken(id);
  const uid = pod.metadata.uid;
  for (const p of client.list('v1/pods')) {
    if (p.spec?.nodeName !== node || p.metadata.uid === uid || terminal(p)) continue;
    for (const id of recordedIds(recordedGpus(p.status))) taken(id);
  }
  const mains = pod.spec?.containers ?? [];
  const inits = pod.spec?.initContainers ?? [];
  const total = Math.max(mains.reduce((n, c) => n + gpuWant(c), 0), ...inits.map(gpuWant));
  const picked = firstFree(gpus, (g) => g.gpu, busy, total).map((g) => g.id);
  const out = new Map<string, string[]>();
  for (const c of inits) if (gpuWant(c)) out.set(c.name, picked.slice(0, gpuWant(c)));
  let at = 0;
  for (const c of mains) {
    const n = gpuWant(c);
    if (!n) continue;
    out.set(c.name, picked.slice(at, at + n));
    at += n;
  }
  return out;
}
