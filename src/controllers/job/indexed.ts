// Indexed Jobs: each pod carries a completion index (annotation and label batch.kubernetes.io/job-completion-index,
// env JOB_COMPLETION_INDEX read from the label, hostname `<job>-<index>`, generateName `<job>-<index>-`). With
// backoffLimitPerIndex a pod also carries how often its index failed before it.
import type { Job } from '../../generated/k8s/batch/v1.js';
import type { Container, Pod, PodTemplateSpec } from '../../generated/k8s/core/v1.js';
import { type Intervals, hasIndex, parseIntervals, withIndexes } from './intervals.js';
import { byRemovalPreference, finishedAtMs, hasTrackingFinalizer, isPodFailed } from './job-pods.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';

export const completionIndexKey = 'batch.kubernetes.io/job-completion-index';
export const indexFailureCountKey = 'batch.kubernetes.io/job-index-failure-count';
export const indexIgnoredFailureCountKey = 'batch.kubernetes.io/job-index-ignored-failure-count';
export const completionIndexEnv = 'JOB_COMPLETION_INDEX';
/** Longest generateName prefix the API keeps before adding its 5 random characters. */
const maxGeneratedNameLength = 58;

export const isIndexed = (job: Job): boolean => job.spec?.completionMode === 'Indexed';
export const hasBackoffLimitPerIndex = (job: Job): boolean => job.spec?.backoffLimitPerIndex !== undefined && job.spec?.backoffLimitPerIndex !== null;

/** The pod's completion index, or -1 when it has none (or a malformed one). */
export function completionIndex(p: Pod): number {
  const v = p.metadata?.annotations?.[completionIndexKey];
  if (v === undefined || !/^\d+$/.test(v)) return -1;
  return Number.parseInt(v, 10);
}

export const validIndex = (job: Job, p: Pod): boolean => {
  const ix = completionIndex(p);
  return ix >= 0 && ix < (job.spec?.completions ?? 0);
};

function nonNegativeInt(v: string | undefined): number {
  if (v === undefined || !/^\d+$/.test(v)) return 0;
  const n = Number.parseInt(v, 10);
  return n > 2147483647 ? 0 : n;
}

export const indexFailureCount = (p: Pod): number => nonNegativeInt(p.metadata?.annotations?.[indexFailureCountKey]);
export const indexAbsoluteFailureCount = (p: Pod): number => indexFailureCount(p) + nonNegativeInt(p.metadata?.annotations?.[indexIgnoredFailureCountKey]);

/** Completed indexes: those in status plus succeeded pods not yet counted. Returns [previous, current]. */
export function succeededIndexes(job: Job, pods: Pod[]): [Intervals, Intervals] {
  const completions = job.spec?.completions ?? 0;
  const prev = parseIntervals(job.status?.completedIndexes, completions);
  const fresh = new Set<number>();
  for (const p of pods) {
    if (p.status?.phase === 'Succeeded' && validIndex(job, p) && hasTrackingFinalizer(p)) fresh.add(completionIndex(p));
  }
  return [prev, withIndexes(prev, [...fresh].sort((a, b) => a - b))];
}

/** Whether this pod's failure fails its index: a FailIndex rule matched, or the index used up backoffLimitPerIndex. */
export function isIndexFailed(job: Job, p: Pod): boolean {
  if (!isPodFailed(p, job)) return false;
  const m = matchPodFailurePolicy(job.spec?.podFailurePolicy, p);
  if (m.action === 'FailIndex') return true;
  return m.countFailed && indexFailureCount(p) >= (job.spec?.backoffLimitPerIndex ?? 0);
}

export function failedIndexes(job: Job, pods: Pod[]): Intervals {
  const completions = job.spec?.completions ?? 0;
  const prev = parseIntervals(job.status?.failedIndexes, completions);
  const fresh = new Set<number>();
  for (const p of pods) {
    if (validIndex(job, p) && hasTrackingFinalizer(p) && isIndexFailed(job, p)) fresh.add(completionIndex(p));
  }
  return withIndexes(prev, [...fresh].sort((a, b) => a - b));
}

