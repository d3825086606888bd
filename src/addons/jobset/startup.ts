// Creating a JobSet's Jobs in order: a replicated job waits for its dependsOn (Ready or Complete); with startup
// policy InOrder each replicated job's Jobs are created only once the one before has all its Jobs ready; with
// BlockingRecreate nothing is created while Jobs of an earlier attempt remain. Suspending and resuming the Jobs.
import { ensureWorkload, gangSize } from './gang.js';
import type { Job } from '../../generated/k8s/batch/v1.js';
import type { KObject } from '../../machinery/types.js';
import { ApiError } from '../../machinery/errors.js';
import type { Client } from '../../client/client.js';
import type { EventRecorder } from '../../client/event-recorder.js';
import type { Informer } from '../../client/informer.js';
import { allReplicasStarted, dependenciesReached, jobRestartsOf } from './child-jobs.js';
import { setCondition } from './conditions.js';
import { buildJob, jobName } from './jobs.js';
import { cond, jobCreationFailedReason, jobsRef, labels as L, reasons, restartingJobSetSuspended, type ReplicatedJob } from './types.js';
import type { Work } from './work.js';

/** What the start-up steps use of the JobSet controller (controller.ts): its client, Jobs informer and event recorder. */
export interface StartupDeps {
  readonly client: Client;
  readonly jobs: Informer<Job>;
  readonly events: EventRecorder;
}

const inOrder = (w: Work) => w.spec.startupPolicy.startupPolicyOrder === 'InOrder';

/** The Jobs of `rj` that do not exist yet (under any attempt), built for the current one. */
function missingJobs(w: Work, rj: ReplicatedJob): Job[] {
  const blocking = w.spec.failurePolicy?.restartStrategy === 'BlockingRecreate';
  if (blocking && w.jobs.previous.length) return [];
  const existing = new Set<string>();
  for (const list of [w.jobs.active, w.jobs.successful, w.jobs.failed, w.jobs.previous]) for (const j of list) existing.add(j.metadata?.name ?? '');
  const restarts = jobRestartsOf(w.js, w.spec, rj.name);
  const out: Job[] = [];
  const name = w.js.metadata.name ?? '';
  for (let i = 0; i < (rj.replicas ?? 1); i++) {
    if (!existing.has(jobName(name, rj.name, i))) out.push(buildJob(w.js, w.spec, rj, i, restarts[i] ?? 0));
  }
  return out;
}

async function createJobs(c: StartupDeps, w: Work, jobs: Job[]): Promise<void> {
  const ns = w.js.metadata.namespace ?? '';
  const errors: string[] = [];
  const waits: Array<Promise<unknown>> = [];
  for (const job of jobs) {
    try {
      const r = c.client.create(jobsRef, ns, job);
      if (r instanceof Promise) waits.push(r.then((created) => c.jobs.track(created), (err: unknown) => errors.push(failure(job, err))));
      else c.jobs.track(r);
    } catch (err) {
      errors.push(failure(job, err));
    }
  }
  await Promise.all(waits);
  if (errors.length) {
    const message = errors.join('\n');
    c.events.event(w.js as KObject, 'Warning', jobCreationFailedReason, message);
    throw new ApiError(500, 'InternalError', message);
  }
}

const failure = (job: Job, err: unknown) => `job "${job.metadata?.name}" creation failed with error: ${err instanceof Error ? err.message : String(err)}`;

export async function reconcileReplicatedJobs(c: StartupDeps, w: Work): Promise<void> {
  const gang = gangSize(w.spec);
  if (gang !== undefined) await ensureWorkload(c.client, w.js, gang);
  const replicas = new Map<string, number>();
  const suspended = !!w.spec.suspend;
  for (const rj of w.spec.replicatedJobs) {
    replicas.set(rj.name, rj.replicas ?? 1);
    if (!dependenciesReached(rj.dependsOn, replicas, w.statuses)) continue;
    const status = w.statuses.find((s) => s.name === rj.name);
    if (!suspended && inOrder(w) && allReplicasStarted(rj.replicas ?? 1, status)) continue;
    await createJobs(c, w, missingJobs(w, rj));
    if (!suspended && inOrder(w)) {
      setCondition(w.js, w.update, cond.startupInProgress, 'True', reasons.inOrderInProgress[0], reasons.inOrderInProgress[1], 'Normal', w.now);
      return;
    }
  }
  if (!suspended && inOrder(w)) {
    setCondition(w.js, w.update, cond.startupCompleted, 'True', reasons.inOrderCompleted[0], reasons.inOrderCompleted[1], 'Normal', w.now);
  }
}

export async function suspendJobs(c: StartupDeps, w: Work): Promise<void> {
  for (const job of w.jobs.active) {
    if (job.spec?.suspend) continue;
    await c.client.guaranteedUpdate(jobsRef, job.metadata?.namespace ?? '', job.metadata?.name ?? '', (cur) => ({ ...cur, spec: { ...(cur.spec as object), suspend: true } }));
  }
  setCondition(w.js, w.update, cond.suspended, 'True', reasons.suspended[0], reasons.suspended[1], 'Normal', w.now);
  setCondition(w.js, w.update, cond.restarting, 'False', restartingJobSetSuspended, reasons.suspended[1], 'Normal', w.now);
}

/** Unsuspends the Jobs, replicated job by replicated job (InOrder: one at a time, each waiting for the one before). */
export async function resumeJobs(c: StartupDeps, w: Work): Promise<void> {
  const replicas = new Map<string, number>();
  for (const rj of w.spec.replicatedJobs) {
    replicas.set(rj.name, rj.replicas ?? 1);
    if (!dependenciesReached(rj.dependsOn, replicas, w.statuses)) continue;
    if (inOrder(w) && allReplicasStarted(rj.replicas ?? 1, w.statuses.find((s) => s.name === rj.name))) continue;
    for (const job of w.jobs.active) {
      if (!job.spec?.suspend || job.metadata?.labels?.[L.replicatedJobName] !== rj.name) continue;
      await resumeJob(c, job, rj);
    }
    if (inOrder(w)) {
      setCondition(w.js, w.update, cond.startupInProgress, 'True', reasons.inOrderInProgress[0], reasons.inOrderInProgress[1], 'Normal', w.now);
      return;
    }
  }
  setCondition(w.js, w.update, cond.suspended, 'False', reasons.resumed[0], reasons.resumed[1], 'Normal', w.now);
}

/** Unsuspends one Job, first clearing its start time and merging what Kueue may have changed in the template. */
async function resumeJob(c: StartupDeps, job: Job, rj: ReplicatedJob): Promise<void> {
  const ns = job.metadata?.namespace ?? '';
  const name = job.metadata?.name ?? '';
  if (job.status?.startTime) {
    await c.client.guaranteedUpdate(jobsRef, ns, name, (cur) => ({ ...cur, status: { ...(cur.status as object), startTime: undefined } }), { subresource: 'status' });
  }
  const want = rj.template.spec?.template;
  await c.client.guaranteedUpdate(jobsRef, ns, name, (cur) => {
    const spec = structuredClone(cur.spec ?? {}) as NonNullable<Job['spec']>;
    const t = spec.template ?? (spec.template = {});
    t.metadata = { ...t.metadata, labels: { ...t.metadata?.labels, ...want?.metadata?.labels }, annotations: { ...t.metadata?.annotations, ...want?.metadata?.annotations } };
    if (want?.spec?.nodeSelector) t.spec = { ...t.spec!, nodeSelector: { ...t.spec?.nodeSelector, ...want.spec.nodeSelector } };
    spec.suspend = false;
    return { ...cur, spec };
  });
}
