// The Job controller (upstream pkg/controller/job): runs a Job's pods to completion, counting each finished pod once
// through the batch.kubernetes.io/job-tracking finalizer. Level-triggered: Job and pod changes enqueue the Job;
// a second queue strips the finalizer from pods whose Job is gone or finished.
import { drive, type Steps } from '../../util/steps.js';
import type { Job } from '../../generated/k8s/batch/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import { EventRecorder } from '../../client/event-recorder.js';
import { labelSelectorMatches } from '../../machinery/labels.js';
import type { KObject } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import type { ResourceDef } from '../../client/types.js';
import { rfc3339, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { defineController, type ControllerContext } from '../runtime/index.js';
import { claim } from '../workload/claim.js';
import { controllerRef } from '../workload/owner.js';
import { PodControl } from '../workload/pod-control.js';
import type { BackoffRecord } from './backoff.js';
import { isJobFinished } from './job-conditions.js';
import { hasTrackingFinalizer } from './job-pods.js';
import { JobPodOps } from './pod-ops.js';
import { syncJob } from './sync-job.js';
import { keyOf, splitKey } from '../../machinery/object-key.js';

export const jobControllerName = 'kubernetes.io/job-controller';

/** spec.managedBy names another controller: this one leaves the Job alone. */
export const managedElsewhere = (job: Job): boolean => {
  const m = job.spec?.managedBy;
  return m !== undefined && m !== null && m !== jobControllerName;
};


const job = (client: Client, ns: string, name: string): Job | undefined => client.get<Job>('batch/v1/jobs', ns, name);

/** The Job a pod's controller reference points to, when it exists with that uid. */
function resolve(client: Client, pod: Pod): Job | undefined {
  const ref = controllerRef(pod);
  if (!ref || ref.kind !== 'Job' || !ref.apiVersion?.startsWith('batch/')) return undefined;
  const j = job(client, pod.metadata?.namespace ?? '', ref.name);
  return j?.metadata?.uid === ref.uid ? j : undefined;
}

/** The Jobs a pod change concerns: its live controller, or (an orphan) those whose selector matches it. */
function jobsForPod(client: Client, pod: Pod): string[] {
  if (controllerRef(pod)) {
    const j = resolve(client, pod);
    return j && !isJobFinished(j) ? [keyOf(j)] : [];
  }
  return client.list<Job>('batch/v1/jobs', pod.metadata?.namespace ?? '')
    .filter((j) => j.spec?.selector && labelSelectorMatches(j.spec.selector, pod.metadata?.labels)).map(keyOf);
}

/** A pod keeping the tracking finalizer that no running Job (of its controller reference) will count. */
function orphanedPod(client: Client, pod: Pod): boolean {
  if (!hasTrackingFinalizer(pod)) return false;
  if (!controllerRef(pod)) return true;
  const j = resolve(client, pod);
  return !j || isJobFinished(j);
}

/** The Job controller: Job and pod changes enqueue the Job. */
const jobController = defineController({
  name: 'job',
  for: 'batch/v1/jobs',
  watches: [{ resource: 'v1/pods', map: (c, { client }) => jobsForPod(client, c.object) }],
  setup: (ctx) => new JobReconciler(ctx),
});

/** Its second queue, acting as it: strips the tracking finalizer from pods whose Job is gone or finished. */
const jobOrphanPodController = defineController({
  name: 'job-orphan-pod',
  identity: 'job',
  watches: [
    { resource: 'v1/pods', map: (c, { client }) => (orphanedPod(client, c.object) ? [keyOf(c.object)] : []) },
    {
      resource: 'batch/v1/jobs',
      when: (c) => c.type === 'DELETED' || isJobFinished(c.object),
      map: (c, { client }) => client.list<Pod>('v1/pods', c.object.metadata.namespace ?? '')
        .filter((p) => hasTrackingFinalizer(p) && controllerRef(p)?.uid === c.object.metadata.uid).map(keyOf),
    },
  ],
  initialKeys: ({ client }) => client.list<Pod>('v1/pods').filter(hasTrackingFinalizer).map(keyOf),
  setup({ client }) {
    const ops = new JobPodOps(client, new PodControl(client, new EventRecorder(client, { component: 'job-controller' })));
    return { reconcile: (key: string) => syncOrphanPod(client, ops, key) };
  },
});

export const jobControllers = [jobController, jobOrphanPodController];

/** Removes the tracking finalizer from a pod no running Job (managed here) will count any more. */
async function syncOrphanPod(client: Client, ops: JobPodOps, k: string): Promise<void> {
  const { namespace, name } = splitKey(k);
  const pod = client.get<Pod>('v1/pods', namespace, name);
  if (!pod || !hasTrackingFinalizer(pod)) return;
  const ref = controllerRef(pod);
  if (ref) {
    if (ref.kind !== 'Job' || ref.apiVersion !== 'batch/v1') return;
    const j = resolve(client, pod);
    if (j && managedElsewhere(j)) return;
    if (j && !isJobFinished(j)) return;
  }
  await drive(ops.removeFinalizer(pod));
}

class JobReconciler {
  private readonly client: Client;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly events: EventRecorder;
  private readonly ops: JobPodOps;
  private readonly jobsDef: ResourceDef;
  /** Pod failure backoff by Job key, for the Job of that uid: a Job recreated under the name starts afresh. */
  private readonly backoffs = new Map<string, { uid: string | undefined; rec: BackoffRecord }>();

  constructor({ client, clock, log }: ControllerContext) {
    this.client = client;
    this.clock = clock;
    this.log = log;
    this.events = new EventRecorder(client, { component: 'job-controller' });
    this.ops = new JobPodOps(client, new PodControl(client, this.events));
    this.jobsDef = client.resource('batch/v1/jobs')!;
  }

  reconcile(k: string): Promise<number | undefined> | number | undefined {
    return drive(this.sync(k));
  }

  /** The Job's pods, after adopting matching orphans (which then get the tracking finalizer) and releasing strays. */
  private *podsFor(job: Job): Steps<Pod[]> {
    const ns = job.metadata?.namespace ?? '';
    const all = this.client.list('v1/pods', ns);
    const orphans = new Set(all.filter((p) => !controllerRef(p)).map((p) => p.metadata.uid));
    const mine: Pod[] = [];
    for (const p of yield* claim(this.client, this.ops.podsDef, job, job.spec?.selector, all)) mine.push(orphans.has(p.metadata?.uid) && !hasTrackingFinalizer(p) ? yield* this.ops.addFinalizer(p) : p);
    return mine;
  }

  /** Writes the Job's status (unless the Job was replaced); returns a copy of the stored Job. */
  private *writeStatus(namespace: string, name: string, uid: string | undefined, job: Job): Steps<Job> {
    const status = cleanStatus(job);
    const stored = (yield this.client.guaranteedUpdate<Job>(this.jobsDef, namespace, name, (cur) => {
      if (cur.metadata.uid !== uid) throw new Error('job was replaced');
      return { ...cur, status: status as Record<string, unknown> };
    }, { subresource: 'status' })) as Job;
    return structuredClone(stored);
  }

  /** Steps: waits only while an admission webhook is called for a pod it creates (see util/steps.ts). */
  private *sync(k: string): Steps<number | undefined> {
    const { namespace, name } = splitKey(k);
    const shared = job(this.client, namespace, name);
    if (!shared) {
      this.backoffs.delete(k);
      return undefined;
    }
    if (managedElsewhere(shared)) {
      this.log.debug({ job: k, managedBy: shared.spec?.managedBy }, 'job managed by another controller; skipping');
      return undefined;
    }
    if (isJobFinished(shared)) {
      this.backoffs.delete(k);
      return undefined;
    }
    const mode = shared.spec?.completionMode;
    if (mode && mode !== 'NonIndexed' && mode !== 'Indexed') {
      this.events.event(shared, 'Warning', 'UnknownCompletionMode', 'Skipped Job sync because completion mode is unknown');
      return undefined;
    }
    const uid = shared.metadata?.uid;
    return yield* syncJob(k, shared, yield* this.podsFor(shared), {
      now: () => rfc3339(this.clock.now()),
      nowMs: () => this.clock.nowMs(),
      ops: this.ops,
      event: (job, type, reason, message) => this.events.event(job, type, reason, message),
      backoff: (bk) => {
        const b = this.backoffs.get(bk);
        return b && b.uid === uid ? b.rec : undefined;
      },
      setBackoff: (bk, rec) => this.backoffs.set(bk, { uid, rec }),
      removeFinalizer: (pod) => this.ops.removeFinalizer(pod),
      writeStatus: (job) => this.writeStatus(namespace, name, uid, job),
      finished: (job, cond) => {
        const obj = job;
        if (cond.type === 'Complete') {
          const completions = job.spec?.completions;
          if (completions !== undefined && completions !== null && (job.status?.succeeded ?? 0) > completions) {
            this.events.event(obj, 'Warning', 'TooManySucceededPods', 'Too many succeeded pods running after completion count reached');
          }
          this.events.event(obj, 'Normal', 'Completed', 'Job completed');
        } else this.events.event(obj, 'Warning', cond.reason ?? 'Failed', cond.message ?? '');
      },
    });
  }
}

/** The status as the API serializes it: zero counters and empty UID lists omitted; ready and terminating always present. */
function cleanStatus(job: Job): Job['status'] {
  const st = structuredClone(job.status ?? {});
  for (const f of ['active', 'succeeded', 'failed'] as const) if (!st[f]) delete st[f];
  if (!st.completedIndexes) delete st.completedIndexes;
  if (st.failedIndexes === undefined) delete st.failedIndexes;
  const u = st.uncountedTerminatedPods ?? {};
  st.uncountedTerminatedPods = {
    ...(u.succeeded?.length ? { succeeded: u.succeeded } : {}),
    ...(u.failed?.length ? { failed: u.failed } : {}),
  };
  if (!st.conditions?.length) delete st.conditions;
  return st;
}
