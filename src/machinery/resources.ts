// Resource quantities as numbers, and a pod's effective requests as the scheduler and kubelet account them.
import type { Container, Pod } from '../generated/k8s/core/v1.js';
import { parseQuantity } from './quantity.js';
import { getOwn, setOwn } from '../util/own.js';

/** name -> amount in base units (cpu in cores, memory in bytes, counts as counts). */
export type ResourceAmounts = Record<string, number>;

/**
 * An integer amount of the smallest unit written as resource.Quantity prints it: divided by `base` while it
 * divides evenly, with the matching suffix (`formatScaled(250_000_000, 1000, ['n', 'u', 'm', ''])` is `250m`).
 */
export function formatScaled(n: number, base: number, suffixes: readonly string[]): string {
  if (n === 0) return '0';
  let i = 0;
  while (n % base === 0 && i < suffixes.length - 1) {
    n /= base;
    i++;
  }
  return `${n}${suffixes[i]}`;
}

/** A quantity's numeric value; unparsable input counts as 0 (validation rejects it before storage). */
export function quantityValue(q: unknown): number {
  const r = parseQuantity(q);
  return 'value' in r ? r.value : 0;
}

export function amounts(list: Record<string, unknown> | undefined): ResourceAmounts {
  const out: ResourceAmounts = {};
  for (const [k, v] of Object.entries(list ?? {})) setOwn(out, k, quantityValue(v));
  return out;
}

// Resource names are client keys: only own entries count (a Node may list a resource named `constructor`).
const amountOf = (m: ResourceAmounts, k: string) => (getOwn(m, k) as number | undefined) ?? 0;
function addInto(into: ResourceAmounts, add: ResourceAmounts): void {
  for (const [k, v] of Object.entries(add)) setOwn(into, k, amountOf(into, k) + v);
}
function maxInto(into: ResourceAmounts, other: ResourceAmounts): void {
  for (const [k, v] of Object.entries(other)) setOwn(into, k, Math.max(amountOf(into, k), v));
}

function containerRequests(c: Container): ResourceAmounts {
  // Limits stand in for missing requests (the API defaults requests from limits; stored pods already have them).
  return { ...amounts(c.resources?.limits as Record<string, unknown> | undefined), ...amounts(c.resources?.requests as Record<string, unknown> | undefined) };
}

/**
 * A pod's effective requests: the sum of its containers and restartable (sidecar) init containers, or the
 * largest single init container step if that is more, plus the pod overhead.
 */
export function podRequests(pod: Pod): ResourceAmounts {
  const running: ResourceAmounts = {};
  for (const c of pod.spec?.containers ?? []) addInto(running, containerRequests(c));
  const initPeak: ResourceAmounts = {};
  const sidecars: ResourceAmounts = {};
  for (const c of pod.spec?.initContainers ?? []) {
    const req = containerRequests(c);
    if (c.restartPolicy === 'Always') {
      addInto(sidecars, req);
      const step = { ...sidecars };
      maxInto(initPeak, step);
    } else {
      const step = { ...sidecars };
      addInto(step, req);
      maxInto(initPeak, step);
    }
  }
  addInto(running, sidecars);
  maxInto(running, initPeak);
  addInto(running, amounts(pod.spec?.overhead as Record<string, unknown> | undefined));
  return running;
}
