// Pod states workload controllers count: active, ready, available (ready for minReadySeconds), terminating.
import type { Pod } from '../../generated/k8s/core/v1.js';
import { isPodReady } from '../../machinery/conditions.js';

/** Not finished and not being deleted (upstream IsPodActive). */
export const isPodActive = (p: Pod): boolean => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && !p.metadata?.deletionTimestamp;

export const isPodTerminating = (p: Pod): boolean => !!p.metadata?.deletionTimestamp;

/** When the pod's Ready condition last became True, in ms, or undefined when it is not ready. */
export function podReadySince(p: Pod): number | undefined {
  const c = p.status?.conditions?.find((x) => x.type === 'Ready');
  if (!c || c.status !== 'True') return undefined;
  return c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : 0;
}

/** Ready for at least minReadySeconds at `nowMs` (upstream IsPodAvailable). */
export function isPodAvailable(p: Pod, minReadySeconds: number, nowMs: number): boolean {
  if (!isPodReady(p)) return false;
  if (!minReadySeconds) return true;
  const since = podReadySince(p) ?? nowMs;
  return since + minReadySeconds * 1000 <= nowMs;
}

/**
 * For a ready pod that is not yet available, how long until it is (ms), so a controller can requeue then;
 * undefined when there is nothing to wait for.
 */
export function msUntilAvailable(p: Pod, minReadySeconds: number, nowMs: number): number | undefined {
  if (!minReadySeconds || !isPodReady(p)) return undefined;
  const left = (podReadySince(p) ?? nowMs) + minReadySeconds * 1000 - nowMs;
  return left > 0 ? left : undefined;
}
