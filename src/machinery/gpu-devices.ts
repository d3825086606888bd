// One node's GPUs as the kubelet, the scheduler and the dashboard agree to see them (pure, no imports but names:
// the dashboard bundles it). A device of a ResourceSlice is, or is a partition of, one physical GPU: a MIG partition
// and its GPU consume the same counter set, a device consuming none is its own GPU. A pod asking for `nvidia.com/gpu`
// through the node's capacity holds whole GPUs the kubelet chose for it once (as NVIDIA's device plugin hands them
// out), recorded in its container statuses' `allocatedResourcesStatus` (resource IDs: GPU UUIDs, or indexes when the
// node publishes no devices); a pod the kubelet has not chosen for yet is seen holding the first free whole GPUs.
import { gpuResourceName } from './dra-names.js';

/** The parts of a ResourceSlice device the rule reads. */
export interface SliceDevice {
  name: string;
  consumesCounters?: ReadonlyArray<{ counterSet: string }> | null;
}

/** The physical GPU a device of pool `pool` is or is part of, as `<pool>/<counter set or device name>`. */
export const physicalGpu = (pool: string, d: SliceDevice): string => `${pool}/${d.consumesCounters?.[0]?.counterSet ?? d.name}`;

/** The first `count` of `whole` (whole GPUs in the driver's order) whose physical GPU (`gpuOf`) is not in `busy`. */
export function firstFree<T>(whole: readonly T[], gpuOf: (t: T) => string, busy: ReadonlySet<string>, count: number): T[] {
  const out: T[] = [];
  for (const g of whole) {
    if (out.length >= count) break;
    if (!busy.has(gpuOf(g))) out.push(g);
  }
  return out;
}

const rec = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/**
 * The GPUs the kubelet recorded for each container of a pod (its `status`, as JSON) through the capacity, by container
 * name; undefined when it recorded none.
 */
export function recordedGpus(status: unknown): Map<string, string[]> | undefined {
  const st = rec(status);
  let out: Map<string, string[]> | undefined;
  for (const cs of [...list(st.initContainerStatuses), ...list(st.containerStatuses)].map(rec)) {
    const entry = list(cs.allocatedResourcesStatus).map(rec).find((r) => r.name === gpuResourceName);
    if (!entry || typeof cs.name !== 'string') continue;
    const ids = list(entry.resources).map((r) => rec(r).resourceID).filter((id): id is string => typeof id === 'string');
    (out ??= new Map()).set(cs.name, ids);
  }
  return out;
}

/** The distinct GPU resource IDs of a recording (an init container's reuse the app containers'). */
export const recordedIds = (gpus: ReadonlyMap<string, readonly string[]> | undefined): Set<string> => new Set([...(gpus?.values() ?? [])].flat());
