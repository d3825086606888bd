// TTL-after-finished: deletes a finished Job (Complete or Failed condition) ttlSecondsAfterFinished seconds after it
// finished, cascading to its pods (foreground, as upstream), guarded by a uid precondition. Each Job is requeued for
// the exact moment its TTL runs out on the clock.
import type { Job } from '../generated/k8s/batch/v1.js';
import { finishedCondition } from './cronjob/finished-jobs.js';
import { defineController } from './runtime/index.js';
import { statusCode } from './workload/pod-control.js';
import { splitKey } from '../machinery/object-key.js';

/** The clock time (ms) `job` expires at, or undefined when it needs no clean-up (yet). */
function expiresAtMs(job: Job): number | undefined {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  if (ttl === undefined || ttl === null || job.metadata?.deletionTimestamp) return undefined;
  const done = finishedCondition(job);
  if (!done) return undefined;
  const finishedAt = Date.parse(done.lastTransitionTime ?? job.status?.completionTime ?? '');
  if (Number.isNaN(finishedAt)) return undefined;
  return finishedAt + ttl * 1000;
}

/** Milliseconds until `job` expires (<= 0: expired), or undefined when it needs no clean-up (yet). */
export function ttlRemainingMs(job: Job, nowMs: number): number | undefined {
  const at = expiresAtMs(job);
  return at === undefined ? undefined : at - nowMs;
}

export const ttlAfterFinishedController = defineController({
  name: 'ttl-after-finished',
  for: { resource: 'batch/v1/jobs', when: (c) => c.type !== 'DELETED' && expiresAtMs(c.object) !== undefined },
  async reconcile(key, { client, clock, log }): Promise<number | void> {
    const { namespace: ns, name } = splitKey(key);
    const job = client.get<Job>('batch/v1/jobs', ns, name);
    if (!job) return;
    const left = ttlRemainingMs(job, clock.nowMs());
    if (left === undefined) return;
    if (left > 0) return left;
    log.debug({ job: key }, 'cleaning up finished job');
    try {
      await client.delete('batch/v1/jobs', ns, name, { propagationPolicy: 'Foreground', preconditions: { uid: job.metadata?.uid } });
    } catch (err) {
      // Gone already, or replaced by a new Job of the same name (that one gets its own turn).
      if (statusCode(err) === 404 || statusCode(err) === 409) return;
      throw err;
    }
  },
});
