// Counting finished pods exactly once, with the tracking finalizer as the token: a finished pod's UID is first
// written to status.uncountedTerminatedPods, then its finalizer is removed, then the UID moves into the
// succeeded/failed counters. Completed Indexed pods are recorded in completedIndexes instead. The terminal
// condition (Complete/Failed) is only set once nothing is uncounted and no pod is still terminating.
import type { Steps } from '../../util/steps.js';
import type { Job, JobCondition } from '../../generated/k8s/batch/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import { formatIntervals, hasIndex, withIndexes } from './intervals.js';
import { completionIndex, hasBackoffLimitPerIndex, isIndexed, validIndex } from './indexed.js';
import { findCondition, newCondition } from './job-conditions.js';
import { hasTrackingFinalizer, isPodFailed } from './job-pods.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';
import type { SyncContext } from './sync-context.js';

/** Upstream keeps at most this many UIDs in uncountedTerminatedPods per sync. */
const maxUncounted = 500;

export interface TrackingDeps {
  now(): string;
  removeFinalizer(pod: Pod): Steps<boolean>;
  /** Writes job.status; returns the stored Job. */
  writeStatus(job: Job): Steps<Job>;
  saveBackoff(): void;
  /** Called once the terminal condition was written. */
  finished(job: Job, cond: JobCondition): void;
}

/** Moves UIDs whose pods no longer carry the finalizer from uncountedTerminatedPods into the counters. */
function countUncounted(job: Job, withFinalizer: Set<string>): boolean {
  const st = (job.status ??= {});
  const u = (st.uncountedTerminatedPods ??= {});
  let changed = false;
  const keepS = (u.succeeded ?? []).filter((uid) => withFinalizer.has(uid));
  if (keepS.length !== (u.succeeded ?? []).length) {
    st.succeeded = (st.succeeded ?? 0) + (u.succeeded ?? []).length - keepS.length;
    u.succeeded = keepS;
    changed = true;
  }
  const keepF = (u.failed ?? []).filter((uid) => withFinalizer.has(uid));
  if (keepF.length !== (u.failed ?? []).length) {
    st.failed = (st.failed ?? 0) + (u.failed ?? []).length - keepF.length;
    u.failed = keepF;
    changed = true;
  }
  return changed;
}

/** Whether the pod's finalizer may go now (its outcome is settled, or the whole Job is). */
function canRemoveFinalizer(ctx: SyncContext, pod: Pod, failed: boolean): boolean {
  if (ctx.job.metadata?.deletionTimestamp || ctx.finishedCondition || pod.status?.phase === 'Succeeded') return true;
  if (!failed) return false;
  if (hasBackoffLimitPerIndex(ctx.job)) {
    const waiting = ctx.awaitingReplacement.get(completionIndex(pod));
    if (waiting && waiting.metadata?.uid === pod.metadata?.uid) return false;
  }
  return true;
}

const isSuccessCriteria = (c: JobCondition | undefined) => c?.type === 'SuccessCriteriaMet' && c.status === 'True';

/** Sets Complete/Failed once nothing is left to count and no pod is terminating; returns whether it did. */
function enactFinished(ctx: SyncContext, now: string): boolean {
  const cond = ctx.finishedCondition;
  if (!cond) return false;
  const u = ctx.job.status?.uncountedTerminatedPods;
  if ((u?.succeeded?.length ?? 0) + (u?.failed?.length ?? 0) > 0) return false;
  if (ctx.terminating > 0) return false;
  const st = ctx.job.status!;
  const list = (st.conditions ??= []);
  const i = list.findIndex((c) => c.type === cond.type);
  const next = newCondition(cond.type, 'True', cond.reason ?? '', cond.message ?? '', now);
  if (i >= 0) list[i] = next;
  else list.push(next);
  if (cond.type === 'Complete') st.completionTime = now;
  return true;
}

