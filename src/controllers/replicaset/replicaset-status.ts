// A ReplicaSet's status from the pods it owns: replicas, fullyLabeledReplicas, readyReplicas, availableReplicas
// (ready for minReadySeconds), observedGeneration and the ReplicaFailure condition after a failed create/delete.
import type { ReplicaSet, ReplicaSetCondition, ReplicaSetStatus } from '../../generated/k8s/apps/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import { isPodReady } from '../../machinery/conditions.js';
import { isPodAvailable, msUntilAvailable } from '../workload/pod-state.js';

export interface ManageError {
  /** 'FailedCreate' when scaling up failed, 'FailedDelete' when scaling down failed. */
  reason: 'FailedCreate' | 'FailedDelete';
  message: string;
}

/** Whether every label of the pod template is on the pod (the pod would be created today the same way). */
function fullyLabeled(pod: Pod, templateLabels: Record<string, string>): boolean {
  const labels = pod.metadata?.labels ?? {};
  return Object.entries(templateLabels).every(([k, v]) => labels[k] === v);
}

/**
 * `pods` are the active pods the ReplicaSet controls, `terminating` how many of its pods are being deleted but not
 * finished.
 */
export function calculateReplicaSetStatus(rs: ReplicaSet, pods: Pod[], terminating: number, manageErr: ManageError | undefined, nowRfc3339: string, nowMs: number): ReplicaSetStatus {
  const templateLabels = rs.spec?.template?.metadata?.labels ?? {};
  const minReady = rs.spec?.minReadySeconds ?? 0;
  let labeled = 0;
  let ready = 0;
  let available = 0;
  for (const p of pods) {
    if (fullyLabeled(p, templateLabels)) labeled++;
    if (isPodReady(p)) {
      ready++;
      if (isPodAvailable(p, minReady, nowMs)) available++;
    }
  }
  let conditions: ReplicaSetCondition[] = [...(rs.status?.conditions ?? [])];
  const failure = conditions.find((c) => c.type === 'ReplicaFailure');
  if (manageErr && !failure) {
    conditions.push({ type: 'ReplicaFailure', status: 'True', reason: manageErr.reason, message: manageErr.message, lastTransitionTime: nowRfc3339 });
  } else if (!manageErr && failure) {
    conditions = conditions.filter((c) => c.type !== 'ReplicaFailure');
  }
  // Zero counts are omitted, as the upstream JSON (omitempty) does; replicas is always present.
  return {
    replicas: pods.length,
    ...(labeled ? { fullyLabeledReplicas: labeled } : {}),
    ...(ready ? { readyReplicas: ready } : {}),
    ...(available ? { availableReplicas: available } : {}),
    ...(rs.metadata?.generation ? { observedGeneration: rs.metadata.generation } : {}),
    ...(conditions.length ? { conditions } : {}),
    terminatingReplicas: terminating,
  };
}

/** The earliest time (ms from now) at which one of the ready pods becomes available, if any is waiting. */
export function nextAvailableIn(rs: ReplicaSet, pods: Pod[], nowMs: number): number | undefined {
  const minReady = rs.spec?.minReadySeconds ?? 0;
  let next: number | undefined;
  for (const p of pods) {
    const left = msUntilAvailable(p, minReady, nowMs);
    if (left !== undefined) next = Math.min(next ?? left, left);
  }
  return next;
}

/** Status equality that ignores key order (and absent vs. undefined fields). */
export function sameStatus(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => [k, sortKeys(o[k])]));
  }
  return v;
}
