// The JobSet controller (kubernetes-sigs/jobset pkg/controllers): one level-triggered reconcile per JobSet that reads
// its Jobs from an informer indexed by owner, writes the status once at the end, and records the events of the
// status changes after that write succeeds. Jobs of an earlier restart attempt are deleted (foreground) and their
// successors created once the names are free.
import type { Job } from '../../generated/k8s/batch/v1.js';
import type { Client } from '../../client/client.js';
import { EventRecorder } from '../../client/event-recorder.js';
import type { Informer } from '../../client/informer.js';
import { ApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { defineController, type ControllerContext } from '../../controllers/runtime/index.js';
import { reportStatusWriteFailure } from '../status-write.js';
import { classify, replicatedJobStatuses } from './child-jobs.js';
import { finishedAtMs, isFinished, setCondition } from './conditions.js';
import { effectiveSpec, subdomainOf, type EffectiveSpec } from './defaults.js';
import { executeFailurePolicy } from './failure-policy.js';
import { loadPatterns, patternsLoaded } from './patterns.js';
import { reconcileReplicatedJobs, resumeJobs, suspendJobs } from './startup.js';
import type { Work } from './work.js';
import {
  apiVersion, cond, controllerName, headlessServiceCreationFailedReason, jobSetsRef, jobsRef, reasons, restartingJobSetCompleted,
  restartingJobsReady, servicesRef, type JobSet, type ReplicatedJobStatus,
} from './types.js';
import { keyFor, splitKey } from '../../machinery/object-key.js';


/** The JobSet owning a Job or Service: its controller reference to a JobSet. */
function ownerJobSet(obj: { metadata?: KObject['metadata'] }): { name: string; uid: string } | undefined {
  const ref = obj.metadata?.ownerReferences?.find((r) => r.controller === true);
  return ref && ref.kind === 'JobSet' && ref.apiVersion === apiVersion ? { name: ref.name, uid: ref.uid } : undefined;
}

/** The JobSet a Job or Service belongs to, by uid: the index the reconciler reads a JobSet's Jobs by. */
const ownerIndex = (j: Job): string | undefined => ownerJobSet(j)?.uid;

const ownerKey = (obj: KObject): string[] => {
  const owner = ownerJobSet(obj);
  return owner ? [keyFor(obj.metadata.namespace, owner.name)] : [];
};

export const jobSetController = defineController({
  name: 'jobset',
  for: jobSetsRef,
  watches: [
    { resource: jobsRef, map: (c) => ownerKey(c.object) },
    { resource: servicesRef, when: (c) => c.type === 'DELETED', map: (c) => ownerKey(c.object) },
  ],
  setup: (ctx) => new JobSetController(ctx),
});

export class JobSetController {
  readonly client: Client;
  readonly clock: Clock;
  private readonly log: Logger;
  readonly jobs: Informer<Job>;
  readonly events: EventRecorder;

  constructor({ client, clock, log, informers }: ControllerContext) {
    this.client = client;
    this.clock = clock;
    this.log = log;
    this.events = new EventRecorder(client, { component: 'jobset' });
    this.jobs = informers.informer<Job>(jobsRef, { owner: ownerIndex });
  }

  async reconcile(key: string): Promise<void | number> {
    const { namespace: ns, name } = splitKey(key);
    const stored = this.client.get<JobSet>(jobSetsRef, ns, name);
    if (!stored || stored.metadata.deletionTimestamp) return;
    const managedBy = stored.spec?.managedBy;
    if (managedBy !== undefined && managedBy !== controllerName) return;
    const spec = effectiveSpec(stored);
    if (spec.failurePolicy?.rules?.some((r) => r.onJobFailureMessagePatterns?.length) && !patternsLoaded()) await loadPatterns();
    const js: JobSet = { ...stored, status: structuredClone(stored.status ?? {}) };
    const now = this.clock.now();
    const jobs = classify(js, spec, this.jobs.byIndex('owner', stored.metadata.uid ?? ''));
    const w: Work = { js, spec, jobs, statuses: replicatedJobStatuses(js, spec, jobs), update: { changed: false, events: [] }, now };
    if (!sameStatuses(js.status?.replicatedJobsStatus, w.statuses)) {
      js.status!.replicatedJobsStatus = w.statuses;
      w.update.changed = true;
    }
    const requeue = await this.sync(w);
    await this.writeStatus(stored, w);
    return requeue;
  }

  private async sync(w: Work): Promise<number | undefined> {
    const { js, spec, jobs } = w;
    if (isFinished(js)) {
      await this.deleteJobs(jobs.active);
      return this.ttlAfterFinished(js, w.now);
    }
    await this.deleteJobs(jobs.previous);
    if (!spec.suspend && allJobsReady(spec, w.statuses)) {
      setCondition(js, w.update, cond.restarting, 'False', restartingJobsReady[0], restartingJobsReady[1], 'Normal', w.now);
    }
    if (jobs.failed.length) {
      executeFailurePolicy(js, spec, jobs.failed, w.update, w.now);
      return undefined;
    }
    if (jobs.successful.length && successPolicyMet(spec, jobs.successful)) {
      setCondition(js, w.update, cond.completed, 'True', reasons.allJobsCompleted[0], reasons.allJobsCompleted[1], 'Normal', w.now);
      setCondition(js, w.update, cond.restarting, 'False', restartingJobSetCompleted, reasons.allJobsCompleted[1], 'Normal', w.now);
      js.status!.terminalState = cond.completed;
      w.update.changed = true;
      return undefined;
    }
    await this.ensureHeadlessService(js, spec);
    await reconcileReplicatedJobs(this, w);
    if (spec.suspend) await suspendJobs(this, w);
    else await resumeJobs(this, w);
    return undefined;
  }

  /** Deletes Jobs (foreground, as upstream: their pods go first), skipping those already being deleted. */
  async deleteJobs(jobs: Job[]): Promise<void> {
    for (const job of jobs) {
      if (job.metadata?.deletionTimestamp) continue;
      try {
        await this.client.delete(jobsRef, job.metadata?.namespace ?? '', job.metadata?.name ?? '', { propagationPolicy: 'Foreground', preconditions: { uid: job.metadata?.uid } });
      } catch (err) {
        if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
      }
    }
  }

  private async ttlAfterFinished(js: JobSet, now: Date): Promise<number | undefined> {
    const ttl = js.spec?.ttlSecondsAfterFinished;
    const finishedAt = finishedAtMs(js);
    if (ttl === undefined || ttl === null || finishedAt === undefined || Number.isNaN(finishedAt)) return undefined;
    const left = finishedAt + ttl * 1000 - now.getTime();
    if (left > 0) return left;
    try {
      await this.client.delete(jobSetsRef, js.metadata.namespace ?? '', js.metadata.name ?? '', { propagationPolicy: 'Foreground', preconditions: { uid: js.metadata.uid } });
    } catch (err) {
      if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
    }
    return undefined;
  }

  private async ensureHeadlessService(js: JobSet, spec: EffectiveSpec): Promise<void> {
    if (!spec.network.enableDNSHostnames) return;
    const name = subdomainOf(js, spec);
    const ns = js.metadata.namespace ?? '';
    if (this.client.get(servicesRef, ns, name)) return;
    const svc: KObject = {
      apiVersion: 'v1', kind: 'Service',
      metadata: { name, namespace: ns, ownerReferences: [{ apiVersion, kind: 'JobSet', name: js.metadata.name ?? '', uid: js.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }] },
      spec: { clusterIP: 'None', selector: { 'jobset.sigs.k8s.io/jobset-name': js.metadata.name ?? '' }, publishNotReadyAddresses: spec.network.publishNotReadyAddresses },
    };
    try {
      await this.client.create(servicesRef, ns, svc);
    } catch (err) {
      if (err instanceof ApiError && err.code === 409) return;
      this.events.event(js as KObject, 'Warning', headlessServiceCreationFailedReason, err instanceof Error ? err.message : String(err));
      throw err;
    }
  }

  /**
   * One status write per reconcile, when something changed; the events follow a successful write. A refused write
   * is reported on the JobSet and retried with backoff (the queue goes on with the other JobSets meanwhile).
   */
  private async writeStatus(stored: JobSet, w: Work): Promise<void> {
    if (!w.update.changed) return;
    const status = { ...w.js.status, restarts: w.js.status?.restarts ?? 0 };
    const next = { ...stored, status } as KObject;
    try {
      await this.client.updateStatus(jobSetsRef, stored.metadata.namespace ?? '', stored.metadata.name ?? '', next);
    } catch (err) {
      throw reportStatusWriteFailure(this.events, this.log, stored as KObject, err);
    }
    for (const e of w.update.events) this.events.event(stored as KObject, e.type, e.reason, e.message);
  }
}

function sameStatuses(a: ReplicatedJobStatus[] | undefined, b: ReplicatedJobStatus[]): boolean {
  if (!a || a.length !== b.length) return false;
  const byName = new Map(a.map((s) => [s.name, s]));
  return b.every((s) => {
    const o = byName.get(s.name);
    return !!o && o.ready === s.ready && o.succeeded === s.succeeded && o.failed === s.failed && o.active === s.active && o.suspended === s.suspended
      && JSON.stringify(o.jobRestarts ?? null) === JSON.stringify(s.jobRestarts ?? null)
      && JSON.stringify(o.jobRestartsCountTowardsMax ?? null) === JSON.stringify(s.jobRestartsCountTowardsMax ?? null);
  });
}

function allJobsReady(spec: EffectiveSpec, statuses: ReplicatedJobStatus[]): boolean {
  let total = 0;
  let ready = 0;
  for (const rj of spec.replicatedJobs) total += rj.replicas ?? 1;
  for (const s of statuses) ready += s.ready + s.succeeded;
  return total === ready;
}

/** All: every Job of the target replicated jobs (all when none named) succeeded; Any: one did. */
export function successPolicyMet(spec: EffectiveSpec, successful: Job[]): boolean {
  const targets = spec.successPolicy.targetReplicatedJobs ?? [];
  const counts = (rjob: string) => !targets.length || targets.includes(rjob);
  const matching = successful.filter((j) => counts(j.metadata?.labels?.['jobset.sigs.k8s.io/replicatedjob-name'] ?? '')).length;
  if (spec.successPolicy.operator === 'Any') return matching >= 1;
  let expected = 0;
  for (const rj of spec.replicatedJobs) if (counts(rj.name)) expected += rj.replicas ?? 1;
  return matching >= expected;
}
