// Deployment conditions as upstream sets them: a condition with the same status and reason is left alone (message
// included); otherwise it is replaced, keeping lastTransitionTime when only the reason changed.
import type { DeploymentCondition, DeploymentStatus } from '../../generated/k8s/apps/v1.js';

export type CondType = 'Available' | 'Progressing' | 'ReplicaFailure';

export function newCondition(type: CondType, status: 'True' | 'False' | 'Unknown', reason: string, message: string, now: string): DeploymentCondition {
  return { type, status, reason, message, lastUpdateTime: now, lastTransitionTime: now };
}

export function getCondition(status: DeploymentStatus | undefined, type: CondType): DeploymentCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/** Sets `cond` on `status` in place. */
export function setCondition(status: DeploymentStatus, cond: DeploymentCondition): void {
  const conds = [...(status.conditions ?? [])];
  const cur = conds.find((c) => c.type === cond.type);
  if (cur && cur.status === cond.status && cur.reason === cond.reason) return;
  const next = cur && cur.status === cond.status ? { ...cond, lastTransitionTime: cur.lastTransitionTime } : cond;
  (status as { conditions?: DeploymentCondition[] }).conditions = [...conds.filter((c) => c.type !== cond.type), next];
}

export function removeCondition(status: DeploymentStatus, type: CondType): void {
  const conds = (status.conditions ?? []).filter((c) => c.type !== type);
  (status as { conditions?: DeploymentCondition[] }).conditions = conds.length ? conds : undefined;
}
