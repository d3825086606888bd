// resourcePolicy: which containers and resources a VPA controls, the minAllowed/maxAllowed caps, and what a
// recommendation means for a pod's containers (requests, and limits scaled in proportion for RequestsAndLimits).
import type { Container, Pod } from '../../generated/k8s/core/v1.js';
import { amountsOf, formatAmount, formatAmounts, resourceNames, type Amounts, type ResourceName } from './amounts.js';
import { defaultContainerPolicy, updateModeOf, type ContainerPolicy, type ContainerRecommendation, type Vpa } from './types.js';

/** The container's own policy, else the `*` policy, else none. */
export function containerPolicy(vpa: Vpa, container: string): ContainerPolicy | undefined {
  const list = Array.isArray(vpa.spec?.resourcePolicy?.containerPolicies) ? vpa.spec!.resourcePolicy!.containerPolicies! : [];
  return list.find((p) => p?.containerName === container) ?? list.find((p) => p?.containerName === defaultContainerPolicy);
}

export function controlledResources(vpa: Vpa, container: string): ResourceName[] {
  const list = containerPolicy(vpa, container)?.controlledResources;
  if (!Array.isArray(list)) return [...resourceNames];
  return resourceNames.filter((r) => list.includes(r));
}

export function controlledValues(vpa: Vpa, container: string): 'RequestsAndLimits' | 'RequestsOnly' {
  return containerPolicy(vpa, container)?.controlledValues === 'RequestsOnly' ? 'RequestsOnly' : 'RequestsAndLimits';
}

/** Whether the container's scaling mode is Off (no recommendation, never changed). */
export function containerOff(vpa: Vpa, container: string): boolean {
  return containerPolicy(vpa, container)?.mode === 'Off';
}

/** Caps each amount to the policy's minAllowed then maxAllowed (a zero or absent cap does nothing); returns what was capped. */
export function capToPolicy(a: Amounts, policy: ContainerPolicy | undefined): { amounts: Amounts; capped: string[] } {
  const out: Amounts = { ...a };
  const capped: string[] = [];
  if (!policy) return { amounts: out, capped };
  const min = amountsOf(policy.minAllowed);
  const max = amountsOf(policy.maxAllowed);
  for (const r of resourceNames) {
    let v = out[r];
    if (v === undefined) continue;
    if (min[r] && v < min[r]!) {
      v = min[r]!;
      capped.push(`${r} capped to minAllowed`);
    }
    if (max[r] && v > max[r]!) {
      v = max[r]!;
      capped.push(`${r} capped to maxAllowed`);
    }
    out[r] = v;
  }
  return { amounts: out, capped };
}

/** A recommendation in model amounts (what the recommender computes before rendering). */
export interface RecommendationAmounts {
  containerName: string;
  target: Amounts;
  lowerBound: Amounts;
  upperBound: Amounts;
  uncappedTarget: Amounts;
}

/** The recommender's step: minAllowed/maxAllowed applied to target and bounds; uncappedTarget keeps the raw target. */
export function applyPolicy(vpa: Vpa, rec: Omit<RecommendationAmounts, 'uncappedTarget'>): RecommendationAmounts {
  const p = containerPolicy(vpa, rec.containerName);
  return {
    containerName: rec.containerName,
    target: capToPolicy(rec.target, p).amounts,
    lowerBound: capToPolicy(rec.lowerBound, p).amounts,
    upperBound: capToPolicy(rec.upperBound, p).amounts,
    uncappedTarget: { ...rec.target },
  };
}

export function renderRecommendation(r: RecommendationAmounts): ContainerRecommendation {
  return {
    containerName: r.containerName,
    lowerBound: formatAmounts(r.lowerBound),
    target: formatAmounts(r.target),
    uncappedTarget: formatAmounts(r.uncappedTarget),
    upperBound: formatAmounts(r.upperBound),
  };
}

const limitsOf = (c: Container) => amountsOf(c.resources?.limits as Record<string, unknown> | undefined);
const requestsOf = (c: Container) => amountsOf(c.resources?.requests as Record<string, unknown> | undefined);

export interface ProcessedRecommendation {
  containerName: string;
  target: Amounts;
  lowerBound: Amounts;
  upperBound: Amounts;
}

