// Per-pod and per-instance-type facts the simulation reads many times, computed once: a pod's requests,
// requirement alternatives and tolerations; an instance type's labels and allocatable as numbers.
import type { Pod, Taint, Toleration } from '../../../generated/k8s/core/v1.js';
import { amounts, podRequests, type ResourceAmounts } from '../../../machinery/resources.js';
import { getOwn, setOwn } from '../../../util/own.js';
import { untoleratedTaint } from '../../../scheduler/plugins/taint-toleration.js';
import { instanceTypeLabels, type InstanceType, type Offering } from '../catalog.js';
import { labels as wk } from '../types.js';
import { allows, podRequirements, type Requirements } from './requirements.js';

export interface PodData {
  pod: Pod;
  key: string;
  requests: ResourceAmounts;
  options: Requirements[];
  tolerations: Toleration[];
}

export function podKey(p: Pod): string {
  return `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;
}

export function podData(pod: Pod): PodData {
  const requests = podRequests(pod);
  requests.pods = 1;
  return { pod, key: podKey(pod), requests, options: podRequirements(pod), tolerations: pod.spec?.tolerations ?? [] };
}

export function tolerated(taints: readonly Taint[] | undefined, tolerations: Toleration[]): boolean {
  return !taints?.length || untoleratedTaint(taints as Array<{ key: string; effect: string }>, tolerations) === undefined;
}

const amt = (m: ResourceAmounts, k: string) => (getOwn(m, k) as number | undefined) ?? 0;

/** Whether `used + add` stays within `alloc` for every resource `add` asks for. */
export function fits(alloc: ResourceAmounts, used: ResourceAmounts, add: ResourceAmounts): boolean {
  for (const [k, v] of Object.entries(add)) {
    if (v > 0 && amt(used, k) + v > amt(alloc, k) + 1e-9) return false;
  }
  return true;
}

export function sum(a: ResourceAmounts, b: ResourceAmounts): ResourceAmounts {
  const out: ResourceAmounts = { ...a };
  for (const [k, v] of Object.entries(b)) setOwn(out, k, amt(out, k) + v);
  return out;
}

export interface TypeData {
  labels: Record<string, string>;
  allocatable: ResourceAmounts;
  capacity: ResourceAmounts;
}

const typeCache = new WeakMap<InstanceType, TypeData>();

export function typeData(t: InstanceType): TypeData {
  let d = typeCache.get(t);
  if (!d) typeCache.set(t, (d = { labels: instanceTypeLabels(t), allocatable: amounts(t.allocatable), capacity: amounts(t.capacity) }));
  return d;
}

/** The offerings of `t` the requirements allow (zone and capacity type), available ones only. */
export function compatibleOfferings(t: InstanceType, reqs: Requirements): Offering[] {
  const z = reqs.get(wk.zone);
  const c = reqs.get(wk.capacityType);
  return t.offerings.filter((o) => o.available && (!z || allows(z, o.zone)) && (!c || allows(c, o.capacityType)));
}

/** Whether the instance type's labels and some offering satisfy the requirements. */
export function typeCompatible(t: InstanceType, reqs: Requirements): boolean {
  const d = typeData(t);
  for (const r of reqs.values()) {
    if (r.key === wk.zone || r.key === wk.capacityType) continue;
    const v = getOwn(d.labels, r.key) as string | undefined;
    if (v !== undefined && !allows(r, v)) return false;
    if (v === undefined && typeKeys.has(r.key) && !r.allowAbsent) return false;
  }
  return compatibleOfferings(t, reqs).length > 0;
}

/** Keys an instance type decides (absent on it means "this type does not have it"). */
const typeKeys = new Set<string>([wk.instanceType, wk.arch, wk.os, wk.instanceFamily, wk.instanceSize, wk.instanceCpu, wk.instanceMemory, wk.instanceGpuCount, wk.instanceGpuName]);

/** The cheapest offering of `t` the requirements allow. */
export function cheapestOffering(t: InstanceType, reqs: Requirements): Offering | undefined {
  let best: Offering | undefined;
  for (const o of compatibleOfferings(t, reqs)) if (!best || o.price < best.price) best = o;
  return best;
}

/** minValues: every requirement asking for N distinct values sees at least N among the types. */
export function minValuesMet(reqs: Requirements, types: readonly InstanceType[]): boolean {
  for (const r of reqs.values()) {
    if (!r.minValues) continue;
    const seen = new Set<string>();
    for (const t of types) {
      const v = getOwn(typeData(t).labels, r.key);
      if (typeof v === 'string') seen.add(v);
    }
    if (seen.size < r.minValues) return false;
  }
  return true;
}
