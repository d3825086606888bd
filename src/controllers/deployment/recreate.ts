// The Recreate strategy (upstream recreate.go): scale every old ReplicaSet to zero, wait until none of their pods
// is left running, then create (or scale up) the new ReplicaSet to the full size.
import type { ReplicaSet } from '../../generated/k8s/apps/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import { actualReplicas, activeReplicaSets, deploymentComplete, replicasOf } from './deployment-util.js';
import { syncRolloutStatus } from './progress.js';
import { cleanupDeployment, getAllReplicaSetsAndSyncRevision, getReplicaSets } from './revisions.js';
import { scaleAndRecord } from './scaling.js';
import type { SyncContext } from './sync-context.js';

/** Whether old pods still run: old ReplicaSets report replicas, or one of their pods has not finished. */
function oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[], podsByRS: Map<string, Pod[]>): boolean {
  if (actualReplicas(oldRSs) > 0) return true;
  for (const [uid, pods] of podsByRS) {
    if (newRS && uid === newRS.metadata?.uid) continue;
    if (pods.some((p) => p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded')) return true;
  }
  return false;
}

export async function rolloutRecreate(ctx: SyncContext, rsList: ReplicaSet[], podsByRS: Map<string, Pod[]>): Promise<void> {
  let { newRS, oldRSs } = await getReplicaSets(ctx, rsList);
  const all = () => ctx.freshList([...oldRSs, ...(newRS ? [newRS] : [])]);
  let scaledDown = false;
  for (const rs of activeReplicaSets(oldRSs)) scaledDown = (await scaleAndRecord(ctx, rs, 0)).scaled || scaledDown;
  if (scaledDown) return syncRolloutStatus(ctx, all(), newRS && ctx.fresh(newRS));
  if (oldPodsRunning(newRS, ctx.freshList(oldRSs), podsByRS)) return syncRolloutStatus(ctx, all(), newRS && ctx.fresh(newRS));
  if (!newRS) ({ newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(ctx, rsList, true));
  if (newRS && (await scaleAndRecord(ctx, newRS, replicasOf(ctx.d))).scaled) return syncRolloutStatus(ctx, all(), ctx.fresh(newRS));
  if (deploymentComplete(ctx.d, ctx.d.status ?? {})) await cleanupDeployment(ctx, oldRSs);
  await syncRolloutStatus(ctx, all(), newRS && ctx.fresh(newRS));
}
