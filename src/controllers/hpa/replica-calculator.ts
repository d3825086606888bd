// The replica count a resource metric asks for, as the upstream replica calculator computes it: pods are grouped
// into counted, ignored (pending, or unready while their CPU settles) and missing (no metrics); the usage ratio
// against the target gives the count, with a tolerance band and conservative handling of ignored/missing pods.
import type { Container, Pod } from '../../generated/k8s/core/v1.js';
import { quantityValue } from '../../machinery/resources.js';

/** One pod's metric: the value in milli-units (millicores, milli-bytes), when it was measured and over what window. */
export interface PodMetric {
  value: number;
  timestampMs: number;
  windowMs: number;
}

export type PodMetrics = Map<string, PodMetric>;

export interface CalcOptions {
  /** Changes within this fraction of the target do not scale (upstream --horizontal-pod-autoscaler-tolerance). */
  tolerance: number;
  /** After start, samples of unready pods, or taken right after readiness changed, are ignored for CPU. */
  cpuInitializationPeriodMs: number;
  /** A pod that turned unready within this time of its start is taken as never having been ready. */
  delayOfInitialReadinessStatusMs: number;
  nowMs: number;
}

export const defaultCalcOptions = { tolerance: 0.1, cpuInitializationPeriodMs: 5 * 60_000, delayOfInitialReadinessStatusMs: 30_000 } as const;

export interface Proposal {
  replicas: number;
  /** Percentage of request (utilization targets only). */
  utilization?: number;
  /** Average value per pod in milli-units. */
  rawAverage: number;
  timestampMs: number;
}

const msOf = (t: string | undefined): number | undefined => (t ? Date.parse(t) : undefined);

export interface PodGroups {
  readyPodCount: number;
  /** Pending pods, and unready pods' CPU samples: left out, and counted as idle on a scale-up. */
  ignored: Set<string>;
  /** Running pods without metrics. */
  missing: Set<string>;
  /** Terminating and finished pods: left out entirely. */
  skipped: Set<string>;
}

/** Sorts pods into counted, ignored, missing and skipped. */
export function groupPods(pods: Pod[], metrics: PodMetrics, resource: string, o: CalcOptions): PodGroups {
  const ignored = new Set<string>();
  const missing = new Set<string>();
  const skipped = new Set<string>();
  let readyPodCount = 0;
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    const phase = pod.status?.phase;
    if (pod.metadata?.deletionTimestamp || phase === 'Failed' || phase === 'Succeeded') {
      skipped.add(name);
      continue;
    }
    if (phase === 'Pending' || phase === undefined) {
      ignored.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (!metric) {
      missing.add(name);
      continue;
    }
    if (resource === 'cpu' && cpuSampleIgnored(pod, metric, o)) {
      ignored.add(name);
      continue;
    }
    readyPodCount++;
  }
  return { readyPodCount, ignored, missing, skipped };
}

function cpuSampleIgnored(pod: Pod, metric: PodMetric, o: CalcOptions): boolean {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  const start = msOf(pod.status?.startTime);
  if (!ready || start === undefined) return true;
  const transition = msOf(ready.lastTransitionTime) ?? 0;
  if (start + o.cpuInitializationPeriodMs > o.nowMs) {
    // Still starting: skip unready pods and samples that do not cover a full window since readiness changed.
    return ready.status === 'False' || metric.timestampMs < transition + metric.windowMs;
  }
  // Past start-up: skip only pods unready since (nearly) their start, i.e. never ready.
  return ready.status === 'False' && start + o.delayOfInitialReadinessStatusMs > transition;
}

