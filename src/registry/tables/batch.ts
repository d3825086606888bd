// batch/v1 printers: jobs and cronjobs.
import type { CronJob, Job, JobCondition } from '../../generated/k8s/batch/v1.js';
import { humanDuration } from '../../util/duration.js';
import {
  CRONJOB_ACTIVE,
  CRONJOB_LAST_SCHEDULE,
  CRONJOB_SCHEDULE,
  CRONJOB_SUSPEND,
  CRONJOB_TIMEZONE,
  JOB_SELECTOR,
  JOB_SUCCEEDED,
} from './descriptions.js';
import {
  ageCol,
  ageOf,
  col,
  templateContainers,
  containerCols,
  formatLabelSelector,
  int,
  isDeleting,
  list,
  nameCol,
  nameOf,
  optInt,
  parseTime,
  printBoolPtr,
  rec,
  since,
  str,
  type TablePrinter,
} from './helpers.js';

/** The first condition of this type decides: true only when its status is True. */
function hasCondition(conditions: JobCondition[], type: string): boolean {
  for (const c of conditions) {
    if (rec(c).type === type) return rec(c).status === 'True';
  }
  return false;
}

function jobStatus(job: Job, deleting: boolean): string {
  const conditions = list<JobCondition>(rec(job.status).conditions);
  if (hasCondition(conditions, 'Complete')) return 'Complete';
  if (hasCondition(conditions, 'Failed')) return 'Failed';
  if (deleting) return 'Terminating';
  if (hasCondition(conditions, 'Suspended')) return 'Suspended';
  if (hasCondition(conditions, 'FailureTarget')) return 'FailureTarget';
  if (hasCondition(conditions, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

function jobCompletions(spec: Record<string, unknown>, succeeded: number): string {
  const completions = optInt(spec.completions);
  if (completions !== undefined) return `${succeeded}/${completions}`;
  const parallelism = optInt(spec.parallelism) ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(status: Record<string, unknown>, now: Date): string {
  const start = parseTime(status.startTime);
  if (start === undefined) return '';
  const completion = parseTime(status.completionTime);
  if (completion === undefined) return humanDuration(now.getTime() - start);
  return humanDuration(completion - start);
}

export const jobPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Status', 'string', 'Status of the job.'),
    col('Completions', 'string', JOB_SUCCEEDED),
    col('Duration', 'string', 'Time required to complete the job.'),
    ageCol(),
    ...containerCols(),
    col('Selector', 'string', JOB_SELECTOR, 1),
  ],
  cells(obj, now) {
    const job = obj;
    const spec = rec(job.spec);
    const status = rec(job.status);
    const [names, images] = templateContainers(spec);
    return [
      nameOf(obj),
      jobStatus(job, isDeleting(obj)),
      jobCompletions(spec, int(status.succeeded)),
      jobDuration(status, now),
      ageOf(obj, now),
      names,
      images,
      formatLabelSelector(spec.selector),
    ];
  },
};

export const cronJobPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Schedule', 'string', CRONJOB_SCHEDULE),
    col('Timezone', 'string', CRONJOB_TIMEZONE),
    col('Suspend', 'boolean', CRONJOB_SUSPEND),
    col('Active', 'integer', CRONJOB_ACTIVE),
    col('Last Schedule', 'string', CRONJOB_LAST_SCHEDULE),
    ageCol(),
    ...containerCols(),
    col('Selector', 'string', JOB_SELECTOR, 1),
  ],
  cells(obj, now) {
    const cj = obj;
    const spec = rec(cj.spec);
    const status = rec(cj.status);
    const jobSpec = rec(rec(spec.jobTemplate).spec);
    const [names, images] = templateContainers(jobSpec);
    const last = status.lastScheduleTime;
    const lastSchedule = last === undefined || last === null ? '<none>' : since(last, now);
    const timeZone = spec.timeZone === undefined || spec.timeZone === null ? '<none>' : str(spec.timeZone);
    return [
      nameOf(obj),
      str(spec.schedule),
      timeZone,
      printBoolPtr(spec.suspend),
      list(status.active).length,
      lastSchedule,
      ageOf(obj, now),
      names,
      images,
      formatLabelSelector(jobSpec.selector),
    ];
  },
};
