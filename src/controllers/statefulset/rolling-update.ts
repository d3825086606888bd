// The RollingUpdate strategy (upstream updateStatefulSetAfterInvariantEstablished, MaxUnavailableStatefulSet on):
// delete pods not at the update revision, highest ordinal first, only ordinals at or above the partition, while
// at most maxUnavailable pods of the set are unavailable. The control loop recreates them at the update revision.
import type { Steps } from '../../util/steps.js';
import type { StatefulSet, StatefulSetStatus } from '../../generated/k8s/apps/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import { podRevision, replicasOf } from './identity.js';
import type { StatefulPodOps } from './pod-ops.js';
import { isTerminating, isUnavailable } from './status.js';

/** maxUnavailable as a count: an int, or a percentage of replicas rounded down; never below 1. */
export function maxUnavailableOf(set: StatefulSet): number {
  const v = set.spec?.updateStrategy?.rollingUpdate?.maxUnavailable;
  const replicas = replicasOf(set);
  let n = 1;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string') {
    const m = /^(\d+)%$/.exec(v);
    n = m ? Math.floor((Number(m[1]) * replicas) / 100) : Number(v) || 1;
  }
  return Math.max(1, n);
}

export function* rollingUpdate(set: StatefulSet, replicas: Pod[], updateRevision: string, status: StatefulSetStatus, ops: StatefulPodOps, minReady: number, nowMs: number): Steps<void> {
  const partition = set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
  const maxUnavailable = maxUnavailableOf(set);
  const unavailable = replicas.filter((p) => isUnavailable(p, minReady, nowMs)).length;
  if (unavailable > maxUnavailable) return;
  let budget = maxUnavailable - unavailable;
  for (let target = replicas.length - 1; target >= partition && budget > 0; target--) {
    const pod = replicas[target];
    if (podRevision(pod) === updateRevision || isTerminating(pod)) continue;
    yield* ops.delete(set, pod);
    budget--;
    status.currentReplicas = (status.currentReplicas ?? 0) - 1;
  }
}
