// Which pods the VPA updater changes, and in what order (upstream's update priority): a pod whose request lies
// outside [lowerBound, upperBound] (or lacks one) is updated at once; one within the bounds only when it has lived
// long enough and the relative change is large enough. Pods that want more go first, then the larger change.
import type { Pod } from '../../generated/k8s/core/v1.js';
import { amountsOf, resourceNames, type ResourceName } from './amounts.js';
import type { ProcessedRecommendation } from './policy.js';
import { annotations, type EvictionRequirement } from './types.js';

export interface PodPriority {
  outsideRecommendedRange: boolean;
  scaleUp: boolean;
  resourceDiff: number;
}

/** The containers the admission step observed (the annotation), or undefined when the pod has none. */
function observed(pod: Pod): Set<string> | undefined {
  const v = pod.metadata?.annotations?.[annotations.observedContainers];
  if (typeof v !== 'string') return undefined;
  return new Set(v === '' ? [] : v.split(', '));
}

export function podPriority(pod: Pod, recs: ProcessedRecommendation[]): PodPriority {
  let outside = false;
  let scaleUp = false;
  const requested: Partial<Record<ResourceName, number>> = {};
  const recommended: Partial<Record<ResourceName, number>> = {};
  const seen = observed(pod);
  for (const c of pod.spec?.containers ?? []) {
    if (seen && !seen.has(c.name)) continue;
    const rec = recs.find((r) => r.containerName === c.name);
    if (!rec) continue;
    const req = amountsOf(c.resources?.requests as Record<string, unknown> | undefined);
    for (const r of resourceNames) {
      const target = rec.target[r];
      if (target === undefined) continue;
      recommended[r] = (recommended[r] ?? 0) + target;
      const have = req[r];
      if (have === undefined) {
        scaleUp = true;
        outside = true;
        continue;
      }
      requested[r] = (requested[r] ?? 0) + have;
      if (target > have) scaleUp = true;
      const lo = rec.lowerBound[r];
      const hi = rec.upperBound[r];
      if ((lo !== undefined && have < lo) || (hi !== undefined && have > hi)) outside = true;
    }
  }
  let diff = 0;
  for (const r of resourceNames) {
    if (recommended[r] === undefined) continue;
    const total = Math.max(requested[r] ?? 0, 1);
    diff += Math.abs(total - recommended[r]!) / total;
  }
  return { outsideRecommendedRange: outside, scaleUp, resourceDiff: diff };
}

/** Sorts higher priority first: scaling up wins, then the larger relative change. */
export function comparePriority(a: PodPriority, b: PodPriority): number {
  if (a.scaleUp !== b.scaleUp) return a.scaleUp ? -1 : 1;
  return b.resourceDiff - a.resourceDiff;
}

/** Whether a pod should be updated now (upstream's AddPod filter, without the quick-OOM rule). */
export function shouldUpdate(p: PodPriority, pod: Pod, nowMs: number, lifetimeThresholdMs: number, minChange: number): boolean {
  if (p.outsideRecommendedRange) return true;
  const start = Date.parse(pod.status?.startTime ?? '');
  if (Number.isNaN(start) || nowMs < start + lifetimeThresholdMs) return false;
  return p.resourceDiff >= minChange;
}

/**
 * updatePolicy.evictionRequirements: each requirement must hold for at least one of its resources in at least one
 * container (TargetHigherThanRequests: the target is above the request; TargetLowerThanRequests: below).
 */
export function meetsEvictionRequirements(pod: Pod, recs: ProcessedRecommendation[], reqs: EvictionRequirement[] | undefined): boolean {
  if (!Array.isArray(reqs) || reqs.length === 0) return true;
  return reqs.every((req) => (pod.spec?.containers ?? []).some((c) => {
    const rec = recs.find((r) => r.containerName === c.name);
    if (!rec) return false;
    const have = amountsOf(c.resources?.requests as Record<string, unknown> | undefined);
    return (req.resources ?? []).some((name) => {
      const r = name as ResourceName;
      if (!resourceNames.includes(r) || rec.target[r] === undefined || have[r] === undefined) return false;
      return req.changeRequirement === 'TargetHigherThanRequests' ? rec.target[r]! > have[r]! : req.changeRequirement === 'TargetLowerThanRequests' ? rec.target[r]! < have[r]! : false;
    });
  }));
}
