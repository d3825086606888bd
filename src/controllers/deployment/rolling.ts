// The RollingUpdate strategy (upstream rolling.go): grow the new ReplicaSet while the total stays within
// replicas + maxSurge, shrink old ones while availability stays at or above replicas - maxUnavailable, first
// dropping old replicas that are not available anyway.
import type { ReplicaSet } from '../../generated/k8s/apps/v1.js';
import {
  activeReplicaSets, availableReplicas, byCreation, deploymentComplete, maxUnavailable, newRSReplicas, replicasOf, specReplicas,
} from './deployment-util.js';
import { syncRolloutStatus } from './progress.js';
import { cleanupDeployment, getAllReplicaSetsAndSyncRevision } from './revisions.js';
import { scaleAndRecord } from './scaling.js';
import type { SyncContext } from './sync-context.js';

async function reconcileNewReplicaSet(ctx: SyncContext, allRSs: ReplicaSet[], newRS: ReplicaSet): Promise<boolean> {
  const want = replicasOf(ctx.d);
  const have = newRS.spec?.replicas ?? 0;
  if (have === want) return false;
  if (have > want) return (await scaleAndRecord(ctx, newRS, want)).scaled;
  return (await scaleAndRecord(ctx, newRS, newRSReplicas(ctx.d, allRSs, newRS))).scaled;
}

/** Scales down old replicas that are not available, up to `maxCleanup`; returns how many. */
async function cleanupUnhealthyReplicas(ctx: SyncContext, oldRSs: ReplicaSet[], maxCleanup: number): Promise<{ count: number; oldRSs: ReplicaSet[] }> {
  const sorted = [...oldRSs].sort(byCreation);
  let total = 0;
  const out: ReplicaSet[] = [];
  for (let rs of sorted) {
    const size = rs.spec?.replicas ?? 0;
    const avail = rs.status?.availableReplicas ?? 0;
    if (total < maxCleanup && size !== 0 && size !== avail) {
      const down = Math.min(maxCleanup - total, size - avail);
      rs = (await scaleAndRecord(ctx, rs, size - down)).rs;
      total += down;
    }
    out.push(rs);
  }
  return { count: total, oldRSs: out };
}

/** Scales old ReplicaSets down (oldest first) by as much as availability above the minimum allows. */
async function scaleDownOldForRollingUpdate(ctx: SyncContext, allRSs: ReplicaSet[], oldRSs: ReplicaSet[]): Promise<number> {
  const minAvailable = replicasOf(ctx.d) - maxUnavailable(ctx.d);
  const available = availableReplicas(allRSs);
  if (available <= minAvailable) return 0;
  const budget = available - minAvailable;
  let total = 0;
  for (const rs of [...oldRSs].sort(byCreation)) {
    if (total >= budget) break;
    const size = rs.spec?.replicas ?? 0;
    if (size === 0) continue;
    const down = Math.min(size, budget - total);
    await scaleAndRecord(ctx, rs, size - down);
    total += down;
  }
  return total;
}

async function reconcileOldReplicaSets(ctx: SyncContext, allRSs: ReplicaSet[], oldRSs: ReplicaSet[], newRS: ReplicaSet): Promise<boolean> {
  if (specReplicas(oldRSs) === 0) return false;
  const minAvailable = replicasOf(ctx.d) - maxUnavailable(ctx.d);
  const newUnavailable = (newRS.spec?.replicas ?? 0) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = specReplicas(allRSs) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return false;
  const cleaned = await cleanupUnhealthyReplicas(ctx, oldRSs, maxScaledDown);
  const scaled = await scaleDownOldForRollingUpdate(ctx, [...cleaned.oldRSs, newRS], cleaned.oldRSs);
  return cleaned.count + scaled > 0;
}

export async function rolloutRolling(ctx: SyncContext, rsList: ReplicaSet[]): Promise<void> {
  const { newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(ctx, rsList, true);
  if (!newRS) return;
  const all = () => ctx.freshList([...oldRSs, newRS]);
  if (await reconcileNewReplicaSet(ctx, [...oldRSs, newRS], newRS)) return syncRolloutStatus(ctx, all(), ctx.fresh(newRS));
  if (await reconcileOldReplicaSets(ctx, [...oldRSs, newRS], activeReplicaSets(oldRSs), newRS)) return syncRolloutStatus(ctx, all(), ctx.fresh(newRS));
  if (deploymentComplete(ctx.d, ctx.d.status ?? {})) await cleanupDeployment(ctx, oldRSs);
  await syncRolloutStatus(ctx, all(), ctx.fresh(newRS));
}
