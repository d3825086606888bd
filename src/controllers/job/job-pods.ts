// How the Job controller reads its pods: active, terminating, failed (as the replacement policy sees it), ready,
// when they finished, and the order in which surplus active pods are removed.
import type { Job } from '../../generated/k8s/batch/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import { isPodReady } from '../../machinery/conditions.js';

export const trackingFinalizer = 'batch.kubernetes.io/job-tracking';

export const hasTrackingFinalizer = (p: Pod): boolean => !!p.metadata?.finalizers?.includes(trackingFinalizer);

const terminal = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/** Not finished and not being deleted. */
export const isActive = (p: Pod): boolean => !terminal(p) && !p.metadata?.deletionTimestamp;

/** Being deleted but not yet finished. */
export const isTerminating = (p: Pod): boolean => !terminal(p) && !!p.metadata?.deletionTimestamp;

/** With podReplacementPolicy Failed (or any podFailurePolicy) only pods in phase Failed count as failed. */
export function onlyReplaceFailedPods(job: Job): boolean {
  return job.spec?.podReplacementPolicy === 'Failed' || !!job.spec?.podFailurePolicy;
}

/** Failed, or (unless only failed pods are replaced) deleted before it succeeded. */
export function isPodFailed(p: Pod, job: Job): boolean {
  if (p.status?.phase === 'Failed') return true;
  if (onlyReplaceFailedPods(job)) return false;
  return !!p.metadata?.deletionTimestamp && p.status?.phase !== 'Succeeded';
}

export const countReady = (pods: Pod[]): number => pods.filter((p) => isPodReady(p)).length;

const ms = (t: string | undefined) => (t ? Date.parse(t) : Number.NaN);

/**
 * When a pod finished: the latest container finish time when all containers finished, else when Ready turned
 * False, else its deletion time less the grace period, else its creation time.
 */
export function finishedAtMs(p: Pod): number {
  const statuses = p.status?.containerStatuses ?? [];
  if (statuses.length && statuses.every((c) => c.state?.terminated?.finishedAt)) {
    return Math.max(...statuses.map((c) => ms(c.state?.terminated?.finishedAt)));
  }
  const ready = p.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready && ready.status === 'False' && ready.lastTransitionTime) return ms(ready.lastTransitionTime);
  if (p.metadata?.deletionTimestamp) return ms(p.metadata.deletionTimestamp) - (p.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
  return ms(p.metadata?.creationTimestamp);
}

const phaseRank: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
const restarts = (p: Pod) => (p.status?.containerStatuses ?? []).reduce((n, c) => n + (c.restartCount ?? 0), 0);

/** Sorts active pods so the cheapest to lose come first: unscheduled, pending, not ready, ready briefly, restarted, newest. */
export function byRemovalPreference(a: Pod, b: Pod): number {
  const sa = a.spec?.nodeName ? 1 : 0;
  const sb = b.spec?.nodeName ? 1 : 0;
  if (sa !== sb) return sa - sb;
  const pa = phaseRank[a.status?.phase ?? 'Pending'] ?? 0;
  const pb = phaseRank[b.status?.phase ?? 'Pending'] ?? 0;
  if (pa !== pb) return pa - pb;
  const ra = isPodReady(a) ? 1 : 0;
  const rb = isPodReady(b) ? 1 : 0;
  if (ra !== rb) return ra - rb;
  if (ra && rb) {
    const ta = ms(a.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime);
    const tb = ms(b.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime);
    if (ta !== tb && !Number.isNaN(ta) && !Number.isNaN(tb)) return tb - ta;
  }
  if (restarts(a) !== restarts(b)) return restarts(b) - restarts(a);
  return ms(b.metadata?.creationTimestamp) - ms(a.metadata?.creationTimestamp);
}
