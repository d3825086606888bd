// One node's GPUs through two doors. The simulated kubelet advertises a GPU node's GPUs as `nvidia.com/gpu` capacity
// (as NVIDIA's device plugin does) and the simulated GPU driver publishes the same GPUs as devices. Upstream
// (KEP-5004) serves an extended resource through the device plugin on a node whose allocatable has it and through a
// DeviceClass's devices elsewhere, and leaves it to the operator not to run a device plugin and a DRA driver for the
// same hardware. Here both describe one set of GPUs, so each side counts what the other handed out: NodeResourcesFit
// counts the GPUs claims hold on the node next to the capacity pods' requests, and the allocator sees the GPUs the
// pods bound through the capacity hold taken (as the kubelet chose them, ../machinery/gpu-devices.ts).
import type { Pod } from '../generated/k8s/core/v1.js';
import type { Device, ResourceSlice } from '../generated/k8s/resource/v1.js';
import { gpuResourceName, simulatedGpuDriver } from '../machinery/dra-names.js';
import { firstFree, physicalGpu, recordedGpus, recordedIds } from '../machinery/gpu-devices.js';
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
      yield { device, key: deviceKey({ driver: simulatedGpuDriver, pool, device: device.name }), gpu: physicalGpu(pool, device) };
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

/** The node's pods holding `nvidia.com/gpu` through its capacity, with how many each asks for. */
function* capacityPods(n: NodeInfo, dra: DraLookups): Generator<{ pod: Pod; want: number }> {
  if (!n.requested[gpuResourceName]) return;
  for (const pi of n.pods.values()) {
    const want = pi.requests[gpuResourceName];
    if (!want || pi.pod.status?.extendedResourceClaimStatus || dra.inFlight.has(extendedDraftUid(pi.uid))) continue;
    yield { pod: pi.pod, want };
  }
}

/**
 * The `nvidia.com/gpu` the node's pods hold through its capacity: pods not served by a DRA claim (bound while no
 * DeviceClass mapped the resource, or on a node without devices). A pod whose mapped request waits in flight counts
 * among the claims.
 */
export function gpusHeldByCapacity(n: NodeInfo, dra: DraLookups): number {
  let count = 0;
  for (const p of capacityPods(n, dra)) count += p.want;
  return count;
}

/**
 * `held` plus the whole GPUs of the slices the node's capacity pods hold: those the kubelet recorded for them (by
 * UUID), and for the pods it has not chosen for yet as many of the first whole GPUs that neither a claim, a partition
 * of theirs nor a recorded pod holds (in the order the driver publishes them), as the kubelet will choose them.
 */
export function withCapacityGpus(slices: readonly ResourceSlice[], held: ReadonlySet<string>, n: NodeInfo, dra: DraLookups): ReadonlySet<string> {
  let unrecorded = 0;
  const ids = new Set<string>();
  for (const p of capacityPods(n, dra)) {
    const recorded = recordedGpus(p.pod.status);
    if (recorded) for (const id of recordedIds(recorded)) ids.add(id);
    else unrecorded += p.want;
  }
  if (!unrecorded && !ids.size) return held;
  const devices = [...gpuDevices(slices)];
  const busy = new Set<string>();
  const out = new Set(held);
  const whole = devices.filter((d) => isWholeGpu(d.device));
  for (const d of devices) if (held.has(d.key)) busy.add(d.gpu);
  for (const d of whole) {
    const uuid = d.device.attributes?.uuid?.string ?? d.device.name;
    if (!ids.has(uuid)) continue;
    out.add(d.key);
    busy.add(d.gpu);
  }
  for (const d of firstFree(whole, (x) => x.gpu, busy, unrecorded)) out.add(d.key);
  return out;
}
