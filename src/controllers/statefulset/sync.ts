// One pass of the StatefulSet control loop (upstream updateStatefulSet): replace failed pods, create missing
// ordinals (in order and one at a time for OrderedReady, all at once for Parallel), fix identities and claim owners,
// delete scaled-away ordinals highest first, then hand over to the update strategy.
import type { Steps } from '../../util/steps.js';
import type { StatefulSet, StatefulSetStatus } from '../../generated/k8s/apps/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import { msUntilAvailable } from '../workload/pod-state.js';
import { endOrdinal, inOrdinalRange, newStatefulSetPod, ordinalOf, startOrdinal } from './identity.js';
import type { StatefulPodOps } from './pod-ops.js';
import { applyRevision, type SetRevisions } from './revisions.js';
import { rollingUpdate } from './rolling-update.js';
import { countReplicas, isCreated, isRunningAndAvailable, isRunningAndReady, isTerminating, isUnavailable } from './status.js';

export interface SyncResult {
  status: StatefulSetStatus;
  /** Clock ms after which to look again (a pod becomes available after minReadySeconds). */
  requeueMs?: number;
}

/** Picks the revision a newly created pod gets: ordinals below the partition stay at the current revision. */
function newPodFor(set: StatefulSet, revs: SetRevisions, currentSet: StatefulSet, updateSet: StatefulSet, ordinal: number): Pod {
  const strategy = currentSet.spec?.updateStrategy;
  const start = startOrdinal(currentSet);
  const keepCurrent = strategy?.type !== 'OnDelete' && (strategy?.rollingUpdate
    ? ordinal < start + (strategy.rollingUpdate.partition ?? 0)
    : ordinal < start + (set.status?.currentReplicas ?? 0));
  return keepCurrent
    ? newStatefulSetPod(currentSet, ordinal, revs.current.metadata?.name ?? '')
    : newStatefulSetPod(updateSet, ordinal, revs.update.metadata?.name ?? '');
}

export function* syncStatefulSet(set: StatefulSet, pods: Pod[], revs: SetRevisions, ops: StatefulPodOps, nowMs: number): Steps<SyncResult> {
  const currentSet = applyRevision(set, revs.current);
  const updateSet = applyRevision(set, revs.update);
  const minReady = set.spec?.minReadySeconds ?? 0;
  const currentName = revs.current.metadata?.name ?? '';
  const updateName = revs.update.metadata?.name ?? '';
  const status: StatefulSetStatus = {
    replicas: 0, observedGeneration: set.metadata?.generation, currentRevision: currentName, updateRevision: updateName, collisionCount: revs.collisionCount,
  };
  const recount = (list: Pod[]) => Object.assign(status, countReplicas(list, minReady, nowMs, currentName, updateName));
  recount(pods);

  const start = startOrdinal(set);
  const replicas: Pod[] = [];
  const condemned: Pod[] = [];
  for (const p of pods) {
    if (inOrdinalRange(p, set)) replicas[ordinalOf(p) - start] = p;
    else if (ordinalOf(p) >= 0) condemned.push(p);
  }
  for (let ord = start; ord <= endOrdinal(set); ord++) {
    if (!replicas[ord - start]) replicas[ord - start] = newPodFor(set, revs, currentSet, updateSet, ord);
  }
  condemned.sort((a, b) => ordinalOf(b) - ordinalOf(a));

  let requeueMs: number | undefined;
  for (const p of [...replicas, ...condemned]) {
    const left = isCreated(p) ? msUntilAvailable(p, minReady, nowMs) : undefined;
    if (left !== undefined) requeueMs = Math.min(requeueMs ?? left, left);
  }
  const firstUnavailable = [...replicas, ...[...condemned].reverse()].find((p) => isUnavailable(p, minReady, nowMs));
  const done = (): SyncResult => {
    recount([...replicas.filter(isCreated), ...condemned]);
    return { status, requeueMs };
  };
  if (set.metadata?.deletionTimestamp) return { status, requeueMs };

  const monotonic = set.spec?.podManagementPolicy !== 'Parallel';

  // Returns true when a monotonic pass must stop at this replica.
  function* processReplica(i: number): Steps<boolean> {
    const pod = replicas[i];
    const phase = pod.status?.phase;
    if (phase === 'Failed' || phase === 'Succeeded') {
      if (!isTerminating(pod)) yield* ops.delete(set, pod);
      return true;
    }
    if (!isCreated(pod)) {
      if (ops.claims.isStale(set, pod)) return true;
      yield* ops.create(set, pod);
      replicas[i] = pod;
      if (monotonic) return true;
      return false;
    }
    if (phase === 'Pending') yield* ops.createMissingClaims(set, pod);
    if (monotonic && (isTerminating(pod) || !isRunningAndReady(pod) || !isRunningAndAvailable(pod, minReady, nowMs))) return true;
    yield* ops.update(updateSet, pod);
    return false;
  }

  function* runAll(count: number, fn: (i: number) => Steps<boolean>): Steps<boolean> {
    for (let i = 0; i < count; i++) {
      if ((yield* fn(i)) && monotonic) return true;
    }
    return false;
  }

  for (let i = 0; i < replicas.length; i++) {
    if ((yield* processReplica(i)) && monotonic) return done();
  }
  // Scaled-away pods get claim owners matching the policy before they go (whenScaled=Delete hands claims to the pod).
  if (yield* runAll(condemned.length, function* (i) {
    if (!ops.claims.matchesPolicy(updateSet, condemned[i])) yield* ops.claims.applyPolicy(updateSet, condemned[i]);
    return false;
  })) return done();
  function* processCondemned(i: number): Steps<boolean> {
    const pod = condemned[i];
    if (isTerminating(pod)) return monotonic;
    if (monotonic && pod !== firstUnavailable && (!isRunningAndReady(pod) || !isRunningAndAvailable(pod, minReady, nowMs))) return true;
    yield* ops.delete(set, pod);
    return true;
  }
  if (yield* runAll(condemned.length, processCondemned)) return done();

  const result = done();
  if (set.spec?.updateStrategy?.type === 'OnDelete') return result;
  yield* rollingUpdate(set, replicas, updateName, status, ops, minReady, nowMs);
  return result;
}
