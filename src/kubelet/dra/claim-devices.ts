// What a container gets from its pod's allocated ResourceClaims, as a DRA driver's CDI spec injects it: for the
// simulated GPU driver, NVIDIA_VISIBLE_DEVICES with the UUIDs of the GPUs (or MIG devices) of the claims the container
// lists in resources.claims, and of the requests of the scheduler's extended-resource claim mapped to the container
// (status.extendedResourceClaimStatus: its `nvidia.com/gpu` served by DRA).
import type { Container, Pod } from '../../generated/k8s/core/v1.js';
import type { ResourceClaim, ResourceSlice } from '../../generated/k8s/resource/v1.js';
import type { Client } from '../../client/client.js';
import { gpuDriver } from './gpu-slices.js';

export interface AllocatedDevice {
  claim: string;
  request: string;
  driver: string;
  pool: string;
  device: string;
  /** Attributes of the device as its slice publishes them (empty when the slice is gone). */
  attributes: Record<string, string | number | boolean>;
  capacity: Record<string, string>;
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

/** The devices allocated to the claims a container uses (all the pod's claims when `c` is undefined). */
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
      const d = deviceOf(client, r.driver, r.pool, r.device);
      const attributes: AllocatedDevice['attributes'] = {};
      for (const [k, v] of Object.entries(d?.attributes ?? {})) {
        const value = v.string ?? v.int ?? v.bool ?? v.version;
        if (value !== undefined) attributes[k] = value;
      }
      const capacity: AllocatedDevice['capacity'] = {};
      for (const [k, v] of Object.entries(d?.capacity ?? {})) capacity[k] = v.value;
      out.push({ claim: claim?.metadata.name ?? '', request: r.request, driver: r.driver, pool: r.pool, device: r.device, attributes, capacity });
    }
  }
  return out;
}

/** The variables the GPU driver's CDI spec sets for a container: the UUIDs of its devices, none when it has none. */
export function draEnv(client: Client, pod: Pod, c: Container): Array<[string, string]> {
  if (!pod.spec?.resourceClaims?.length && !pod.status?.extendedResourceClaimStatus) return [];
  const uuids = allocatedDevices(client, pod, c).filter((d) => d.driver === gpuDriver).map((d) => String(d.attributes.uuid ?? d.device));
  return uuids.length ? [['NVIDIA_VISIBLE_DEVICES', uuids.join(',')]] : [];
}
