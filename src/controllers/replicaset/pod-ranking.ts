// Which pods a ReplicaSet removes first when it scales down, in the order upstream's ActivePodsWithRanks sorts:
// unassigned before assigned, Pending before Unknown before Running, not ready before ready, lower
// pod-deletion-cost first, pods doubled up on a node with related pods first, ready for less time first (on a
// logarithmic scale), more restarts first, newer first (logarithmic scale again), then by uid.
import type { Pod } from '../../generated/k8s/core/v1.js';
import { isPodReady } from '../../machinery/conditions.js';
import { podReadySince } from '../workload/pod-state.js';

export const podDeletionCostAnnotation = 'controller.kubernetes.io/pod-deletion-cost';

const phaseOrder: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

function deletionCost(p: Pod): number {
  const v = p.metadata?.annotations?.[podDeletionCostAnnotation];
  if (v === undefined) return 0;
  const n = Number(v);
  return Number.isInteger(n) ? n : 0;
}

function maxRestarts(p: Pod): number {
  return (p.status?.containerStatuses ?? []).reduce((m, c) => Math.max(m, c.restartCount ?? 0), 0);
}

/** floor(log2(age in ns)), or -1 for a time at or after now: the bucket two times are compared in. */
function logBucket(atMs: number, nowMs: number): number {
  const ns = (nowMs - atMs) * 1e6;
  return ns > 0 ? Math.floor(Math.log2(ns)) : -1;
}

/** Negative when `a` should go before `b`: the later (newer) time first; an unknown time counts as newest. */
function newerFirst(a: number | undefined, b: number | undefined, nowMs: number, uidA: string, uidB: string): number {
  if (a === b) return 0;
  if (!a || !b) return !a ? -1 : 1;
  const diff = logBucket(a, nowMs) - logBucket(b, nowMs);
  if (diff === 0) return uidA < uidB ? -1 : uidA > uidB ? 1 : 0;
  return diff;
}

/** Compares two pods; negative when `a` should be deleted before `b`. `rank` counts related pods on the same node. */
export function comparePodsForDeletion(a: Pod, b: Pod, rank: Map<Pod, number>, nowMs: number): number {
  const assignedA = !!a.spec?.nodeName;
  const assignedB = !!b.spec?.nodeName;
  if (assignedA !== assignedB) return assignedA ? 1 : -1;
  const phaseA = phaseOrder[a.status?.phase ?? 'Pending'] ?? 0;
  const phaseB = phaseOrder[b.status?.phase ?? 'Pending'] ?? 0;
  if (phaseA !== phaseB) return phaseA - phaseB;
  const readyA = isPodReady(a);
  const readyB = isPodReady(b);
  if (readyA !== readyB) return readyA ? 1 : -1;
  const costA = deletionCost(a);
  const costB = deletionCost(b);
  if (costA !== costB) return costA - costB;
  const rankA = rank.get(a) ?? 0;
  const rankB = rank.get(b) ?? 0;
  if (rankA !== rankB) return rankB - rankA;
  const uidA = a.metadata?.uid ?? '';
  const uidB = b.metadata?.uid ?? '';
  if (readyA && readyB) {
    const byReady = newerFirst(podReadySince(a), podReadySince(b), nowMs, uidA, uidB);
    if (byReady !== 0) return byReady;
  }
  const restartsA = maxRestarts(a);
  const restartsB = maxRestarts(b);
  if (restartsA !== restartsB) return restartsB - restartsA;
  const createdA = a.metadata?.creationTimestamp ? Date.parse(a.metadata.creationTimestamp) : undefined;
  const createdB = b.metadata?.creationTimestamp ? Date.parse(b.metadata.creationTimestamp) : undefined;
  return newerFirst(createdA, createdB, nowMs, uidA, uidB);
}

/**
 * The `count` pods to delete from `pods`. `related` are the pods of sibling ReplicaSets (same controller): a pod
 * sharing its node with many related pods goes first, which spreads what remains.
 */
export function podsToDelete(pods: Pod[], related: Pod[], count: number, nowMs: number): Pod[] {
  if (count >= pods.length) return pods;
  const perNode = new Map<string, number>();
  for (const p of related) {
    const node = p.spec?.nodeName;
    if (node) perNode.set(node, (perNode.get(node) ?? 0) + 1);
  }
  const rank = new Map<Pod, number>();
  for (const p of pods) rank.set(p, p.spec?.nodeName ? perNode.get(p.spec.nodeName) ?? 0 : 0);
  return [...pods].sort((a, b) => comparePodsForDeletion(a, b, rank, nowMs)).slice(0, count);
}
