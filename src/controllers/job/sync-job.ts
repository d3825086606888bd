// One sync of one Job (upstream syncJob): count pods, decide whether the Job has failed or succeeded, otherwise
// manage its pods and its Suspended condition, then track status and finalizers.
import type { Steps } from '../../util/steps.js';
import type { Job } from '../../generated/k8s/batch/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import { type BackoffRecord, nextBackoffRecord } from './backoff.js';
import { totalOf } from './intervals.js';
import { failedIndexes, hasBackoffLimitPerIndex, isIndexed, podsAwaitingReplacement, succeededIndexes, validIndex } from './indexed.js';
import { ensureCondition, findCondition, newCondition, reasons, successPolicyReason } from './job-conditions.js';
import { countReady, hasTrackingFinalizer, isActive, isPodFailed, isTerminating } from './job-pods.js';
import { isSuspended, manageJob } from './manage.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';
import type { JobPodOps } from './pod-ops.js';
import { matchSuccessPolicy } from './success-policy.js';
import { requeueAfter, type SyncContext } from './sync-context.js';
import { trackStatusAndRemoveFinalizers, type TrackingDeps } from './tracking.js';

export interface SyncDeps extends Omit<TrackingDeps, 'saveBackoff'> {
  nowMs(): number;
  ops: JobPodOps;
  event(job: Job, type: 'Normal' | 'Warning', reason: string, message: string): void;
  backoff(key: string): BackoffRecord | undefined;
  setBackoff(key: string, rec: BackoffRecord): void;
}

/** Finished pods with a finalizer, not yet recorded as uncounted (and, Indexed, with a valid index). */
function newFinished(ctx: SyncContext, uncounted: Set<string>, test: (p: Pod) => boolean): Pod[] {
  return ctx.pods.filter((p) => hasTrackingFinalizer(p) && !uncounted.has(p.metadata?.uid ?? '')
    && (!isIndexed(ctx.job) || validIndex(ctx.job, p)) && test(p));
}

/** restartPolicy OnFailure: container restarts of running pods count against backoffLimit. */
function pastBackoffLimitOnFailure(job: Job, pods: Pod[]): boolean {
  if (job.spec?.template?.spec?.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const p of pods) {
    if (p.status?.phase !== 'Running' && p.status?.phase !== 'Pending') continue;
    for (const c of [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])]) restarts += c.restartCount ?? 0;
  }
  const limit = job.spec?.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

function failJobMatch(job: Job, pods: Pod[]): { reason: string; message: string } | undefined {
  if (!job.spec?.podFailurePolicy) return undefined;
  for (const p of pods) {
    if (!isPodFailed(p, job)) continue;
    const m = matchPodFailurePolicy(job.spec.podFailurePolicy, p);
    if (m.failJobMessage) return { reason: m.failJobReason ?? 'PodFailurePolicy', message: m.failJobMessage };
  }
  return undefined;
}

