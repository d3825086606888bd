// The JobSet failure policy, run when a Job of the current attempt has failed: the first rule (in order) that some
// failed Job matches, by its Failed condition's reason, message patterns and replicated job, decides the action
// (the earliest failure among the Jobs it matches names the Job); no matching rule means RestartJobSet; no policy
// at all fails the JobSet. Restarts count towards `maxRestarts` unless the action says to ignore it.
import type { Job } from '../../generated/k8s/batch/v1.js';
import { failureCondition, jobRestartsOf } from './child-jobs.js';
import { patternMatches } from './patterns.js';
import type { EffectiveSpec } from './defaults.js';
import { setCondition, type StatusUpdate } from './conditions.js';
import { cond, labels as L, reasons, restartingJobSetFailed, restartingReasonDefault, type FailurePolicyAction, type FailurePolicyRule, type JobSet } from './types.js';

const failedAt = (j: Job) => Date.parse(failureCondition(j)?.lastTransitionTime ?? '') || Number.POSITIVE_INFINITY;
const rjobOf = (j: Job) => {
  const l = j.metadata?.labels;
  return l && Object.hasOwn(l, L.replicatedJobName) ? l[L.replicatedJobName] : '';
};

export function ruleApplies(rule: FailurePolicyRule, job: Job): boolean {
  const c = failureCondition(job);
  if (!c) return false;
  if (rule.onJobFailureReasons?.length && !rule.onJobFailureReasons.includes(c.reason ?? '')) return false;
  if (rule.onJobFailureMessagePatterns?.length) {
    const message = c.message ?? '';
    if (!rule.onJobFailureMessagePatterns.some((p) => patternMatches(p, message))) return false;
  }
  const rjob = rjobOf(job);
  if (!rjob) return false;
  return !rule.targetReplicatedJobs?.length || rule.targetReplicatedJobs.includes(rjob);
}

export function firstFailedJob(failed: Job[]): Job | undefined {
  let first: Job | undefined;
  for (const j of failed) if (failureCondition(j) && (!first || failedAt(j) < failedAt(first))) first = j;
  return first;
}

/** The first rule some failed Job matches, with the earliest-failed Job it matches. */
export function matchRule(rules: FailurePolicyRule[] | undefined, failed: Job[]): { rule: FailurePolicyRule; job: Job } | undefined {
  for (const rule of rules ?? []) {
    const matching = failed.filter((j) => ruleApplies(rule, j));
    const job = firstFailedJob(matching);
    if (job) return { rule, job };
  }
  return undefined;
}

const withFirst = (msg: string, job: Job | undefined) => `${msg} (first failed job: ${job?.metadata?.name ?? ''})`;

export function setFailed(js: JobSet, u: StatusUpdate, reason: string, message: string, now: Date): void {
  setCondition(js, u, cond.failed, 'True', reason, message, 'Warning', now);
  setCondition(js, u, cond.restarting, 'False', restartingJobSetFailed[0], restartingJobSetFailed[1], 'Normal', now);
  js.status!.terminalState = cond.failed;
  u.changed = true;
}

function totalCountTowardsMax(js: JobSet): number {
  let n = js.status?.restartsCountTowardsMax ?? 0;
  for (const s of js.status?.replicatedJobsStatus ?? []) for (const r of s.jobRestartsCountTowardsMax ?? []) n += r;
  return n;
}

function restartAll(js: JobSet, u: StatusUpdate, job: Job | undefined, rule: FailurePolicyRule | undefined, countTowardsMax: boolean, now: Date): void {
  const [reason, base] = countTowardsMax ? reasons.restartJobSet : reasons.restartJobSetIgnoreMax;
  const message = withFirst(base, job);
  const status = (js.status ??= {});
  status.restarts = (status.restarts ?? 0) + 1;
  if (countTowardsMax) status.restartsCountTowardsMax = (status.restartsCountTowardsMax ?? 0) + 1;
  u.changed = true;
  setCondition(js, u, cond.restarting, 'True', rule ? `FailurePolicy_${rule.name}` : restartingReasonDefault, message, 'Warning', now);
  u.events.push({ type: 'Warning', reason, message });
}

function restartOne(js: JobSet, spec: EffectiveSpec, u: StatusUpdate, job: Job, countTowardsMax: boolean): void {
  const [reason, base] = countTowardsMax ? reasons.restartJob : reasons.restartJobIgnoreMax;
  const rjob = rjobOf(job);
  const index = Number(job.metadata?.labels?.[L.jobIndex]);
  const s = js.status?.replicatedJobsStatus?.find((x) => x.name === rjob);
  const restarts = jobRestartsOf(js, spec, rjob);
  if (!s || !Number.isInteger(index) || index < 0 || index >= restarts.length) return;
  restarts[index]++;
  s.jobRestarts = restarts;
  if (countTowardsMax) {
    const toward = jobRestartsOf(js, spec, rjob, 'jobRestartsCountTowardsMax');
    toward[index]++;
    s.jobRestartsCountTowardsMax = toward;
  }
  u.changed = true;
  u.events.push({ type: 'Warning', reason, message: withFirst(base, job) });
}

/** Applies the failure policy to the failed Jobs of the current attempt (`js` is the caller's working copy). */
export function executeFailurePolicy(js: JobSet, spec: EffectiveSpec, failed: Job[], u: StatusUpdate, now: Date): void {
  const policy = spec.failurePolicy;
  if (!policy) {
    setFailed(js, u, reasons.failedJobs[0], withFirst(reasons.failedJobs[1], firstFailedJob(failed)), now);
    return;
  }
  const match = matchRule(policy.rules, failed);
  const action: FailurePolicyAction = match?.rule.action ?? 'RestartJobSet';
  const job = match?.job ?? firstFailedJob(failed);
  const maxRestarts = policy.maxRestarts ?? 0;
  const atMax = () => totalCountTowardsMax(js) >= maxRestarts;
  switch (action) {
    case 'FailJobSet':
      setFailed(js, u, reasons.failJobSet[0], withFirst(reasons.failJobSet[1], job), now);
      return;
    case 'RestartJobSet':
      if (atMax()) setFailed(js, u, reasons.reachedMaxRestarts[0], withFirst(reasons.reachedMaxRestarts[1], job), now);
      else restartAll(js, u, job, match?.rule, true, now);
      return;
    case 'RestartJobSetAndIgnoreMaxRestarts':
      restartAll(js, u, job, match?.rule, false, now);
      return;
    case 'RestartJob':
      if (atMax()) setFailed(js, u, reasons.reachedMaxRestarts[0], withFirst(reasons.reachedMaxRestarts[1], job), now);
      else if (job) restartOne(js, spec, u, job, true);
      return;
    case 'RestartJobAndIgnoreMaxRestarts':
      if (job) restartOne(js, spec, u, job, false);
      return;
  }
}
