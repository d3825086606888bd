// StatefulSet status: replica counts by readiness, availability and revision, rolling-update completion,
// and the write through the status subresource when something changed (upstream updateStatefulSetStatus).
import type { Steps } from '../../util/steps.js';
import type { StatefulSet, StatefulSetStatus } from '../../generated/k8s/apps/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import { isPodReady } from '../../machinery/conditions.js';
import type { KObject } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import { isPodAvailable } from '../workload/pod-state.js';
import { podRevision, replicasOf } from './identity.js';

/** Created means the API server holds it (it has a phase); a pod the controller only plans has none. */
export const isCreated = (p: Pod): boolean => !!p.status?.phase;
export const isTerminating = (p: Pod): boolean => !!p.metadata?.deletionTimestamp;
export const isRunningAndReady = (p: Pod): boolean => p.status?.phase === 'Running' && isPodReady(p);
export const isRunningAndAvailable = (p: Pod, minReadySeconds: number, nowMs: number): boolean =>
  isRunningAndReady(p) && isPodAvailable(p, minReadySeconds, nowMs);
export const isUnavailable = (p: Pod, minReadySeconds: number, nowMs: number): boolean =>
  isTerminating(p) || !isRunningAndAvailable(p, minReadySeconds, nowMs);

export interface Counts {
  replicas: number;
  readyReplicas: number;
  availableReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
}

export function countReplicas(pods: Pod[], minReadySeconds: number, nowMs: number, currentRevision: string, updateRevision: string): Counts {
  const c: Counts = { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0 };
  for (const p of pods) {
    if (isCreated(p)) c.replicas++;
    if (isRunningAndReady(p)) {
      c.readyReplicas++;
      if (isRunningAndAvailable(p, minReadySeconds, nowMs)) c.availableReplicas++;
    }
    if (isCreated(p) && !isTerminating(p)) {
      const rev = podRevision(p);
      if (rev === currentRevision) c.currentReplicas++;
      if (rev === updateRevision) c.updatedReplicas++;
    }
  }
  return c;
}

/** Once every desired replica is updated and ready, the update revision becomes the current one. */
export function completeRollingUpdate(set: StatefulSet, status: StatefulSetStatus): void {
  const want = replicasOf(set);
  if (set.spec?.updateStrategy?.type !== 'OnDelete' && status.updatedReplicas === want && status.readyReplicas === want && status.replicas === want) {
    status.currentReplicas = status.updatedReplicas;
    status.currentRevision = status.updateRevision;
  }
}

const fields: Array<keyof StatefulSetStatus> = ['observedGeneration', 'replicas', 'readyReplicas', 'availableReplicas', 'currentReplicas', 'updatedReplicas', 'currentRevision', 'updateRevision', 'collisionCount'];

/** Writes the status when it differs from the stored one; keeps fields this controller does not own (conditions). */
export function* writeStatus(client: Client, set: StatefulSet, status: StatefulSetStatus): Steps<void> {
  completeRollingUpdate(set, status);
  const old: Partial<StatefulSetStatus> = set.status ?? {};
  if (fields.every((f) => old[f] === status[f])) return;
  const def = client.resource('apps/v1/statefulsets')!;
  yield client.guaranteedUpdate(def, set.metadata?.namespace ?? '', set.metadata?.name ?? '', (cur) => {
    if (cur.metadata.uid !== set.metadata?.uid) throw new Error('statefulset was replaced');
    const prev = (cur.status ?? {}) as StatefulSetStatus;
    return { ...cur, status: { ...prev, ...status } } as KObject;
  }, { subresource: 'status' });
}
