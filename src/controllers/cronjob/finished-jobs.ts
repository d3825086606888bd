// Reading a Job's outcome (the Complete/Failed conditions the Job controller sets) and choosing which finished
// Jobs a CronJob's history limits let go.
import type { Job, JobCondition } from '../../generated/k8s/batch/v1.js';

/** The Complete or Failed condition with status True, if the Job has finished. */
export function finishedCondition(job: Job): JobCondition | undefined {
  return job.status?.conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

export const isJobFinished = (job: Job): boolean => finishedCondition(job) !== undefined;
export const isJobSucceeded = (job: Job): boolean => finishedCondition(job)?.type === 'Complete';

const startMs = (j: Job): number | undefined => (j.status?.startTime ? Date.parse(j.status.startTime) : undefined);

/** Oldest first by status.startTime (Jobs that never started last), name breaking ties. */
export function byStartTime(a: Job, b: Job): number {
  const sa = startMs(a);
  const sb = startMs(b);
  if (sa === undefined && sb !== undefined) return 1;
  if (sa !== undefined && sb === undefined) return -1;
  if (sa === sb) return (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : (a.metadata?.name ?? '') > (b.metadata?.name ?? '') ? 1 : 0;
  return (sa ?? 0) - (sb ?? 0);
}

/**
 * The finished Jobs beyond the history limits, oldest first: successful ones beyond `successfulLimit`, failed ones
 * beyond `failedLimit` (an undefined limit keeps everything of that kind).
 */
export function jobsBeyondHistory(jobs: Job[], successfulLimit: number | undefined, failedLimit: number | undefined): Job[] {
  const succeeded: Job[] = [];
  const failed: Job[] = [];
  for (const j of jobs) {
    const c = finishedCondition(j);
    if (c?.type === 'Complete') succeeded.push(j);
    else if (c?.type === 'Failed') failed.push(j);
  }
  const excess = (list: Job[], limit: number | undefined) => (limit === undefined ? [] : list.sort(byStartTime).slice(0, Math.max(0, list.length - limit)));
  return [...excess(succeeded, successfulLimit), ...excess(failed, failedLimit)];
}
