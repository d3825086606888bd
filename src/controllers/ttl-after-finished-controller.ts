// TTL-after-finished: deletes a finished Job (Complete or Failed condition) ttlSecondsAfterFinished seconds after it
// finished, cascading to its pods (foreground, as upstream), guarded by a uid precondition. Each Job is requeued for
// the exact moment its TTL runs out on the clock.
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { KObject } from '../machinery/types.js';
import type { Client } from '../client/client.js';
import type { ResourceDef } from '../client/types.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { finishedCondition } from './cronjob/finished-jobs.js';
import { WorkQueue } from './runtime/work-queue.js';
import { statusCode } from './workload/pod-control.js';
import { splitKey } from './workload/owner.js';

/** Milliseconds until `job` expires (<= 0: expired), or undefined when it needs no clean-up (yet). */
export function ttlRemainingMs(job: Job, nowMs: number): number | undefined {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  if (ttl === undefined || ttl === null || job.metadata?.deletionTimestamp) return undefined;
  const done = finishedCondition(job);
  if (!done) return undefined;
  const finishedAt = Date.parse(done.lastTransitionTime ?? job.status?.completionTime ?? '');
  if (Number.isNaN(finishedAt)) return undefined;
  return finishedAt + ttl * 1000 - nowMs;
}

export class TtlAfterFinishedController {
  private readonly queue: WorkQueue;
  private readonly stops: Array<() => void> = [];
  private readonly jobsDef: ResourceDef;

  constructor(private readonly client: Client, private readonly clock: Clock, private readonly log: Logger) {
    this.jobsDef = client.resource('batch/v1/jobs')!;
    this.queue = new WorkQueue('ttl-after-finished', (key) => this.process(key), clock, log);
    const consider = (obj: KObject) => {
      if (ttlRemainingMs(obj as unknown as Job, this.clock.nowMs()) !== undefined) this.queue.add(`${obj.metadata.namespace}/${obj.metadata.name}`);
    };
    this.stops.push(client.watch('batch/v1/jobs', (c) => c.type !== 'DELETED' && consider(c.object)));
    for (const j of client.list('batch/v1/jobs')) consider(j);
  }

  private process(key: string): number | void {
    const { namespace: ns, name } = splitKey(key);
    const job = this.client.get('batch/v1/jobs', ns, name);
    if (!job) return;
    const left = ttlRemainingMs(job as unknown as Job, this.clock.nowMs());
    if (left === undefined) return;
    if (left > 0) return left;
    this.log.debug({ job: key }, 'cleaning up finished job');
    try {
      this.client.delete(this.jobsDef, ns, name, { propagationPolicy: 'Foreground', preconditions: { uid: job.metadata.uid } });
    } catch (err) {
      // Gone already, or replaced by a new Job of the same name (that one gets its own turn).
      if (statusCode(err) === 404 || statusCode(err) === 409) return;
      throw err;
    }
  }

  stop(): void {
    this.stops.forEach((s) => s());
    this.queue.stop();
  }
}