export function* syncJob(key: string, shared: Job, pods: Pod[], deps: SyncDeps): Steps<number | undefined> {
  const job = structuredClone(shared);
  const now = deps.now();
  const nowMs = deps.nowMs();
  const st = (job.status ??= {});
  st.uncountedTerminatedPods ??= {};
  const active = pods.filter(isActive);
  const ctx: SyncContext = {
    key, job, pods, active, ready: countReady(active), terminating: pods.filter(isTerminating).length, succeeded: 0, failed: 0,
    uncountedSucceeded: new Set((st.uncountedTerminatedPods.succeeded ?? []) as string[]),
    uncountedFailed: new Set((st.uncountedTerminatedPods.failed ?? []) as string[]),
    prevSucceededIndexes: [], succeededIndexes: [], awaitingReplacement: new Map(), newBackoff: { failuresAfterLastSuccess: 0 },
  };
  const newSucceeded = newFinished(ctx, ctx.uncountedSucceeded, (p) => p.status?.phase === 'Succeeded');
  const newFailed = newFinished(ctx, ctx.uncountedFailed, (p) => isPodFailed(p, job));
  const counted = newFailed.filter((p) => matchPodFailurePolicy(job.spec?.podFailurePolicy, p).countFailed).length;
  ctx.succeeded = (st.succeeded ?? 0) + newSucceeded.length + ctx.uncountedSucceeded.size;
  ctx.failed = (st.failed ?? 0) + counted + ctx.uncountedFailed.size;
  if (!st.startTime && !isSuspended(job)) st.startTime = now;
  ctx.newBackoff = nextBackoffRecord(deps.backoff(key), newSucceeded, newFailed);

  const failure = (r: readonly [string, string]) => newCondition('FailureTarget', 'True', r[0], r[1], now);
  const scm = findCondition(job, 'SuccessCriteriaMet');
  if (scm?.status === 'True') ctx.finishedCondition = scm;
  else {
    const target = findCondition(job, 'FailureTarget');
    if (target?.status === 'True') ctx.finishedCondition = newCondition('Failed', 'True', target.reason ?? '', target.message ?? '', now);
    else {
      const fj = failJobMatch(job, pods);
      if (fj) ctx.finishedCondition = newCondition('FailureTarget', 'True', fj.reason, fj.message, now);
    }
  }
  if (!ctx.finishedCondition) {
    const ads = job.spec?.activeDeadlineSeconds;
    const startMs = st.startTime ? Date.parse(st.startTime) : undefined;
    if (ctx.failed > (job.spec?.backoffLimit ?? 6) || pastBackoffLimitOnFailure(job, pods)) ctx.finishedCondition = failure(reasons.backoffLimit);
    else if (ads !== undefined && ads !== null && startMs !== undefined && !isSuspended(job)) {
      const left = startMs + ads * 1000 - nowMs;
      if (left <= 0) ctx.finishedCondition = failure(reasons.deadline);
      else requeueAfter(ctx, left);
    }
  }
  if (isIndexed(job)) {
    const completions = job.spec?.completions ?? 0;
    [ctx.prevSucceededIndexes, ctx.succeededIndexes] = succeededIndexes(job, pods);
    ctx.succeeded = totalOf(ctx.succeededIndexes);
    if (hasBackoffLimitPerIndex(job)) {
      ctx.failedIndexes = failedIndexes(job, pods);
      const nFailed = totalOf(ctx.failedIndexes);
      if (!ctx.finishedCondition) {
        const maxFailed = job.spec?.maxFailedIndexes;
        if (maxFailed !== undefined && maxFailed !== null && nFailed > maxFailed) ctx.finishedCondition = failure(reasons.maxFailedIndexes);
        else if (nFailed > 0 && nFailed + ctx.succeeded >= completions) ctx.finishedCondition = failure(reasons.failedIndexes);
      }
      ctx.awaitingReplacement = podsAwaitingReplacement(job, pods, active, ctx.succeededIndexes, ctx.failedIndexes);
    }
    if (!ctx.finishedCondition) {
      const msg = matchSuccessPolicy(job.spec?.successPolicy, completions, ctx.succeededIndexes);
      if (msg) ctx.finishedCondition = newCondition('SuccessCriteriaMet', 'True', successPolicyReason, msg, now);
    }
  }

  let activeCount = active.length;
  let suspendChanged = false;
  let manageError: unknown;
  if (ctx.finishedCondition) {
    // Finishing: delete what still runs, keeping the finalizers so those pods are counted.
    const r = yield* deps.ops.deletePods(job, active, false);
    if (r.deleted !== active.length) ctx.finishedCondition = undefined;
    activeCount -= r.deleted;
    ctx.terminating += r.deleted;
    ctx.ready -= r.deletedReady;
    manageError = r.error;
  } else {
    let managed = false;
    if (!job.metadata?.deletionTimestamp) {
      const r = yield* manageJob(deps.ops, ctx, nowMs);
      activeCount = r.active;
      manageError = r.error;
      managed = true;
    }
    const completions = job.spec?.completions;
    const complete = completions === undefined || completions === null ? ctx.succeeded > 0 && activeCount === 0 : ctx.succeeded >= completions && activeCount === 0;
    if (complete) ctx.finishedCondition = newCondition('SuccessCriteriaMet', 'True', reasons.completions[0], reasons.completions[1], now);
    else if (managed && isSuspended(job)) {
      if (ensureCondition(job, 'Suspended', 'True', 'JobSuspended', 'Job suspended', now)) {
        suspendChanged = true;
        deps.event(job, 'Normal', 'Suspended', 'Job suspended');
      }
    } else if (managed && ensureCondition(job, 'Suspended', 'False', 'JobResumed', 'Job resumed', now)) {
      suspendChanged = true;
      deps.event(job, 'Normal', 'Resumed', 'Job resumed');
      // activeDeadlineSeconds counts continuous activity: a resumed Job starts its clock again.
      st.startTime = now;
    }
  }

  const needsUpdate = suspendChanged || activeCount !== (st.active ?? 0) || ctx.ready !== st.ready || ctx.terminating !== st.terminating;
  st.active = activeCount;
  st.ready = ctx.ready;
  st.terminating = ctx.terminating;
  yield* trackStatusAndRemoveFinalizers(ctx, needsUpdate, { ...deps, saveBackoff: () => deps.setBackoff(key, ctx.newBackoff) });
  if (manageError) throw manageError;
  return ctx.requeueMs;
}

