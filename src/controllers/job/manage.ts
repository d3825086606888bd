// manageJob: keeps the number of active pods where the spec wants it. A suspended Job loses all its active pods;
// otherwise surplus pods (and, for Indexed Jobs, duplicate or out-of-range indexes) are deleted, and missing pods
// are created once the failure backoff has passed. Pods being deleted are not replaced while they terminate when
// podReplacementPolicy is Failed.
import type { Steps } from '../../util/steps.js';
import type { Job } from '../../generated/k8s/batch/v1.js';
import type { Pod, PodTemplateSpec } from '../../generated/k8s/core/v1.js';
import { remainingBackoffMs, remainingIndexBackoffMs } from './backoff.js';
import {
  applyIndex, duplicateIndexPods, firstPendingIndexes, hasBackoffLimitPerIndex, indexedGenerateName, indexesOf, indexFailureCountKey,
  indexIgnoredFailureCountKey, isIndexed, replacementFailureCounts,
} from './indexed.js';
import { mergeIntervals, withIndexes } from './intervals.js';
import { byRemovalPreference, isTerminating, onlyReplaceFailedPods, trackingFinalizer } from './job-pods.js';
import type { JobPodOps } from './pod-ops.js';
import { requeueAfter, type SyncContext } from './sync-context.js';

/** Upstream's cap on pod creations and deletions per sync. */
const maxPerSync = 500;

export const isSuspended = (job: Job): boolean => job.spec?.suspend === true;

/** Active pods to delete: Indexed duplicates and strays first, then the cheapest to lose until `atLeast` are chosen. */
export function activePodsForRemoval(job: Job, pods: Pod[], atLeast: number): Pod[] {
  let rm: Pod[] = [];
  let left = pods;
  if (isIndexed(job)) ({ remove: rm, keep: left } = duplicateIndexPods(job, pods));
  if (rm.length < atLeast) rm = [...rm, ...[...left].sort(byRemovalPreference).slice(0, atLeast - rm.length)];
  return rm;
}

function wantedActive(job: Job, ctx: SyncContext, active: number): number {
  const parallelism = job.spec?.parallelism ?? 1;
  const completions = job.spec?.completions;
  if (completions === undefined || completions === null) return ctx.succeeded > 0 ? active : parallelism;
  return Math.max(0, Math.min(completions - ctx.succeeded, parallelism));
}

function* removePods(ops: JobPodOps, ctx: SyncContext, pods: Pod[], active: number): Steps<{ active: number; error?: unknown }> {
  const r = yield* ops.deletePods(ctx.job, pods.slice(0, maxPerSync), true);
  ctx.terminating += r.deleted;
  ctx.ready -= r.deletedReady;
  return { active: active - r.deleted, error: r.error };
}

/** The template every new pod starts from: a copy with the tracking finalizer (and the index env for Indexed Jobs). */
function baseTemplate(job: Job): PodTemplateSpec {
  const t = structuredClone(job.spec?.template ?? {}) as PodTemplateSpec;
  t.spec ??= { containers: [] };
  const meta = (t.metadata ??= {});
  if (!meta.finalizers?.includes(trackingFinalizer)) meta.finalizers = [...(meta.finalizers ?? []), trackingFinalizer];
  return t;
}

/** Runs manageJob; returns the number of active pods afterwards and the first API error, if any. */
export function* manageJob(ops: JobPodOps, ctx: SyncContext, nowMs: number): Steps<{ active: number; error?: unknown }> {
  const job = ctx.job;
  let active = ctx.active.length;
  if (isSuspended(job)) return yield* removePods(ops, ctx, activePodsForRemoval(job, ctx.active, active), active);

  const want = wantedActive(job, ctx, active);
  const surplus = activePodsForRemoval(job, ctx.active, Math.max(0, active - want));
  if (surplus.length) return yield* removePods(ops, ctx, surplus, active);

  const terminating = onlyReplaceFailedPods(job) ? ctx.terminating : 0;
  let diff = Math.min(want - terminating - active, maxPerSync);
  if (diff <= 0) return { active };
  if (!hasBackoffLimitPerIndex(job)) {
    const wait = remainingBackoffMs(ctx.newBackoff.failuresAfterLastSuccess, ctx.newBackoff.lastFailureMs, nowMs);
    if (wait > 0) {
      requeueAfter(ctx, wait);
      return { active };
    }
  }
  let indexes: number[] = [];
  if (isIndexed(job)) {
    const completions = job.spec?.completions ?? 0;
    // Not pending: done, running, failed for good, and (when only failed pods are replaced) still terminating.
    let taken = withIndexes(ctx.succeededIndexes, indexesOf(ctx.active));
    if (onlyReplaceFailedPods(job)) taken = withIndexes(taken, indexesOf(ctx.pods.filter(isTerminating)));
    if (ctx.failedIndexes) taken = mergeIntervals(taken, ctx.failedIndexes);
    indexes = firstPendingIndexes(diff, completions, taken);
    if (hasBackoffLimitPerIndex(job)) {
      const waits = indexes.map((ix) => remainingIndexBackoffMs(ctx.awaitingReplacement.get(ix), nowMs));
      const ready = indexes.filter((_, i) => waits[i] === 0);
      if (!ready.length && indexes.length) {
        requeueAfter(ctx, Math.min(...waits));
        return { active };
      }
      indexes = ready;
    }
    diff = indexes.length;
  }
  const base = baseTemplate(job);
  let error: unknown;
  for (let i = 0; i < diff; i++) {
    let template = base;
    let generateName: string | undefined;
    const ix = indexes[i];
    if (ix !== undefined) {
      template = structuredClone(base);
      applyIndex(template, job.metadata?.name ?? '', ix);
      generateName = indexedGenerateName(job.metadata?.name ?? '', ix);
      if (hasBackoffLimitPerIndex(job)) {
        const counts = replacementFailureCounts(job, ctx.awaitingReplacement.get(ix));
        const ann = (template.metadata!.annotations ??= {});
        ann[indexFailureCountKey] = String(counts.failures);
        if (counts.ignored > 0) ann[indexIgnoredFailureCountKey] = String(counts.ignored);
      }
    }
    const r = yield* ops.create(job, template, generateName);
    if (r.error) {
      error = r.error;
      break; // slow start: stop at the first refusal, the next sync retries
    }
    active++;
  }
  return { active, error };
}
