// Deployment status and progress (upstream progress.go and calculateStatus): counts summed over the ReplicaSets,
// the Available condition, and the Progressing condition that moves NewReplicaSetCreated -> ReplicaSetUpdated ->
// NewReplicaSetAvailable, or to ProgressDeadlineExceeded when nothing moved for progressDeadlineSeconds (measured from
// the condition's lastUpdateTime; the deployment is requeued for the moment the deadline would pass).
import type { DeploymentCondition, DeploymentStatus, ReplicaSet } from '../../generated/k8s/apps/v1.js';
import { getCondition, newCondition, removeCondition, setCondition } from './deployment-conditions.js';
import {
  actualReplicas, availableReplicas, deploymentComplete, hasProgressDeadline, maxUnavailable, readyReplicas, reasons, replicasOf,
  specReplicas,
} from './deployment-util.js';
import { sameStatus } from '../replicaset/replicaset-status.js';
import type { SyncContext } from './sync-context.js';

/** The sum of the ReplicaSets' terminatingReplicas; unknown (undefined) while one of them has not reported it. */
function terminatingReplicas(rss: ReplicaSet[]): number | undefined {
  let n = 0;
  for (const rs of rss) {
    const t = (rs.status as { terminatingReplicas?: number } | undefined)?.terminatingReplicas;
    if (t === undefined || t === null) return undefined;
    n += t;
  }
  return n;
}

export function calculateStatus(ctx: SyncContext, allRSs: ReplicaSet[], newRS: ReplicaSet | undefined): DeploymentStatus {
  const d = ctx.d;
  const available = availableReplicas(allRSs);
  const unavailable = Math.max(0, specReplicas(allRSs) - available);
  const status: DeploymentStatus & { terminatingReplicas?: number } = {
    observedGeneration: d.metadata?.generation,
    replicas: actualReplicas(allRSs),
    updatedReplicas: newRS ? newRS.status?.replicas ?? 0 : 0,
    readyReplicas: readyReplicas(allRSs),
    availableReplicas: available,
    unavailableReplicas: unavailable,
    ...(terminatingReplicas(allRSs) !== undefined ? { terminatingReplicas: terminatingReplicas(allRSs) } : {}),
    ...(d.status?.collisionCount !== undefined ? { collisionCount: d.status.collisionCount } : {}),
    conditions: [...(d.status?.conditions ?? [])],
  };
  const now = ctx.now();
  if (available >= replicasOf(d) - maxUnavailable(d)) {
    setCondition(status, newCondition('Available', 'True', reasons.minAvailable, 'Deployment has minimum availability.', now));
  } else {
    setCondition(status, newCondition('Available', 'False', reasons.minUnavailable, 'Deployment does not have minimum availability.', now));
  }
  return status;
}

/** Zero counts are left out, as upstream's JSON (omitempty) leaves them out; replicas and friends stay. */
function tidy(status: DeploymentStatus): DeploymentStatus {
  const out = { ...status } as Record<string, unknown>;
  for (const k of ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas']) {
    if (!out[k]) delete out[k];
  }
  if (!status.conditions?.length) delete out.conditions;
  return out as DeploymentStatus;
}

async function write(ctx: SyncContext, status: DeploymentStatus): Promise<void> {
  const next = tidy(status);
  if (!sameStatus(ctx.d.status ?? {}, next)) await ctx.writeStatus(next);
}

/** Status without progress reporting (scaling events, paused or deleted deployments). */
export async function syncDeploymentStatus(ctx: SyncContext, allRSs: ReplicaSet[], newRS: ReplicaSet | undefined): Promise<void> {
  await write(ctx, calculateStatus(ctx, allRSs, newRS));
}

