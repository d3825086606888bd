// Resizing a Deployment's ReplicaSets: one RS at a time with the ScalingReplicaSet event, and proportional scaling
// (upstream DeploymentController.scale) when spec.replicas changes mid-rollout or while paused.
import type { Deployment, ReplicaSet } from '../../generated/k8s/apps/v1.js';
import {
  activeReplicaSets, bySizeNewer, bySizeOlder, desiredReplicasAnnotation, isRollingUpdate, maxReplicasAnnotation, maxSurge,
  replicasOf, specReplicas,
} from './deployment-util.js';
import type { SyncContext } from './sync-context.js';

/** Sets desired-replicas and max-replicas on `annotations` in place; true when something changed. */
export function setReplicasAnnotations(annotations: Record<string, string>, desired: number, max: number): boolean {
  let changed = false;
  if (annotations[desiredReplicasAnnotation] !== String(desired)) {
    annotations[desiredReplicasAnnotation] = String(desired);
    changed = true;
  }
  if (annotations[maxReplicasAnnotation] !== String(max)) {
    annotations[maxReplicasAnnotation] = String(max);
    changed = true;
  }
  return changed;
}

/** Sets the RS's size (and the replica annotations); records "Scaled up|down replica set X from A to B". */
export async function scaleReplicaSet(ctx: SyncContext, rs: ReplicaSet, newScale: number): Promise<ReplicaSet> {
  const d = ctx.d;
  const desired = replicasOf(d);
  const max = desired + maxSurge(d);
  const oldScale = rs.spec?.replicas ?? 0;
  const sizeChanges = oldScale !== newScale;
  const annotations = { ...(rs.metadata?.annotations ?? {}) };
  const annotationsChange = setReplicasAnnotations(annotations, desired, max);
  if (!sizeChanges && !annotationsChange) return rs;
  const updated = await ctx.updateReplicaSet(rs, (cur) => ({
    ...cur,
    metadata: { ...cur.metadata, annotations: { ...(cur.metadata?.annotations ?? {}), ...annotations } },
    spec: { ...cur.spec!, replicas: newScale },
  }));
  if (sizeChanges) ctx.event('Normal', 'ScalingReplicaSet', `Scaled ${oldScale < newScale ? 'up' : 'down'} replica set ${rs.metadata?.name} from ${oldScale} to ${newScale}`);
  return updated;
}

/** Scales when the size differs; returns whether it did and the RS as written. */
export async function scaleAndRecord(ctx: SyncContext, rs: ReplicaSet, newScale: number): Promise<{ scaled: boolean; rs: ReplicaSet }> {
  const cur = rs.spec?.replicas ?? 0;
  if (cur === newScale) return { scaled: false, rs };
  return { scaled: true, rs: await scaleReplicaSet(ctx, rs, newScale) };
}

function maxReplicasOf(rs: ReplicaSet): number | undefined {
  const v = rs.metadata?.annotations?.[maxReplicasAnnotation];
  if (v === undefined) return undefined;
  const n = Number.parseInt(v, 10);
  return Number.isFinite(n) ? n : undefined;
}

/** The RS's share of a size change: its size scaled by new total / total it was sized for, minus its size. */
function fraction(rs: ReplicaSet, d: Deployment): number {
  const want = replicasOf(d);
  if (want === 0) return -(rs.spec?.replicas ?? 0);
  const total = want + maxSurge(d);
  const annotated = maxReplicasOf(rs) || d.status?.replicas || 0;
  if (annotated === 0) return 0;
  return Math.round(((rs.spec?.replicas ?? 0) * total) / annotated) - (rs.spec?.replicas ?? 0);
}

function proportion(rs: ReplicaSet, d: Deployment, toAdd: number, added: number): number {
  if ((rs.spec?.replicas ?? 0) === 0 || toAdd === 0 || toAdd === added) return 0;
  const f = fraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(f, allowed) : Math.max(f, allowed);
}

/** The only active RS, or with none active the newest one; undefined when several are active. */
function activeOrLatest(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): ReplicaSet | undefined {
  const all = [...oldRSs, ...(newRS ? [newRS] : [])];
  const active = activeReplicaSets(all);
  if (active.length === 1) return active[0];
  if (active.length === 0) {
    if (newRS) return newRS;
    return [...all].sort((a, b) => (Date.parse(b.metadata?.creationTimestamp ?? '') || 0) - (Date.parse(a.metadata?.creationTimestamp ?? '') || 0))[0];
  }
  return undefined;
}

/** Brings the ReplicaSets to the deployment's size without advancing a rollout (scaling events, paused). */
export async function scale(ctx: SyncContext, newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): Promise<void> {
  const d = ctx.d;
  const want = replicasOf(d);
  const only = activeOrLatest(newRS, oldRSs);
  if (only) {
    if ((only.spec?.replicas ?? 0) !== want) await scaleAndRecord(ctx, only, want);
    return;
  }
  // A saturated new RS (all of spec.replicas, all available) means the old ones can go.
  if (newRS && (newRS.spec?.replicas ?? 0) === want && newRS.metadata?.annotations?.[desiredReplicasAnnotation] === String(want)
    && (newRS.status?.availableReplicas ?? 0) === want) {
    for (const old of activeReplicaSets(oldRSs)) await scaleAndRecord(ctx, old, 0);
    return;
  }
  if (!isRollingUpdate(d)) return;
  const all = activeReplicaSets([...oldRSs, ...(newRS ? [newRS] : [])]);
  const current = specReplicas(all);
  const allowed = want > 0 ? want + maxSurge(d) : 0;
  const toAdd = allowed - current;
  // Equal sizes: scaling up favours the newer ReplicaSet, scaling down the older one.
  if (toAdd > 0) all.sort(bySizeNewer);
  else if (toAdd < 0) all.sort(bySizeOlder);
  const sizes = new Map<ReplicaSet, number>();
  let added = 0;
  for (const rs of all) {
    const p = toAdd !== 0 ? proportion(rs, d, toAdd, added) : 0;
    sizes.set(rs, (rs.spec?.replicas ?? 0) + p);
    added += p;
  }
  for (const [i, rs] of all.entries()) {
    let size = sizes.get(rs) ?? 0;
    // Leftovers go to (or come from) the largest ReplicaSet.
    if (i === 0 && toAdd !== 0) size = Math.max(0, size + toAdd - added);
    await scaleReplicaSet(ctx, rs, size);
  }
}