/**
 * The VPA's recommendation as it applies to one pod (upstream's capping processor): for each container of the pod
 * with a recommendation, the policy caps again, and for RequestsOnly the target never exceeds the container's limit.
 * `notes` are the capping notes per container (they lead the container's part of the vpaUpdates annotation).
 */
export function processForPod(vpa: Vpa, pod: Pod): { recs: ProcessedRecommendation[]; notes: Map<string, string[]> } {
  const recs: ProcessedRecommendation[] = [];
  const notes = new Map<string, string[]>();
  const list = vpa.status?.recommendation?.containerRecommendations;
  if (!Array.isArray(list)) return { recs, notes };
  for (const cr of list) {
    const c = pod.spec?.containers?.find((x) => x.name === cr?.containerName);
    if (!c) continue;
    const p = containerPolicy(vpa, c.name);
    const requestsOnly = controlledValues(vpa, c.name) === 'RequestsOnly';
    const step = (a: Amounts, record: boolean): Amounts => {
      const { amounts, capped } = capToPolicy(a, p);
      const extra: string[] = [];
      if (requestsOnly) {
        const lim = limitsOf(c);
        for (const r of resourceNames) {
          if (amounts[r] !== undefined && lim[r] !== undefined && amounts[r]! > lim[r]!) {
            amounts[r] = lim[r];
            extra.push(`${r} capped to container limit`);
          }
        }
      }
      if (record && capped.length + extra.length) notes.set(c.name, [...capped, ...extra]);
      return amounts;
    };
    recs.push({ containerName: c.name, target: step(amountsOf(cr.target), true), lowerBound: step(amountsOf(cr.lowerBound), false), upperBound: step(amountsOf(cr.upperBound), false) });
  }
  return { recs, notes };
}

/** The requests and limits one container should get from a processed recommendation (limits only when they change). */
export interface ContainerResources {
  requests: Amounts;
  limits?: Amounts;
  notes: string[];
}

/**
 * For each container of the pod (by index; undefined when it has no recommendation): requests = the target, limits
 * kept in their ratio to the requests for RequestsAndLimits (a limit equal to the request follows it).
 */
export function containerResourcesForPod(vpa: Vpa, pod: Pod, processed: { recs: ProcessedRecommendation[]; notes: Map<string, string[]> }): Array<ContainerResources | undefined> {
  const withPolicy = updateModeOf(vpa) !== 'Off';
  return (pod.spec?.containers ?? []).map((c) => {
    const rec = processed.recs.find((r) => r.containerName === c.name);
    if (!rec) return undefined;
    const notes = [...(processed.notes.get(c.name) ?? [])];
    const requests = { ...rec.target };
    const out: ContainerResources = { requests, notes };
    if (!withPolicy || controlledValues(vpa, c.name) !== 'RequestsAndLimits') return out;
    const origReq = requestsOf(c);
    const origLim = limitsOf(c);
    const limits: Amounts = {};
    const limitNotes: string[] = [];
    for (const r of resourceNames) {
      const lim = origLim[r];
      if (!lim) {
        limitNotes.push(`${r}: limit NOT set since originalLimit is nil or 0`);
        continue;
      }
      const want = requests[r];
      if (!want) {
        limitNotes.push(`${r}: limit NOT set since recommendedRequest is nil or 0`);
        continue;
      }
      const req = origReq[r];
      limits[r] = !req || req === lim ? want : proportional(lim, req, want);
    }
    if (Object.keys(limits).length) {
      out.limits = limits;
      out.notes.push(...limitNotes);
    }
    return out;
  });
}

/** `scaled * result / base` in integer arithmetic (truncated), as upstream scales quantities. */
function proportional(scaled: number, base: number, result: number): number {
  return Number((BigInt(Math.round(scaled)) * BigInt(Math.round(result))) / BigInt(Math.max(1, Math.round(base))));
}

/** Writes amounts into a resource list (only cpu and memory; other resources untouched). */
export function setAmounts(list: Record<string, unknown>, a: Amounts): void {
  for (const r of resourceNames) if (a[r] !== undefined) list[r] = formatAmount(r, a[r]!);
}
