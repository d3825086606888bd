// NodeResourcesFit (filter, LeastAllocated score) and NodeResourcesBalancedAllocation.
import type { CycleState, Failure, FilterPlugin, ScorePlugin } from '../framework.js';
import type { NodeInfo } from '../node-info.js';
import type { PodInfo } from '../pod-info.js';
import { gpuResourceName } from '../../machinery/dra-names.js';
import { gpusHeldByCapacity, gpusHeldByClaims } from '../gpu-capacity.js';
import { heldDevices } from './dynamic-resources.js';

const tooManyPods = 'Too many pods';
const fixed = ['cpu', 'memory', 'ephemeral-storage'];

const none: PodInfo[] = [];
/** The answer when everything fits (shared: callers only read it). */
const noReasons: string[] = [];

/**
 * Why the pod's requests do not fit next to what the node already holds (plus nominated pods); empty when it fits.
 * `inUse` overrides how much of a resource the node has handed out (its GPUs, see gpusInUse).
 */
export function insufficientResources(pi: PodInfo, n: NodeInfo, nominated: PodInfo[] = none, skip?: ReadonlySet<string>, inUse?: Readonly<Record<string, number>>): string[] {
  let out: string[] | undefined;
  let podCount = n.pods.size;
  let extra: Record<string, number> | undefined;
  if (nominated.length) {
    extra = {};
    for (const p of nominated) {
      podCount++;
      for (const k in p.requests) extra[k] = (extra[k] ?? 0) + p.requests[k];
    }
  }
  if (podCount + 1 > n.allowedPods) (out ??= []).push(tooManyPods);
  const req = pi.requests;
  for (const k in req) {
    if (k === 'pods' || skip?.has(k)) continue;
    const used = (inUse?.[k] ?? n.requested[k] ?? 0) + (extra?.[k] ?? 0);
    if ((n.allocatable[k] ?? 0) < req[k] + used) (out ??= []).push(k);
  }
  if (!out) return noReasons;
  // Upstream's order: pods, cpu, memory, ephemeral-storage, then extended resources.
  const rank = (r: string) => (r === tooManyPods ? -1 : fixed.indexOf(r) < 0 ? fixed.length : fixed.indexOf(r));
  return out.sort((a, b) => rank(a) - rank(b)).map((r) => (r === tooManyPods ? r : `Insufficient ${r}`));
}

/** The pod's requests but `pods`, as a list (computed once per attempt and kept in the cycle state). */
function requestList(s: CycleState): Array<[string, number]> {
  return (s.fitRequests ??= Object.entries(s.pi.requests).filter(([k]) => k !== 'pods'));
}

/**
 * Extended resources DynamicResources allocates on this node from its drivers' devices (a DeviceClass maps them):
 * the devices are their one source there, so the node's capacity of them is not counted as well.
 */
const servedByDevices = (s: CycleState, n: NodeInfo): ReadonlySet<string> | undefined =>
  s.draExtended && s.lookups.dra?.nodeHasDevices(n.name) ? s.draExtended : undefined;

/**
 * For a pod asking `nvidia.com/gpu` of a node's capacity while the node's driver publishes the same GPUs as devices:
 * how many of them the node has handed out, through its capacity and through claims (see ../gpu-capacity.ts).
 */
function gpusInUse(s: CycleState, n: NodeInfo, skip: ReadonlySet<string> | undefined): Record<string, number> | undefined {
  const dra = s.lookups.dra;
  if (!dra || !s.pi.requests[gpuResourceName] || skip?.has(gpuResourceName) || !dra.nodeHasDevices(n.name)) return undefined;
  let held = s.get<ReadonlySet<string>>(heldKey);
  if (!held) s.data.set(heldKey, (held = heldDevices(dra)));
  return { [gpuResourceName]: gpusHeldByCapacity(n, dra) + gpusHeldByClaims(dra.slicesFor(n.name), held) };
}
const heldKey = 'NodeResourcesFit/held-devices';

/** Whether the pod fits next to the node's pods with no nominated pods in the way (the common case, cheaply). */
function fitsPlainly(s: CycleState, n: NodeInfo, skip: ReadonlySet<string> | undefined, inUse: Readonly<Record<string, number>> | undefined): boolean {
  if (n.pods.size + 1 > n.allowedPods) return false;
  const list = requestList(s);
  for (let i = 0; i < list.length; i++) {
    const [k, v] = list[i];
    if (skip?.has(k)) continue;
    if ((n.allocatable[k] ?? 0) < v + (inUse?.[k] ?? n.requested[k] ?? 0)) return false;
  }
  return true;
}

export const nodeResourcesFitFilter: FilterPlugin = {
  name: 'NodeResourcesFit',
  filter(s, n) {
    const nominated = s.nominated ? s.nominated(n.name) : none;
    const skip = servedByDevices(s, n);
    const inUse = gpusInUse(s, n, skip);
    if (nominated.length === 0 && fitsPlainly(s, n, skip, inUse)) return undefined;
    const reasons = insufficientResources(s.pi, n, nominated, skip, inUse);
    return reasons.length ? ({ plugin: 'NodeResourcesFit', code: 'Unschedulable', reasons } satisfies Failure) : undefined;
  },
};

function leastAllocated(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * 100) / capacity);
}

/** LeastAllocated over cpu and memory (weight 1 each), with upstream's defaults for pods without requests. */
export const nodeResourcesFitScore: ScorePlugin = {
  name: 'NodeResourcesFit',
  weight: 1,
  score(s, n) {
    const cpu = leastAllocated(n.nonZeroCpu + s.pi.nonZeroCpu, n.allocatable.cpu ?? 0);
    const mem = leastAllocated(n.nonZeroMem + s.pi.nonZeroMem, n.allocatable.memory ?? 0);
    return Math.trunc((cpu + mem) / 2);
  },
};

/** Favours nodes whose cpu and memory fractions stay close (1 - standard deviation). */
export const balancedAllocationScore: ScorePlugin = {
  name: 'NodeResourcesBalancedAllocation',
  weight: 1,
  preScore(s) {
    return !!(s.pi.requests.cpu || s.pi.requests.memory);
  },
  score(s, n) {
    // The two fractions that exist (cpu, memory) and the standard deviation of the pair; one alone deviates by 0.
    const cpuCap = n.allocatable.cpu ?? 0;
    const memCap = n.allocatable.memory ?? 0;
    if (cpuCap === 0 || memCap === 0) return 100;
    const cpu = Math.min(1, ((n.requested.cpu ?? 0) + (s.pi.requests.cpu ?? 0)) / cpuCap);
    const mem = Math.min(1, ((n.requested.memory ?? 0) + (s.pi.requests.memory ?? 0)) / memCap);
    const std = Math.abs((cpu - mem) / 2);
    return Math.trunc((1 - std) * 100);
  },
};
