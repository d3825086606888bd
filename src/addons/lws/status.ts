// A LeaderWorkerSet's status as upstream computes it: groups created (the leader StatefulSet's status.replicas),
// ready and updated groups (a group is ready when its leader is Running and Ready and its worker StatefulSet has all
// replicas available at one revision), the leaders-only hpaPodSelector for the scale subresource, and the
// Available / Progressing / UpdateInProgress conditions (Available excludes the other two).
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { StatefulSet } from '../../generated/k8s/apps/v1.js';
import { labels as L, partitionOf, replicasOf, sizeOf, type LeaderWorkerSet, type LeaderWorkerSetStatus, type LwsCondition } from './types.js';
import type { GroupState } from './rolling-update.js';

export const podRunningAndReady = (p: Pod | undefined): boolean =>
  !!p && p.status?.phase === 'Running' && !!p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

export const podReady = (p: Pod): boolean => !!p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

export function statefulSetReady(s: StatefulSet | undefined): boolean {
  if (!s) return false;
  return (s.spec?.replicas ?? 1) === (s.status?.availableReplicas ?? 0) && (s.status?.currentRevision ?? '') === (s.status?.updateRevision ?? '');
}

const revisionOf = (o: { metadata?: { labels?: Record<string, string> } } | undefined) => o?.metadata?.labels?.[L.revision] ?? '';

export interface GroupView {
  leaders: Pod[];
  /** Worker StatefulSets by name (the leader pod's name). */
  workers: Map<string, StatefulSet>;
}

/** Each group's state, by index, for `count` groups (missing or misnamed groups are neither ready nor updated). */
export function groupStates(lws: LeaderWorkerSet, view: GroupView, count: number, revisionKey: string): GroupState[] {
  const name = lws.metadata.name ?? '';
  const noWorkers = sizeOf(lws) === 1;
  const byIndex = new Map<number, Pod>();
  for (const p of view.leaders) {
    const i = Number(p.metadata?.labels?.[L.groupIndex]);
    if (Number.isInteger(i) && i >= 0 && i < count) byIndex.set(i, p);
  }
  const out: GroupState[] = [];
  for (let i = 0; i < count; i++) {
    const leader = byIndex.get(i);
    const sts = view.workers.get(`${name}-${i}`);
    if (!leader || leader.metadata?.name !== `${name}-${i}` || (!noWorkers && !sts)) {
      out.push({ ready: false, updated: false });
      continue;
    }
    const leaderUpdated = revisionOf(leader) === revisionKey;
    if (noWorkers) out.push({ ready: podRunningAndReady(leader), updated: leaderUpdated });
    else out.push({ ready: podRunningAndReady(leader) && statefulSetReady(sts), updated: leaderUpdated && revisionOf(sts) === revisionKey });
  }
  return out;
}

const messages: Record<string, [string, string]> = {
  Available: ['AllGroupsReady', 'All replicas are ready'],
  UpdateInProgress: ['GroupsUpdating', 'Rolling Upgrade is in progress'],
  Progressing: ['GroupsProgressing', 'Replicas are progressing'],
};

const exclusive = (a: string, b: string) => (a === 'Available') !== (b === 'Available');

/** Sets a True condition; an exclusive True condition turns False. Returns whether anything changed. */
function setCondition(conds: LwsCondition[], type: string, generation: number, now: string): boolean {
  const [reason, message] = messages[type];
  let changed = false;
  let found = false;
  for (let i = 0; i < conds.length; i++) {
    const c = conds[i];
    if (c.type === type) {
      found = true;
      if (c.status !== 'True' || c.observedGeneration !== generation) {
        conds[i] = { type, status: 'True', lastTransitionTime: now, observedGeneration: generation, reason, message };
        changed = true;
      }
    } else if (exclusive(c.type, type) && c.status === 'True') {
      conds[i] = { ...c, status: 'False', lastTransitionTime: now, observedGeneration: generation };
      changed = true;
    }
  }
  if (!found) {
    conds.push({ type, status: 'True', lastTransitionTime: now, observedGeneration: generation, reason, message });
    changed = true;
  }
  return changed;
}

export interface StatusResult {
  status: LeaderWorkerSetStatus;
  changed: boolean;
  /** True once every group is at the update revision and ready, with no partition held. */
  updateDone: boolean;
  /** The first condition set, with its event message, when the conditions changed. */
  event?: { reason: string; message: string };
}

export function computeStatus(lws: LeaderWorkerSet, leaderSts: StatefulSet | undefined, view: GroupView, revisionKey: string, now: string): StatusResult {
  const prev = lws.status ?? {};
  const name = lws.metadata.name ?? '';
  const generation = lws.metadata.generation ?? 0;
  const replicas = replicasOf(lws);
  const partition = partitionOf(lws);
  const noWorkers = sizeOf(lws) === 1;
  let ready = 0, updated = 0, readyNonBurst = 0, updatedNonBurst = 0, currentNonBurst = 0, updatedAndReady = 0;
  for (const pod of view.leaders) {
    const index = Number(pod.metadata?.labels?.[L.groupIndex]);
    if (!Number.isInteger(index)) continue;
    const sts = view.workers.get(pod.metadata?.name ?? '');
    if (!noWorkers && !sts) continue;
    const inRange = index < replicas;
    const partitioned = inRange && index >= partition;
    if (partitioned) currentNonBurst++;
    const isReady = (noWorkers || statefulSetReady(sts)) && podRunningAndReady(pod);
    const isUpdated = (noWorkers || revisionOf(sts) === revisionKey) && revisionOf(pod) === revisionKey;
    if (isReady) ready++;
    if (isUpdated) {
      updated++;
      if (partitioned) updatedNonBurst++;
    }
    if (inRange && isReady) readyNonBurst++;
    if (partitioned && isReady && isUpdated) updatedAndReady++;
  }
  const status: LeaderWorkerSetStatus = {
    ...prev,
    replicas: leaderSts?.status?.replicas ?? 0,
    readyReplicas: ready,
    updatedReplicas: updated,
    observedGeneration: generation,
    hpaPodSelector: prev.hpaPodSelector || `${L.setName}=${name},${L.workerIndex}=0`,
    conditions: (prev.conditions ?? []).map((c) => ({ ...c })),
  };
  const types = updatedNonBurst < currentNonBurst ? ['UpdateInProgress', 'Progressing']
    : readyNonBurst === replicas && updatedAndReady === currentNonBurst ? ['Available'] : ['Progressing'];
  const conds = status.conditions!;
  let condChanged = false;
  for (const t of types) condChanged = setCondition(conds, t, generation, now) || condChanged;
  for (let i = 0; i < conds.length; i++) {
    if (conds[i].observedGeneration !== generation) {
      conds[i] = { ...conds[i], observedGeneration: generation };
      condChanged = true;
    }
  }
  const changed = condChanged || prev.replicas !== status.replicas || (prev.readyReplicas ?? 0) !== ready || (prev.updatedReplicas ?? 0) !== updated
    || prev.observedGeneration !== generation || prev.hpaPodSelector !== status.hpaPodSelector;
  const [reason, message] = messages[types[0]];
  return {
    status, changed,
    updateDone: partition === 0 && updatedAndReady === replicas,
    event: condChanged ? { reason, message: `${message}, with ${ready} groups ready of total ${replicas} groups` } : undefined,
  };
}