/** Whether the rollout moved since the last recorded status. */
function progressed(old: DeploymentStatus, next: DeploymentStatus): boolean {
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (next.replicas ?? 0) - (next.updatedReplicas ?? 0);
  return (next.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) || newOld < oldOld
    || (next.readyReplicas ?? 0) > (old.readyReplicas ?? 0) || (next.availableReplicas ?? 0) > (old.availableReplicas ?? 0);
}

function deadlineMs(ctx: SyncContext, cond: DeploymentCondition): number {
  return Date.parse(cond.lastUpdateTime ?? cond.lastTransitionTime ?? '') + (ctx.d.spec?.progressDeadlineSeconds ?? 0) * 1000;
}

function timedOut(ctx: SyncContext, status: DeploymentStatus): boolean {
  if (!hasProgressDeadline(ctx.d)) return false;
  const cond = getCondition(status, 'Progressing');
  if (!cond || cond.reason === reasons.newRSAvailable) return false;
  if (cond.reason === reasons.timedOut) return true;
  return deadlineMs(ctx, cond) < ctx.nowMs();
}

export async function syncRolloutStatus(ctx: SyncContext, allRSs: ReplicaSet[], newRS: ReplicaSet | undefined): Promise<void> {
  const d = ctx.d;
  const status = calculateStatus(ctx, allRSs, newRS);
  if (!hasProgressDeadline(d)) removeCondition(status, 'Progressing');
  const cur = getCondition(status, 'Progressing');
  const complete = status.replicas === status.updatedReplicas && cur?.reason === reasons.newRSAvailable;
  const now = ctx.now();
  const subject = newRS ? `ReplicaSet "${newRS.metadata?.name}"` : `Deployment "${d.metadata?.name}"`;
  if (hasProgressDeadline(d) && !complete) {
    if (deploymentComplete(d, status)) {
      setCondition(status, newCondition('Progressing', 'True', reasons.newRSAvailable, `${subject} has successfully progressed.`, now));
    } else if (progressed(d.status ?? {}, status)) {
      const c = newCondition('Progressing', 'True', reasons.rsUpdated, `${subject} is progressing.`, now);
      // Progress refreshes lastUpdateTime (the deadline counts from it); the transition time stays while True.
      if (cur?.status === 'True') c.lastTransitionTime = cur.lastTransitionTime;
      removeCondition(status, 'Progressing');
      setCondition(status, c);
    } else if (timedOut(ctx, status)) {
      setCondition(status, newCondition('Progressing', 'False', reasons.timedOut, `${subject} has timed out progressing.`, now));
    }
  }
  const failures = replicaFailures(allRSs, newRS);
  if (failures.length) setCondition(status, failures[0]);
  else removeCondition(status, 'ReplicaFailure');
  await write(ctx, status);
  requeueStuck(ctx, status);
}

/** ReplicaFailure conditions of the new ReplicaSet, else of the old ones, as deployment conditions. */
function replicaFailures(allRSs: ReplicaSet[], newRS: ReplicaSet | undefined): DeploymentCondition[] {
  const from = (rss: ReplicaSet[]) => rss.flatMap((rs) => (rs.status?.conditions ?? []).filter((c) => c.type === 'ReplicaFailure'))
    .map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: c.message, lastUpdateTime: c.lastTransitionTime, lastTransitionTime: c.lastTransitionTime }));
  const mine = newRS ? from([newRS]) : [];
  return mine.length ? mine : from(allRSs);
}

/** While a rollout is in progress, look again when its deadline would pass. */
function requeueStuck(ctx: SyncContext, status: DeploymentStatus): void {
  const cond = getCondition(status, 'Progressing');
  if (!hasProgressDeadline(ctx.d) || !cond) return;
  if (deploymentComplete(ctx.d, status) || cond.reason === reasons.timedOut || cond.reason === reasons.newRSAvailable) return;
  const after = deadlineMs(ctx, cond) - ctx.nowMs();
  // The deadline is compared strictly (it must have passed), so look a little after it.
  ctx.requeue(Math.max(after, 0) + 50);
}
