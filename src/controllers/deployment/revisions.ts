// Revisions: finding or creating the new ReplicaSet (named `<deployment>-<pod-template-hash>`), numbering it one past
// the old ones (a reused old RS, as after `rollout undo`, keeps its former numbers in revision-history), copying the
// deployment's annotations to it, hash collisions, and trimming old ReplicaSets to revisionHistoryLimit.
import type { Deployment, ReplicaSet } from '../../generated/k8s/apps/v1.js';
import type { KObject } from '../../machinery/types.js';
import { computeHash } from '../workload/hash.js';
import { controllerRef, controllerRefTo } from '../workload/owner.js';
import { errorMessage, statusCode } from '../workload/pod-control.js';
import { getCondition, newCondition, setCondition } from './deployment-conditions.js';
import {
  annotationsToSkip, equalIgnoreHash, withoutNulls, findNewReplicaSet, hasProgressDeadline, maxRevision, maxSurge, newRSReplicas, podTemplateHashLabel, reasons,
  replicasOf, revisionAnnotation, revisionHistoryAnnotation, revisionOf,
} from './deployment-util.js';
import { setReplicasAnnotations } from './scaling.js';
import type { SyncContext } from './sync-context.js';

const maxRevisionHistoryChars = 2000;

/**
 * Copies the deployment's annotations to the RS annotations (in place), raises its revision to `newRevision`
 * (remembering the former one in revision-history) and, for an RS about to be created, sets the replica annotations.
 */
export function setNewReplicaSetAnnotations(d: Deployment, annotations: Record<string, string>, newRevision: number, exists: boolean): boolean {
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata?.annotations ?? {})) {
    if (annotationsToSkip.has(k) || annotations[k] === v) continue;
    annotations[k] = v;
    changed = true;
  }
  const oldText = annotations[revisionAnnotation];
  const old = oldText ? Number.parseInt(oldText, 10) : 0;
  if (oldText && !Number.isFinite(old)) return changed;
  if (old < newRevision) {
    annotations[revisionAnnotation] = String(newRevision);
    changed = true;
    if (oldText) {
      const history = annotations[revisionHistoryAnnotation];
      if (!history) annotations[revisionHistoryAnnotation] = oldText;
      else {
        const parts = history.split(',');
        let total = history.length + oldText.length + 1;
        let start = 0;
        while (total > maxRevisionHistoryChars && start < parts.length) total -= parts[start++].length + 1;
        if (total <= maxRevisionHistoryChars) annotations[revisionHistoryAnnotation] = [...parts.slice(start), oldText].join(',');
      }
    }
  }
  if (!exists && setReplicasAnnotations(annotations, replicasOf(d), replicasOf(d) + maxSurge(d))) changed = true;
  return changed;
}

export interface ReplicaSets {
  newRS?: ReplicaSet;
  /** Every other ReplicaSet the deployment owns, scaled down or not. */
  oldRSs: ReplicaSet[];
}

/** Splits the owned ReplicaSets into new and old, syncing the new one's revision (creating it when asked). */
/** The new ReplicaSet (created when `create` and there is none) and the old ones. */
export async function getAllReplicaSetsAndSyncRevision(ctx: SyncContext, rsList: ReplicaSet[], create: boolean): Promise<ReplicaSets> {
  const existing = findNewReplicaSet(ctx.d, rsList);
  const oldRSs = rsList.filter((rs) => rs !== existing);
  return { newRS: await getNewReplicaSet(ctx, existing, oldRSs, create), oldRSs };
}

/** As getAllReplicaSetsAndSyncRevision without creating. */
export function getReplicaSets(ctx: SyncContext, rsList: ReplicaSet[]): Promise<ReplicaSets> {
  return getAllReplicaSetsAndSyncRevision(ctx, rsList, false);
}

async function getNewReplicaSet(ctx: SyncContext, existing: ReplicaSet | undefined, oldRSs: ReplicaSet[], create: boolean): Promise<ReplicaSet | undefined> {
  const d = ctx.d;
  const newRevision = maxRevision(oldRSs) + 1;
  if (existing) {
    const annotations = { ...(existing.metadata?.annotations ?? {}) };
    const annotationsChanged = setNewReplicaSetAnnotations(d, annotations, newRevision, true);
    const minReadyChanged = (existing.spec?.minReadySeconds ?? 0) !== (d.spec?.minReadySeconds ?? 0);
    if (annotationsChanged || minReadyChanged) {
      // The deployment's revision follows on the next sync, which this update triggers.
      return ctx.updateReplicaSet(existing, (cur) => ({
        ...cur, metadata: { ...cur.metadata, annotations }, spec: { ...cur.spec!, minReadySeconds: d.spec?.minReadySeconds },
      }));
    }
    const status = structuredClone(ctx.d.status ?? {});
    let statusChanged = false;
    if (hasProgressDeadline(d) && !getCondition(status, 'Progressing')) {
      setCondition(status, newCondition('Progressing', 'True', reasons.foundNewRS, `Found new replica set "${existing.metadata?.name}"`, ctx.now()));
      statusChanged = true;
    }
    await ctx.setRevision(String(revisionOf(existing)));
    if (statusChanged) await ctx.writeStatus(status);
    return existing;
  }
  if (!create) return undefined;
  return createNewReplicaSet(ctx, oldRSs, newRevision);
}

