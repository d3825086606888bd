// The replica math of the metric types that read one number (or a sum) instead of per-pod samples: External and
// Object metrics with a Value target scale the ready pods by the usage ratio; AverageValue targets divide the
// usage by the per-pod target. Inputs and outputs are milli-units; within tolerance nothing changes.
import type { Pod } from '../../generated/k8s/core/v1.js';

/** Running pods whose Ready condition is True; throws when the selector picks no pods at all. */
export function readyPodCount(pods: Pod[]): number {
  if (pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
  let n = 0;
  for (const p of pods) {
    if (p.status?.phase !== 'Running') continue;
    if (p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) n++;
  }
  return n;
}

/**
 * A usage ratio against a whole-target value: the current count when within tolerance, else the ratio times the
 * ready pods; from zero replicas, the ratio rounded up.
 */
export function usageRatioReplicas(current: number, usageRatio: number, pods: Pod[], tolerance: number): number {
  if (current === 0) return Math.ceil(usageRatio);
  if (Math.abs(1 - usageRatio) <= tolerance) return current;
  let ready: number;
  try {
    ready = readyPodCount(pods);
  } catch (e) {
    throw new Error(`unable to calculate ready pods: ${(e as Error).message}`);
  }
  return Math.ceil(usageRatio * ready);
}

/** The sum of the values an external metric returned (milli-units). */
export const sumOf = (values: number[]): number => values.reduce((a, b) => a + b, 0);

/** A Value target: the total usage against the target, scaling the ready pods. */
export function valueReplicas(current: number, targetMilli: number, usageMilli: number, pods: Pod[], tolerance: number): number {
  return usageRatioReplicas(current, usageMilli / targetMilli, pods, tolerance);
}

export interface PerPod {
  replicas: number;
  /** The usage per current replica (milli-units, rounded up) that the status reports. */
  average: number;
}

/**
 * An AverageValue target on a single number (External, Object): the replicas that bring the usage per replica
 * to the target, unless the current replicas are already within tolerance of it.
 */
export function perPodReplicas(statusReplicas: number, targetMilli: number, usageMilli: number, tolerance: number): PerPod {
  let replicas = statusReplicas;
  const ratio = usageMilli / (targetMilli * statusReplicas);
  if (!(Math.abs(1 - ratio) <= tolerance)) replicas = Math.ceil(usageMilli / targetMilli);
  // With no replicas yet the whole usage is reported (upstream would divide by zero).
  const average = statusReplicas > 0 ? Math.ceil(usageMilli / statusReplicas) : usageMilli;
  return { replicas, average };
}
