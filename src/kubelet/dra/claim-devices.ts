// What a container gets from its pod's allocated ResourceClaims, as a DRA driver's CDI spec injects it: for the
// simulated GPU driver, NVIDIA_VISIBLE_DEVICES with the UUIDs of the GPUs (or MIG devices) of the claims the container
// lists in resources.claims, and of the requests of the scheduler's extended-resource claim mapped to the container
// (status.extendedResourceClaimStatus: its `nvidia.com/gpu` served by DRA). A container holding GPUs through the
// node's nvidia.com/gpu capacity sees those the kubelet chose for it (capacity-gpus.ts), as the device plugin injects them.
import type { Container, Pod } from '../../generated/k8s/core/v1.js';
import type { Device, ResourceClaim, ResourceSlice } from '../../generated/k8s/resource/v1.js';
import type { Client } from '../../client/client.js';
import { gpuResourceName } from '../../machinery/dra-names.js';
import { recordedGpus, recordedIds } from '../../machinery/gpu-devices.js';
import { nodeGpus, nodeGpuSlices } from './capacity-gpus.js';
import { gpuModel } from './gpu-models.js';
import { gpuDriver } from './gpu-slices.js';

export interface AllocatedDevice {
  /** The claim, '' for a GPU held through the node's capacity. */
  claim: string;
  /** The claim's request, `nvidia.com/gpu` for a GPU held through the capacity. */
  request: string;
  driver: string;
  pool: string;
  device: string;
  /** Attributes of the device as its slice publishes them (empty when the slice is gone). */
  attributes: Record<string, string | number | boolean>;
  capacity: Record<string, string>;
  /**
   * What NVIDIA_VISIBLE_DEVICES names it by: its UUID (the device's name when its slice is gone; an index for a GPU
   * held through the capacity of a node publishing no devices).
   */
  visibleAs: string;
}

function described(d: Device | undefined): Pick<AllocatedDevice, 'attributes' | 'capacity'> {
  const attributes: AllocatedDevice['attributes'] = {};
  for (const [k, v] of Object.entries(d?.attributes ?? {})) {
    const value = v.string ?? v.int ?? v.bool ?? v.version;
    if (value !== undefined) attributes[k] = value;
  }
  const capacity: AllocatedDevice['capacity'] = {};
  for (const [k, v] of Object.entries(d?.capacity ?? {})) capacity[k] = v.value;
  return { attributes, capacity };
}

/** The GPUs the kubelet handed the container (all the pod's when `c` is undefined) through the node's capacity. */
function capacityDevices(client: Client, pod: Pod, c: Container | undefined): AllocatedDevice[] {
  const recorded = recordedGpus(pod.status);
  const ids = c ? recorded?.get(c.name) ?? [] : [...recordedIds(recorded)];
  const node = pod.spec?.nodeName ?? '';
  if (!ids.length || !node) return [];
  const nodeObj = client.get('v1/nodes', '', node);
  const gpus = new Map(nodeGpus(nodeGpuSlices(client, node), nodeObj).map((g) => [g.id, g]));
  const product = nodeObj?.metadata.labels?.['nvidia.com/gpu.product'];
  const named: AllocatedDevice['attributes'] = product ? { productName: gpuModel(product).productName } : {};
  return ids.map((id) => {
    const g = gpus.get(id);
    // Not published (any more): an index, or the UUID it was handed out by.
    const attributes: AllocatedDevice['attributes'] = { type: 'gpu', ...(/^\d+$/.test(id) ? { index: Number(id) } : { uuid: id }), ...named };
    const known = g?.device ? described(g.device) : { attributes, capacity: {} };
    return { claim: '', request: gpuResourceName, driver: gpuDriver, pool: node, device: g?.device?.name ?? `gpu-${id}`, ...known, visibleAs: id };
  });
}

/** The name of the ResourceClaim behind one of the pod's claim entries (made from a template, or named). */
export function podClaimName(pod: Pod, entry: string): string | undefined {
  const spec = pod.spec?.resourceClaims?.find((c) => c.name === entry);
  if (!spec) return undefined;
  if (spec.resourceClaimName) return spec.resourceClaimName;
  return pod.status?.resourceClaimStatuses?.find((s) => s.name === entry)?.resourceClaimName ?? undefined;
}

function deviceOf(client: Client, driver: string, pool: string, device: string) {
  for (const s of client.list<ResourceSlice>('resource.k8s.io/v1/resourceslices')) {
    if (s.spec.driver !== driver || s.spec.pool.name !== pool) continue;
    const d = s.spec.devices?.find((x) => x.name === device);
    if (d) return d;
  }
  return undefined;
}

/**
 * The devices allocated to the claims a container uses (all the pod's claims when `c` is undefined), then the GPUs it
 * holds through the node's capacity.
 */
export function allocatedDevices(client: Client, pod: Pod, c?: Container): AllocatedDevice[] {
  const ns = pod.metadata.namespace ?? '';
  const entries: Array<{ claim: string | undefined; request: string | undefined }> = c
    ? (c.resources?.claims ?? []).map((r) => ({ claim: podClaimName(pod, r.name), request: r.request }))
    : (pod.spec?.resourceClaims ?? []).map((r) => ({ claim: podClaimName(pod, r.name), request: undefined }));
  const extended = pod.status?.extendedResourceClaimStatus;
  for (const m of extended?.requestMappings ?? []) {
    if (!c || m.containerName === c.name) entries.push({ claim: extended!.resourceClaimName, request: m.requestName });
  }
  const out: AllocatedDevice[] = [];
  for (const e of entries) {
    const name = e.claim;
    const claim = name ? client.get<ResourceClaim>('resource.k8s.io/v1/resourceclaims', ns, name) : undefined;
    for (const r of claim?.status?.allocation?.devices?.results ?? []) {
      if (e.request && r.request !== e.request && !r.request.startsWith(`${e.request}/`)) continue;
      const { attributes, capacity } = described(deviceOf(client, r.driver, r.pool, r.device));
      const visibleAs = String(attributes.uuid ?? r.device);
      out.push({ claim: claim?.metadata.name ?? '', request: r.request, driver: r.driver, pool: r.pool, device: r.device, attributes, capacity, visibleAs });
    }
  }
  return [...out, ...capacityDevices(client, pod, c)];
}

/**
 * The variables the GPU driver's CDI spec (or NVIDIA's device plugin) sets for a container: the IDs of its GPUs, none
 * when it has none.
 */
export function draEnv(client: Client, pod: Pod, c: Container): Array<[string, string]> {
  if (!pod.spec?.resourceClaims?.length && !pod.status?.extendedResourceClaimStatus && !recordedGpus(pod.status)) return [];
  const uuids = allocatedDevices(client, pod, c).filter((d) => d.driver === gpuDriver).map((d) => d.visibleAs);
  return uuids.length ? [['NVIDIA_VISIBLE_DEVICES', uuids.join(',')]] : [];
}
