// The LeaderWorkerSet reconciler: the template revision, the leader StatefulSet (replicas and rolling-update
// partition from the rollout arithmetic), the shared headless Service, and the status. Level-triggered: every pass
// reads the set, its StatefulSets and its leader pods as they are now.
import type { StatefulSet } from '../../generated/k8s/apps/v1.js';
import { reportStatusWriteFailure } from '../status-write.js';
import { ApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import { canonicalJson } from '../../controllers/workload/hash.js';
import { annotations as A, labels as L, lwsResource, replicasOf, scaled, uniquePerReplica, type LeaderWorkerSet } from './types.js';
import { ensureWorkload } from './workload.js';
import { ensureRevision, revisionKeyOf, truncateRevisions } from './revisions.js';
import { leaderStatefulSet } from './statefulsets.js';
import { rollout } from './rolling-update.js';
import { computeStatus, groupStates, type GroupView } from './status.js';
import { asObject, ensureHeadlessService, nowString, stsRes, type LwsContext } from './context.js';

/** The set's leader pods and worker StatefulSets, from the informers. */
export function groupView(ctx: LwsContext, lws: LeaderWorkerSet): GroupView {
  const key = `${lws.metadata.namespace ?? ''}/${lws.metadata.name ?? ''}`;
  const leaders = ctx.pods.byIndex('set', key).filter((p) => p.metadata?.labels?.[L.workerIndex] === '0');
  const workers = new Map<string, StatefulSet>();
  for (const s of ctx.statefulSets.byIndex('set', key)) if (s.metadata?.name !== lws.metadata.name) workers.set(s.metadata?.name ?? '', s);
  return { leaders, workers };
}

const subset = (want: Record<string, string> | undefined, have: Record<string, string> | undefined) =>
  Object.entries(want ?? {}).every(([k, v]) => have?.[k] === v);

/** Whether the leader StatefulSet differs from the desired one in what the controller sets. */
function leaderDiffers(cur: StatefulSet, want: StatefulSet): boolean {
  const c = cur.spec, w = want.spec!;
  return c?.replicas !== w.replicas
    || canonicalJson(c?.updateStrategy) !== canonicalJson(w.updateStrategy)
    || c?.serviceName !== w.serviceName
    || !subset(want.metadata?.labels, cur.metadata?.labels) || !subset(want.metadata?.annotations, cur.metadata?.annotations)
    || c?.template?.metadata?.labels?.[L.revision] !== w.template.metadata?.labels?.[L.revision]
    || !subset(w.template.metadata?.annotations, c?.template?.metadata?.annotations);
}

async function writeLeader(ctx: LwsContext, lws: LeaderWorkerSet, cur: StatefulSet | undefined, want: StatefulSet): Promise<void> {
  const ns = lws.metadata.namespace ?? '';
  if (!cur) {
    await ctx.client.create(stsRes, ns, asObject(want));
    return;
  }
  if (!leaderDiffers(cur, want)) return;
  await ctx.client.guaranteedUpdate(stsRes, ns, want.metadata?.name ?? '', (o) => {
    const s = o as StatefulSet;
    const next: StatefulSet = {
      ...s,
      metadata: { ...s.metadata, labels: { ...s.metadata?.labels, ...want.metadata?.labels }, annotations: { ...s.metadata?.annotations, ...want.metadata?.annotations } },
      // Claim templates and the selector are immutable: keep the StatefulSet's own.
      spec: { ...want.spec!, selector: s.spec?.selector ?? want.spec!.selector, volumeClaimTemplates: s.spec?.volumeClaimTemplates },
    };
    return next as KObject;
  });
}

export async function reconcileLws(ctx: LwsContext, namespace: string, name: string): Promise<number | void> {
  const lws = ctx.client.get<LeaderWorkerSet>(lwsResource, namespace, name);
  if (!lws || lws.metadata.deletionTimestamp) return;
  const lwsObj = lws as KObject;
  const leaderSts = ctx.client.get<StatefulSet>(stsRes, namespace, name);
  if (leaderSts?.metadata?.deletionTimestamp) return 5000;
  const { created } = await ensureRevision(ctx.client, lws);
  const key = revisionKeyOf(lws);
  const templateChanged = !!leaderSts && (leaderSts.metadata?.labels?.[L.revision] ?? '') !== key;
  if (created) {
    const msg = templateChanged ? `Creating revision with key ${key} for updated LWS` : `Creating revision with key ${key} for a newly created LeaderWorkerSet`;
    ctx.recorder.event(lwsObj, 'Normal', 'CreatingRevision', msg);
  }
  const lwsReplicas = replicasOf(lws);
  const cfg = lws.spec?.rolloutStrategy?.rollingUpdateConfiguration;
  const stsReplicas = leaderSts?.spec?.replicas ?? 1;
  const stsPartition = leaderSts?.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
  const decision = rollout({
    lwsReplicas,
    lwsPartition: cfg?.partition ?? 0,
    maxSurge: scaled(cfg?.maxSurge, lwsReplicas, true, 0),
    maxUnavailable: scaled(cfg?.maxUnavailable, lwsReplicas, false, 1),
    sts: leaderSts && { replicas: stsReplicas, partition: stsPartition, replicasAnnotation: Number(leaderSts.metadata?.annotations?.[A.replicas] ?? NaN) },
    templateChanged,
    states: () => groupStates(lws, groupView(ctx, lws), stsReplicas, key),
  });
  if (leaderSts && decision.replicas < stsReplicas) {
    const msg = decision.replicas === stsReplicas - 1 ? `deleting surge replica ${name}-${decision.replicas}`
      : `deleting surge replicas from ${name}-${decision.replicas} to ${name}-${stsReplicas - 1}`;
    ctx.recorder.event(lwsObj, 'Normal', 'GroupsProgressing', msg);
  }
  await ensureWorkload(ctx.client, lws);
  const want = leaderStatefulSet(lws, decision.partition, decision.replicas, key);
  try {
    await writeLeader(ctx, lws, leaderSts, want);
  } catch (err) {
    const verb = leaderSts ? 'update' : 'create';
    ctx.recorder.event(lwsObj, 'Warning', leaderSts ? 'FailedUpdate' : 'FailedCreate', `Failed to ${verb} leader statefulset ${name}: ${err instanceof Error ? err.message : String(err)}`);
    throw err;
  }
  if (!leaderSts) ctx.recorder.event(lwsObj, 'Normal', 'GroupsProgressing', `Created leader statefulset ${name}`);
  else if (!templateChanged && want.spec!.updateStrategy!.rollingUpdate!.partition !== stsPartition) {
    const p = want.spec!.updateStrategy!.rollingUpdate!.partition!;
    ctx.recorder.event(lwsObj, 'Normal', 'GroupsUpdating', stsPartition - 1 === p ? `Updating replica ${p}` : `Updating replicas ${p} to ${stsPartition - 1} (inclusive)`);
  }
  if (!uniquePerReplica(lws)) await ensureHeadlessService(ctx, lws, name, { [L.setName]: name }, lwsObj);
  return updateStatus(ctx, lws, key);
}

async function updateStatus(ctx: LwsContext, lws: LeaderWorkerSet, key: string): Promise<number | void> {
  const ns = lws.metadata.namespace ?? '';
  const name = lws.metadata.name ?? '';
  const leaderSts = ctx.client.get<StatefulSet>(stsRes, ns, name);
  const result = computeStatus(lws, leaderSts, groupView(ctx, lws), key, nowString(ctx.client));
  if (result.changed) {
    try {
      await ctx.client.updateStatus(lwsResource, ns, name, { ...lws, status: result.status } as KObject);
    } catch (err) {
      if (err instanceof ApiError && err.code === 409) return 0;
      throw reportStatusWriteFailure(ctx.recorder, ctx.client.log, lws as KObject, err);
    }
    if (result.event) ctx.recorder.event(lws as KObject, 'Normal', result.event.reason, result.event.message);
  }
  if (result.updateDone) await truncateRevisions(ctx.client, lws, key);
}