async function createNewReplicaSet(ctx: SyncContext, oldRSs: ReplicaSet[], newRevision: number): Promise<ReplicaSet> {
  const d = ctx.d;
  const template = withoutNulls(d.spec!.template);
  const hash = computeHash(template, d.status?.collisionCount);
  const labels = { ...(template.metadata?.labels ?? {}), [podTemplateHashLabel]: hash };
  const selector = structuredClone(d.spec!.selector);
  selector.matchLabels = { ...(selector.matchLabels ?? {}), [podTemplateHashLabel]: hash };
  const name = `${d.metadata?.name}-${hash}`;
  const rs: ReplicaSet = {
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: { name, namespace: ctx.ns, labels, annotations: {}, ownerReferences: [controllerRefTo(d)] },
    spec: { replicas: 0, minReadySeconds: d.spec?.minReadySeconds, selector, template: { ...template, metadata: { ...template.metadata, labels } } },
  };
  const replicas = newRSReplicas(d, [...oldRSs, rs], rs);
  rs.spec!.replicas = replicas;
  setNewReplicaSetAnnotations(d, rs.metadata!.annotations as Record<string, string>, newRevision, false);
  let created: ReplicaSet;
  let alreadyExisted = false;
  try {
    created = await ctx.svc.client.create(ctx.svc.rsDef, ctx.ns, rs);
    ctx.svc.track?.(created);
  } catch (err) {
    if (statusCode(err) === 409) {
      const found = ctx.svc.client.get('apps/v1/replicasets', ctx.ns, name);
      if (found && controllerRef(found)?.uid === d.metadata?.uid && equalIgnoreHash(d.spec?.template, found.spec?.template)) {
        created = found;
        alreadyExisted = true;
      } else {
        // A different template hashed to the same name: count the collision, the next hash differs.
        const status = structuredClone(d.status ?? {});
        status.collisionCount = (status.collisionCount ?? 0) + 1;
        await ctx.writeStatus(status);
        ctx.svc.log.debug({ deployment: d.metadata?.name, rs: name }, 'hash collision, collisionCount raised');
        throw err;
      }
    } else {
      const msg = `Failed to create new replica set "${name}": ${errorMessage(err)}`;
      if (hasProgressDeadline(d)) {
        const status = structuredClone(d.status ?? {});
        setCondition(status, newCondition('Progressing', 'False', reasons.failedRSCreate, msg, ctx.now()));
        try {
          await ctx.writeStatus(status);
        } catch { /* the bigger problem is reported below */ }
      }
      ctx.event('Warning', reasons.failedRSCreate, msg);
      throw err;
    }
  }
  if (!alreadyExisted && replicas > 0) ctx.event('Normal', 'ScalingReplicaSet', `Scaled up replica set ${name} from 0 to ${replicas}`);
  const status = structuredClone(ctx.d.status ?? {});
  await ctx.setRevision(String(newRevision));
  if (!alreadyExisted && hasProgressDeadline(d)) {
    setCondition(status, newCondition('Progressing', 'True', reasons.newRSCreated, `Created new replica set "${name}"`, ctx.now()));
    await ctx.writeStatus(status);
  }
  return created;
}

/** Deletes the oldest scaled-down ReplicaSets beyond revisionHistoryLimit. */
export async function cleanupDeployment(ctx: SyncContext, oldRSs: ReplicaSet[]): Promise<void> {
  const limit = ctx.d.spec?.revisionHistoryLimit;
  if (limit === undefined || limit === null) return;
  const alive = oldRSs.map((rs) => ctx.fresh(rs)).filter((rs) => !rs.metadata?.deletionTimestamp);
  const diff = alive.length - limit;
  if (diff <= 0) return;
  alive.sort((a, b) => revisionOf(a) - revisionOf(b) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  for (const rs of alive.slice(0, diff)) {
    if ((rs.status?.replicas ?? 0) !== 0 || (rs.spec?.replicas ?? 0) !== 0 || (rs.metadata?.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
    try {
      await ctx.svc.client.delete(ctx.svc.rsDef, ctx.ns, rs.metadata?.name ?? '');
    } catch (err) {
      if (statusCode(err) !== 404) ctx.svc.log.debug({ err, rs: rs.metadata?.name }, 'deleting old replica set failed');
    }
  }
}
