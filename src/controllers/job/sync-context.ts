// What one sync of a Job works with: the Job copy being updated, its pods, and the counts derived from them.
import type { Job, JobCondition } from '../../generated/k8s/batch/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { BackoffRecord } from './backoff.js';
import type { Intervals } from './intervals.js';

export interface SyncContext {
  key: string;
  job: Job;
  pods: Pod[];
  active: Pod[];
  ready: number;
  terminating: number;
  succeeded: number;
  failed: number;
  /** UIDs already recorded in status.uncountedTerminatedPods. */
  uncountedSucceeded: Set<string>;
  uncountedFailed: Set<string>;
  prevSucceededIndexes: Intervals;
  succeededIndexes: Intervals;
  failedIndexes?: Intervals;
  /** backoffLimitPerIndex: the failed pod per index whose finalizer waits for its replacement. */
  awaitingReplacement: Map<number, Pod>;
  finishedCondition?: JobCondition;
  newBackoff: BackoffRecord;
  /** The shortest delay after which the Job wants another sync (ms). */
  requeueMs?: number;
}

export function requeueAfter(ctx: SyncContext, ms: number): void {
  const d = Math.max(1, Math.ceil(ms));
  ctx.requeueMs = ctx.requeueMs === undefined ? d : Math.min(ctx.requeueMs, d);
}