export function* trackStatusAndRemoveFinalizers(ctx: SyncContext, needsFlushIn: boolean, deps: TrackingDeps): Steps<void> {
  let needsFlush = needsFlushIn;
  const job = ctx.job;
  const st = (job.status ??= {});
  const uncounted = (st.uncountedTerminatedPods ??= {});
  uncounted.succeeded ??= [];
  uncounted.failed ??= [];
  const indexed = isIndexed(job);
  const pods = indexed ? [...ctx.pods].sort((a, b) => completionIndex(a) - completionIndex(b)) : ctx.pods;
  const withFinalizer = new Set(pods.filter(hasTrackingFinalizer).map((p) => p.metadata?.uid ?? ''));
  if (countUncounted(job, withFinalizer)) needsFlush = true;

  const toRelease: Pod[] = [];
  const newSucceededIndexes: number[] = [];
  let reachedMax = false;
  for (const pod of pods) {
    if (!hasTrackingFinalizer(pod)) continue;
    const uid = pod.metadata?.uid ?? '';
    const failed = isPodFailed(pod, job);
    if (!canRemoveFinalizer(ctx, pod, failed)) continue;
    toRelease.push(pod);
    if (pod.status?.phase === 'Succeeded' && !ctx.uncountedFailed.has(uid)) {
      if (indexed) {
        const ix = completionIndex(pod);
        if (validIndex(job, pod) && !hasIndex(ctx.prevSucceededIndexes, ix)) {
          newSucceededIndexes.push(ix);
          needsFlush = true;
        }
      } else if (!ctx.uncountedSucceeded.has(uid)) {
        uncounted.succeeded.push(uid);
        needsFlush = true;
      }
    } else if (failed || (ctx.finishedCondition && !isSuccessCriteria(ctx.finishedCondition))) {
      // Once the Job is finishing, every pod not yet succeeded counts as failed.
      if (!ctx.uncountedFailed.has(uid) && (!indexed || validIndex(job, pod))) {
        if (matchPodFailurePolicy(job.spec?.podFailurePolicy, pod).countFailed) {
          uncounted.failed.push(uid);
          needsFlush = true;
        }
      }
    }
    if (newSucceededIndexes.length + uncounted.succeeded.length + uncounted.failed.length >= maxUncounted) {
      reachedMax = true;
      break;
    }
  }
  if (indexed) {
    ctx.succeededIndexes = withIndexes(ctx.succeededIndexes, newSucceededIndexes);
    const text = formatIntervals(ctx.succeededIndexes);
    if (text !== (st.completedIndexes ?? '')) needsFlush = true;
    st.completedIndexes = text;
    st.succeeded = ctx.succeededIndexes.reduce((n, iv) => n + iv.last - iv.first + 1, 0);
    const failedText = ctx.failedIndexes ? formatIntervals(ctx.failedIndexes) : undefined;
    if (failedText !== st.failedIndexes) {
      st.failedIndexes = failedText;
      needsFlush = true;
    }
  }
  const now = deps.now();
  if (ctx.finishedCondition?.type === 'FailureTarget') {
    // The interim condition is stored before any finalizer goes; Failed follows once all pods are done.
    (st.conditions ??= []).push(ctx.finishedCondition);
    needsFlush = true;
    ctx.finishedCondition = newCondition('Failed', 'True', ctx.finishedCondition.reason ?? '', ctx.finishedCondition.message ?? '', now);
  }
  if (isSuccessCriteria(ctx.finishedCondition)) {
    const c = ctx.finishedCondition!;
    if (!findCondition(job, 'SuccessCriteriaMet')) {
      (st.conditions ??= []).push(c);
      needsFlush = true;
    }
    ctx.finishedCondition = newCondition('Complete', 'True', c.reason ?? '', c.message ?? '', now);
  }

  // 1. Record the new UIDs. 2. Remove finalizers. 3. Count what lost its finalizer.
  let current = job;
  if (needsFlush) {
    current = yield* deps.writeStatus(job);
    deps.saveBackoff();
    needsFlush = false;
  }
  ctx.job = current;
  for (const p of toRelease) if (yield* deps.removeFinalizer(p)) withFinalizer.delete(p.metadata?.uid ?? '');
  if (countUncounted(ctx.job, withFinalizer)) needsFlush = true;
  const finished = !reachedMax && enactFinished(ctx, now);
  if (finished) needsFlush = true;
  if (needsFlush) {
    ctx.job = yield* deps.writeStatus(ctx.job);
    if (finished && ctx.finishedCondition) deps.finished(ctx.job, ctx.finishedCondition);
  }
}
