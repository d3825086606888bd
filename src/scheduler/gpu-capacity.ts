// One node's GPUs through two doors. The simulated kubelet advertises a GPU node's GPUs as `nvidia.com/gpu` capacity
// (as NVIDIA's device plugin does) and the simulated GPU driver publishes the same GPUs as devices. Upstream
// (KEP-5004) serves an extended resource through the device plugin on a node whose allocatable has it and through a
// DeviceClass's devices elsewhere, and leaves it to the operator not to run a device plugin and a DRA driver for the
// same hardware. Here both describe one set of GPUs, so each side counts what the other handed out: NodeResourcesFit
// counts the GPUs claims hold on the node next to the capacity pods' requests, and the allocator sees as many of the
// node's free whole GPUs taken as the pods bound through the capacity hold.
import type { Device, ResourceSlice } from '../generated/k8s/resource/v1.js';
import { gpuResourceName, simulatedGpuDriver } from '../machinery/dra-names.js';
import { deviceKey } from './dra/index.js';
import type { DraLookups } from './framework.js';
import type { NodeInfo } from './node-info.js';
import { extendedDraftUid } from './plugins/dra-extended.js';

const typeAttribute = `${simulatedGpuDriver}/type`;
const isWholeGpu = (d: Device): boolean => (d.attributes?.type ?? d.attributes?.[typeAttribute])?.string === 'gpu';

/** The driver's devices of the slices, each with its key and the physical GPU it is (or is a partition of). */
function* gpuDevices(slices: readonly ResourceSlice[]): Generator<{ device: Device; key: string; gpu: string }> {
  for (const sl of slices) {
    if (sl.spec.driver !== simulatedGpuDriver) continue;
    const pool = sl.spec.pool.name;
    for (const device of sl.spec.devices ?? []) {
      // A MIG partition and its parent GPU consume the same counter set; a GPU without partitions is itself.
      const gpu = `${pool}/${device.consumesCounters?.[0]?.counterSet ?? device.name}`;
      yield { device, key: deviceKey({ driver: simulatedGpuDriver, pool, device: device.name }), gpu };
    }
  }
}

/** The GPUs of the slices that claims hold, whole or in part (a GPU with a held partition counts once). */
export function gpusHeldByClaims(slices: readonly ResourceSlice[], held: ReadonlySet<string>): number {
  if (!held.size) return 0;
  const gpus = new Set<string>();
  for (const d of gpuDevices(slices)) if (held.has(d.key)) gpus.add(d.gpu);
  return gpus.size;
}

/**
 * The `nvidia.com/gpu` the node's pods hold through its capacity: pods not served by a DRA claim (bound while no
 * DeviceClass mapped the resource, or on a node without devices). A pod whose mapped request waits in flight counts
 * among the claims.
 */
export function gpusHeldByCapacity(n: NodeInfo, dra: DraLookups): number {
  if (!n.requested[gpuResourceName]) return 0;
  let count = 0;
  for (const pi of n.pods.values()) {
    const want = pi.requests[gpuResourceName];
    if (!want || pi.pod.status?.extendedResourceClaimStatus || dra.inFlight.has(extendedDraftUid(pi.uid))) continue;
    count += want;
  }
  return count;
}

/**
 * `held` plus `count` whole GPUs of the slices that neither a claim nor a partition of theirs holds (in the order the
 * driver publishes them): the GPUs the capacity pods use, as the allocator should see them.
 */
export function withCapacityGpus(slices: readonly ResourceSlice[], held: ReadonlySet<string>, count: number): ReadonlySet<string> {
  if (count <= 0) return held;
  const busy = new Set<string>();
  const devices = [...gpuDevices(slices)];
  for (const d of devices) if (held.has(d.key)) busy.add(d.gpu);
  const out = new Set(held);
  for (const d of devices) {
    if (count === 0) break;
    if (!isWholeGpu(d.device) || busy.has(d.gpu)) continue;
    out.add(d.key);
    busy.add(d.gpu);
    count--;
  }
  return out;
}