/** The containers that count for a pod's requests: app containers and restartable (sidecar) init containers. */
function countedContainers(pod: Pod): Container[] {
  const sidecars = (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always');
  return [...(pod.spec?.containers ?? []), ...sidecars];
}

/** Milli-units of a quantity, rounded up as resource.Quantity.MilliValue does. */
export function milliValue(q: unknown): number {
  return Math.ceil(quantityValue(q) * 1000 - 1e-6);
}

/** Each pod's request for `resource` in milli-units (one container's, when `container` is given). */
export function podRequests(pods: Pod[], resource: string, container = ''): Map<string, number> {
  const out = new Map<string, number>();
  for (const pod of pods) {
    let sum = 0;
    for (const c of countedContainers(pod)) {
      if (container && c.name !== container) continue;
      const req = (c.resources?.requests ?? {}) as Record<string, unknown>;
      const v = req[resource] === undefined ? 0 : milliValue(req[resource]);
      if (v === 0) throw new Error(`missing request for ${resource} in container ${c.name} of Pod ${pod.metadata?.name ?? ''}`);
      sum += v;
    }
    out.set(pod.metadata?.name ?? '', sum);
  }
  return out;
}

/** Utilization of the pods that have both a metric and a request: percentage (integer) and raw average. */
export function utilizationRatio(metrics: PodMetrics, requests: Map<string, number>, target: number): { ratio: number; utilization: number; rawAverage: number } {
  let used = 0;
  let requested = 0;
  let n = 0;
  for (const [name, m] of metrics) {
    const r = requests.get(name);
    if (r === undefined) continue;
    used += m.value;
    requested += r;
    n++;
  }
  if (requested === 0) throw new Error('no metrics returned matched known pods');
  const utilization = Math.trunc((used * 100) / requested);
  return { ratio: utilization / target, utilization, rawAverage: Math.trunc(used / n) };
}

function averageRatio(metrics: PodMetrics, target: number): { ratio: number; average: number } {
  let sum = 0;
  for (const m of metrics.values()) sum += m.value;
  const average = Math.trunc(sum / metrics.size);
  return { ratio: average / target, average };
}

function latest(metrics: PodMetrics): number {
  let t = 0;
  for (const m of metrics.values()) t = Math.max(t, m.timestampMs);
  return t;
}

/**
 * The shared core of both target kinds: with no ignored or missing pods the count is ceil(ratio * counted pods);
 * otherwise missing pods count as at target (scale-down) or as idle (scale-up), unready pods as idle on a
 * scale-up, and the ratio is recomputed; a change of direction or a change within tolerance keeps the count.
 */
function propose(current: number, groups: PodGroups, metrics: PodMetrics, ratioOf: (m: PodMetrics) => number, atTarget: (pod: string) => number, tolerance: number): number {
  const usageRatio = ratioOf(metrics);
  const rebalanceIgnored = groups.ignored.size > 0 && usageRatio > 1;
  if (!rebalanceIgnored && groups.missing.size === 0) {
    if (Math.abs(1 - usageRatio) <= tolerance) return current;
    return Math.ceil(usageRatio * groups.readyPodCount);
  }
  const adjusted = new Map(metrics);
  for (const name of groups.missing) {
    if (usageRatio < 1) adjusted.set(name, { value: atTarget(name), timestampMs: 0, windowMs: 0 });
    else if (usageRatio > 1) adjusted.set(name, { value: 0, timestampMs: 0, windowMs: 0 });
  }
  if (rebalanceIgnored) for (const name of groups.ignored) adjusted.set(name, { value: 0, timestampMs: 0, windowMs: 0 });
  const newRatio = ratioOf(adjusted);
  if (Math.abs(1 - newRatio) <= tolerance || (usageRatio < 1 && newRatio > 1) || (usageRatio > 1 && newRatio < 1)) return current;
  const replicas = Math.ceil(newRatio * adjusted.size);
  if ((newRatio < 1 && replicas > current) || (newRatio > 1 && replicas < current)) return current;
  return replicas;
}

function withoutIgnored(metrics: PodMetrics, groups: PodGroups): PodMetrics {
  const kept = new Map(metrics);
  for (const name of [...groups.ignored, ...groups.skipped]) kept.delete(name);
  return kept;
}

/** A target utilization (percentage of request). `pods` are the pods the scale target's selector selects. */
export function replicasForUtilization(current: number, target: number, resource: string, pods: Pod[], all: PodMetrics, requests: Map<string, number>, o: CalcOptions): Proposal {
  if (pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
  const groups = groupPods(pods, all, resource, o);
  const metrics = withoutIgnored(all, groups);
  if (metrics.size === 0) throw new Error('did not receive metrics for any ready pods');
  const first = utilizationRatio(metrics, requests, target);
  const replicas = propose(current, groups, metrics, (m) => utilizationRatio(m, requests, target).ratio, (name) => requests.get(name) ?? 0, o.tolerance);
  return { replicas, utilization: first.utilization, rawAverage: first.rawAverage, timestampMs: latest(metrics) };
}

/** A target average value per pod, in milli-units. */
export function replicasForAverageValue(current: number, target: number, resource: string, pods: Pod[], all: PodMetrics, o: CalcOptions): Proposal {
  if (pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
  const groups = groupPods(pods, all, resource, o);
  const metrics = withoutIgnored(all, groups);
  if (metrics.size === 0) throw new Error('did not receive metrics for any ready pods');
  const first = averageRatio(metrics, target);
  const replicas = propose(current, groups, metrics, (m) => averageRatio(m, target).ratio, () => target, o.tolerance);
  return { replicas, rawAverage: first.average, timestampMs: latest(metrics) };
}