/** The first `count` indexes below `completions` that no active pod, success or failed index covers. */
export function firstPendingIndexes(count: number, completions: number, taken: Intervals): number[] {
  const out: number[] = [];
  for (let i = 0; i < completions && out.length < count; i++) if (!hasIndex(taken, i)) out.push(i);
  return out;
}

export function indexesOf(pods: Pod[]): number[] {
  return [...new Set(pods.map(completionIndex).filter((i) => i >= 0))].sort((a, b) => a - b);
}

/** Active pods to remove because they have no index, an index out of range, or share their index (all but the best). */
export function duplicateIndexPods(job: Job, active: Pod[]): { remove: Pod[]; keep: Pod[] } {
  const completions = job.spec?.completions ?? 0;
  const remove: Pod[] = [];
  const keep: Pod[] = [];
  const groups = new Map<number, Pod[]>();
  for (const p of active) {
    const ix = completionIndex(p);
    if (ix < 0 || ix >= completions) remove.push(p);
    else groups.set(ix, [...(groups.get(ix) ?? []), p]);
  }
  for (const ix of [...groups.keys()].sort((a, b) => a - b)) {
    const g = [...groups.get(ix)!].sort(byRemovalPreference);
    remove.push(...g.slice(0, -1));
    keep.push(g[g.length - 1]);
  }
  return { remove, keep };
}

/**
 * With backoffLimitPerIndex: per index that is neither done, failed nor running, the latest failed pod, whose
 * finalizer stays until its replacement carries the failure count forward.
 */
export function podsAwaitingReplacement(job: Job, pods: Pod[], active: Pod[], succeeded: Intervals, failed: Intervals): Map<number, Pod> {
  const activeIx = new Set(indexesOf(active));
  const out = new Map<number, Pod>();
  for (const p of pods) {
    if (!hasTrackingFinalizer(p) || !validIndex(job, p) || !isPodFailed(p, job)) continue;
    const ix = completionIndex(p);
    if (hasIndex(succeeded, ix) || hasIndex(failed, ix) || activeIx.has(ix)) continue;
    const last = out.get(ix);
    if (!last || (indexAbsoluteFailureCount(last) <= indexAbsoluteFailureCount(p) && finishedAtMs(p) >= finishedAtMs(last))) out.set(ix, p);
  }
  return out;
}

/** The failure counts a replacement pod for an index starts with (one more than the pod it replaces). */
export function replacementFailureCounts(job: Job, replaced: Pod | undefined): { failures: number; ignored: number } {
  if (!replaced) return { failures: 0, ignored: 0 };
  let failures = indexFailureCount(replaced);
  let ignored = nonNegativeInt(replaced.metadata?.annotations?.[indexIgnoredFailureCountKey]);
  if (matchPodFailurePolicy(job.spec?.podFailurePolicy, replaced).countFailed) failures++;
  else ignored++;
  return { failures, ignored };
}

function addIndexEnv(c: Container): void {
  if (c.env?.some((e) => e.name === completionIndexEnv)) return;
  c.env = [...(c.env ?? []), { name: completionIndexEnv, valueFrom: { fieldRef: { fieldPath: `metadata.labels['${completionIndexKey}']` } } }];
}

/** Stamps the index on a pod template copy: annotation, label, env in every container, hostname. */
export function applyIndex(template: PodTemplateSpec, jobName: string, index: number): void {
  const meta = (template.metadata ??= {});
  meta.annotations = { ...(meta.annotations ?? {}), [completionIndexKey]: String(index) };
  meta.labels = { ...(meta.labels ?? {}), [completionIndexKey]: String(index) };
  const spec = template.spec!;
  for (const c of [...(spec.initContainers ?? []), ...spec.containers]) addIndexEnv(c);
  spec.hostname = `${jobName}-${index}`;
}

/** `<job>-<index>-`, with the job name cut so the prefix stays within the generated-name limit. */
export function indexedGenerateName(jobName: string, index: number): string {
  const suffix = `-${index}-`;
  const prefix = jobName + suffix;
  return prefix.length > maxGeneratedNameLength ? jobName.slice(0, maxGeneratedNameLength - suffix.length) + suffix : prefix;
}
