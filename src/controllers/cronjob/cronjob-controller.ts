// The CronJob controller (upstream's ControllerV2): creates a Job for each due start time, honours the
// concurrency policy, the starting deadline and suspension, trims finished Jobs to the history limits, keeps
// status.active / lastScheduleTime / lastSuccessfulTime, and sleeps until the next start time on the clock.
import type { CronJob, CronJobStatus, Job } from '../../generated/k8s/batch/v1.js';
import { EventRecorder } from '../../client/event-recorder.js';
import { ApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import type { ResourceDef } from '../../client/types.js';
import { rfc3339, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { defineController, type ControllerContext } from '../runtime/index.js';
import { controllerRef, isControlledBy } from '../workload/owner.js';
import { errorMessage, statusCode } from '../workload/pod-control.js';
import { finishedCondition, jobsBeyondHistory } from './finished-jobs.js';
import { jobFromTemplate, jobNameFor, jobReference, rfc1123z } from './job-from-template.js';
import { dueScheduleTime, nextRequeueDelay, type ScheduleState } from './schedule-math.js';
import { knownTimeZone, parseSchedule, type Schedule } from './schedule.js';
import { splitKey } from '../../machinery/object-key.js';

const ms = (t: string | undefined): number | undefined => (t ? Date.parse(t) : undefined);

export const cronJobController = defineController({
  name: 'cronjob',
  for: { resource: 'batch/v1/cronjobs', when: (c) => c.type !== 'DELETED' },
  owns: ['batch/v1/jobs'],
  setup: (ctx) => new CronJobReconciler(ctx),
});

class CronJobReconciler {
  private readonly client: Client;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly events: EventRecorder;
  private readonly jobsDef: ResourceDef;
  private readonly cronJobsDef: ResourceDef;

  constructor({ client, clock, log }: ControllerContext) {
    this.client = client;
    this.clock = clock;
    this.log = log;
    this.jobsDef = client.resource('batch/v1/jobs')!;
    this.cronJobsDef = client.resource('batch/v1/cronjobs')!;
    this.events = new EventRecorder(client, { component: 'cronjob-controller' });
  }

  reconcile(key: string): Promise<number | void> {
    return this.sync(key);
  }

  private async sync(key: string): Promise<number | void> {
    const { namespace: ns, name } = splitKey(key);
    const stored = this.client.get('batch/v1/cronjobs', ns, name);
    if (!stored) return;
    const cj = structuredClone(stored);
    const jobs = (this.client.list('batch/v1/jobs', ns)).filter((j) => {
      const ref = controllerRef(j);
      return ref?.kind === 'CronJob' && ref.name === name;
    });
    const status: CronJobStatus = (cj.status ??= {});
    const canonical = () => JSON.stringify({ ...status, active: status.active?.length ? status.active : undefined });
    const before = canonical();
    await this.cleanupFinishedJobs(cj, jobs);
    let requeue: number | undefined;
    let failure: unknown;
    try {
      requeue = await this.syncCronJob(cj, jobs);
    } catch (err) {
      failure = err;
    }
    if (canonical() !== before) {
      if (!status.active?.length) delete status.active;
      await this.client.guaranteedUpdate(this.cronJobsDef, ns, name, (cur) => {
        if (cur.metadata.uid !== cj.metadata?.uid) return cur;
        return { ...cur, status };
      }, { subresource: 'status' });
    }
    if (failure) throw failure;
    return requeue;
  }

  /** Deletes the oldest finished Jobs beyond successfulJobsHistoryLimit / failedJobsHistoryLimit. */
  private async cleanupFinishedJobs(cj: CronJob, jobs: Job[]): Promise<void> {
    const spec = cj.spec;
    if (spec?.successfulJobsHistoryLimit == null && spec?.failedJobsHistoryLimit == null) return;
    for (const job of jobsBeyondHistory(jobs, spec?.successfulJobsHistoryLimit ?? undefined, spec?.failedJobsHistoryLimit ?? undefined)) {
      await this.deleteJob(cj, job);
    }
  }

  /** Deletes a Job (its pods follow in the background) and drops it from status.active. */
  private async deleteJob(cj: CronJob, job: Job): Promise<boolean> {
    const name = job.metadata?.name ?? '';
    try {
      await this.client.delete(this.jobsDef, job.metadata?.namespace ?? '', name, { propagationPolicy: 'Background' });
    } catch (err) {
      if (statusCode(err) !== 404) {
        this.events.event(cj, 'Warning', 'FailedDelete', `Deleted job: ${errorMessage(err)}`);
        this.log.debug({ err, job: name }, 'deleting job failed');
        return false;
      }
    }
    const status = cj.status!;
    status.active = (status.active ?? []).filter((r) => r.uid !== job.metadata?.uid);
    this.events.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${name}`);
    return true;
  }

  /** Reconciles status with the Jobs that exist, then starts the due Job if any; returns ms until the next look. */
  private async syncCronJob(cj: CronJob, jobs: Job[]): Promise<number | undefined> {
    const obj = cj;
    const status = cj.status!;
    const now = this.clock.nowMs();
    const active = () => (status.active ??= []);
    const children = new Set<string>();
    for (const j of jobs) {
      const uid = j.metadata?.uid ?? '';
      children.add(uid);
      const found = active().some((r) => r.uid === uid);
      const done = finishedCondition(j);
      if (!found && !done) {
        this.events.event(obj, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${j.metadata?.name}`);
      } else if (done) {
        if (found) {
          status.active = active().filter((r) => r.uid !== uid);
          this.events.event(obj, 'Normal', 'SawCompletedJob', `Saw completed job: ${j.metadata?.name}, condition: ${done.type}`);
        }
        const completed = ms(j.status?.completionTime);
        if (done.type === 'Complete' && completed !== undefined) {
          const last = ms(status.lastSuccessfulTime);
          if (last === undefined || completed > last) status.lastSuccessfulTime = j.status!.completionTime;
        }
      }
    }
    for (const ref of [...active()]) {
      if (children.has(ref.uid ?? '')) continue;
      this.events.event(obj, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
      status.active = active().filter((r) => r.uid !== ref.uid);
    }
    if (cj.metadata?.deletionTimestamp) return undefined;

    const spec = cj.spec!;
    if (spec.timeZone != null && !knownTimeZone(spec.timeZone)) {
      this.events.event(obj, 'Warning', 'UnknownTimeZone', `invalid timeZone: "${spec.timeZone}": unknown time zone ${spec.timeZone}`);
      return undefined;
    }
    if (spec.suspend) return undefined;
    if (spec.schedule.includes('TZ')) {
      this.events.event(obj, 'Warning', 'UnsupportedSchedule', `CRON_TZ or TZ used in schedule "${spec.schedule}" is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`);
    }
    let sched: Schedule;
    try {
      sched = parseSchedule(spec.schedule, spec.schedule.includes('TZ') ? undefined : spec.timeZone ?? undefined);
    } catch (err) {
      this.events.event(obj, 'Warning', 'UnparseableSchedule', `unparseable schedule: "${spec.schedule}" : ${(err as Error).message}`);
      return undefined;
    }
    const state: ScheduleState = {
      creationMs: ms(cj.metadata?.creationTimestamp) ?? now,
      lastScheduleMs: ms(status.lastScheduleTime),
      startingDeadlineSeconds: spec.startingDeadlineSeconds ?? undefined,
    };
    const later = () => nextRequeueDelay(state, now, sched);
    const due = dueScheduleTime(state, now, sched);
    if (due.error) {
      this.events.event(obj, 'Warning', 'InvalidSchedule', `invalid schedule: ${spec.schedule} : ${due.error}`);
      return undefined;
    }
    if (due.dueMs === undefined) return later();
    const scheduled = due.dueMs;
    if (due.missed === 'many') {
      this.events.event(obj, 'Warning', 'TooManyMissedTimes', 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
    }
    if (spec.startingDeadlineSeconds != null && scheduled + spec.startingDeadlineSeconds * 1000 < now) {
      this.events.event(obj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`);
      return later();
    }
    const jobName = jobNameFor(cj.metadata?.name ?? '', scheduled);
    if (active().some((r) => r.name === jobName) || state.lastScheduleMs === scheduled) return later();
    if (spec.concurrencyPolicy === 'Forbid' && active().length > 0) {
      this.events.event(obj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return later();
    }
    if (spec.concurrencyPolicy === 'Replace') {
      for (const ref of [...active()]) {
        const job = this.client.get('batch/v1/jobs', ref.namespace ?? '', ref.name ?? '');
        if (!job) {
          this.events.event(obj, 'Warning', 'FailedGet', `Get job: jobs.batch "${ref.name}" not found`);
          throw new Error(`job ${ref.namespace}/${ref.name} not found`);
        }
        if (!(await this.deleteJob(cj, job))) throw new Error(`could not replace job ${ref.namespace}/${ref.name}`);
      }
    }
    await this.startJob(cj, scheduled);
    return later();
  }

  /** Creates the Job for `scheduled` and records it in status (unless someone else owns a Job of that name). */
  private async startJob(cj: CronJob, scheduled: number): Promise<void> {
    const obj = cj;
    const status = cj.status!;
    const ns = cj.metadata?.namespace ?? '';
    let created: KObject;
    try {
      created = await this.client.create(this.jobsDef, ns, jobFromTemplate(cj, scheduled));
      this.events.event(obj, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata.name}`);
    } catch (err) {
      if (statusCode(err) !== 409) {
        const terminating = err instanceof ApiError && (err.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');
        if (!terminating) this.events.event(obj, 'Warning', 'FailedCreate', `Error creating job: ${errorMessage(err)}`);
        throw err;
      }
      const existing = this.client.get('batch/v1/jobs', ns, jobNameFor(cj.metadata?.name ?? '', scheduled));
      if (!existing || !isControlledBy(existing, obj)) return;
      if ((status.active ?? []).some((r) => r.uid === existing.metadata.uid)) return;
      this.log.info({ cronjob: `${ns}/${cj.metadata?.name}`, job: existing.metadata.name }, 'Job already exists');
      created = existing;
    }
    (status.active ??= []).push(jobReference(created));
    status.lastScheduleTime = rfc3339(new Date(scheduled));
  }
}
