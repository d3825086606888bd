// Job conditions as the controller writes them: lastProbeTime and lastTransitionTime both set when a condition
// changes; a False condition is never added where none existed. Reasons and messages are upstream's.
import type { Job, JobCondition } from '../../generated/k8s/batch/v1.js';

export const reasons = {
  backoffLimit: ['BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
  deadline: ['DeadlineExceeded', 'Job was active longer than specified deadline'],
  maxFailedIndexes: ['MaxFailedIndexesExceeded', 'Job has exceeded the specified maximal number of failed indexes'],
  failedIndexes: ['FailedIndexes', 'Job has failed indexes'],
  completions: ['CompletionsReached', 'Reached expected number of succeeded pods'],
} as const;

export const successPolicyReason = 'SuccessPolicy';

export function newCondition(type: string, status: 'True' | 'False', reason: string, message: string, now: string): JobCondition {
  return { type, status, lastProbeTime: now, lastTransitionTime: now, reason, message };
}

export const findCondition = (job: Job, type: string): JobCondition | undefined => job.status?.conditions?.find((c) => c.type === type);

const isTrue = (job: Job, type: string) => findCondition(job, type)?.status === 'True';

/** Complete or Failed: the controller does nothing more with it. */
export const isJobFinished = (job: Job): boolean => isTrue(job, 'Complete') || isTrue(job, 'Failed');

/** Sets the condition when its status, reason or message differ; returns whether the list changed. */
export function ensureCondition(job: Job, type: string, status: 'True' | 'False', reason: string, message: string, now: string): boolean {
  const status_ = (job.status ??= {});
  const list = (status_.conditions ??= []);
  const i = list.findIndex((c) => c.type === type);
  if (i >= 0) {
    const c = list[i];
    if (c.status === status && c.reason === reason && c.message === message) return false;
    list[i] = newCondition(type, status, reason, message, now);
    return true;
  }
  if (status === 'False') return false;
  list.push(newCondition(type, status, reason, message, now));
  return true;
}
