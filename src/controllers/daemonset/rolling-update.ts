// The RollingUpdate strategy: which old daemon pods to delete (maxUnavailable) or which nodes get a new pod next
// to the old one (maxSurge), as upstream's rollingUpdate decides. Pure: the controller carries out the plan.
//
// One deliberate difference: a node the DaemonSet no longer wants to schedule onto (typically a NotReady or
// unreachable node, whose NoSchedule taint daemon pods do not tolerate) does not hold the rollout back. Its
// unavailable old pod is deleted without counting against maxUnavailable, and a pod stuck terminating there
// (its kubelet is gone) is not counted either, so the update finishes on the other nodes. Upstream counts both
// and can stall until the node returns or is removed.
import type { DaemonSet } from '../../generated/k8s/apps/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import { isPodAvailable } from '../workload/pod-state.js';
import { isPodUpdated } from './template.js';

export interface RollingPlan {
  deletePods: Pod[];
  createOnNodes: string[];
}

/** An int-or-percent against a total; percentages round up (upstream GetScaledValueFromIntOrPercent with roundUp). */
export function scaledValue(v: number | string | undefined, total: number): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) return Number(v) || 0;
  return Math.ceil((Number(m[1]) * total) / 100);
}

/** maxSurge and maxUnavailable for `desired` nodes; both 0 falls back to maxUnavailable 1, as upstream does. */
export function rollingLimits(ds: DaemonSet, desired: number): { maxSurge: number; maxUnavailable: number } {
  const ru = ds.spec?.updateStrategy?.type === 'RollingUpdate' ? ds.spec.updateStrategy.rollingUpdate : undefined;
  const maxSurge = scaledValue(ru?.maxSurge as number | string | undefined, desired);
  let maxUnavailable = scaledValue(ru?.maxUnavailable as number | string | undefined, desired);
  if (desired > 0 && maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

/** The one new and one old pod on a node (pods being deleted ignored); ok is false when there are more of either. */
function splitNode(ds: DaemonSet, pods: Pod[], hash: string): { newPod?: Pod; oldPod?: Pod; ok: boolean } {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const p of pods) {
    if (p.metadata?.deletionTimestamp) continue;
    if (isPodUpdated(p, hash, ds)) {
      if (newPod) return { ok: false };
      newPod = p;
    } else {
      if (oldPod) return { ok: false };
      oldPod = p;
    }
  }
  return { newPod, oldPod, ok: true };
}

export interface RollingInput {
  ds: DaemonSet;
  hash: string;
  nowMs: number;
  /** Daemon pods by target node, including an empty entry for every node that should run one. */
  byNode: Map<string, Pod[]>;
  /** Nodes that should run a daemon pod (shouldRun). */
  wanted: Set<string>;
}

export function planRollingUpdate(input: RollingInput): RollingPlan {
  const { ds, hash, nowMs, byNode, wanted } = input;
  const { maxSurge, maxUnavailable } = rollingLimits(ds, wanted.size);
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const available = (p: Pod) => isPodAvailable(p, minReady, nowMs);
  const nodes = [...byNode.keys()].sort();

  if (maxSurge === 0) {
    let unavailable = 0;
    const replace: Pod[] = [];
    const candidates: Pod[] = [];
    for (const node of nodes) {
      const { newPod, oldPod, ok } = splitNode(ds, byNode.get(node) ?? [], hash);
      const isWanted = wanted.has(node);
      if (!ok) {
        unavailable++;
        continue;
      }
      if ((!oldPod && !newPod) || (oldPod && newPod)) {
        if (isWanted || (oldPod && newPod)) unavailable++;
      } else if (newPod) {
        if (!available(newPod)) unavailable++;
      } else if (oldPod && !available(oldPod)) {
        replace.push(oldPod);
        if (isWanted) unavailable++;
      } else if (oldPod && unavailable < maxUnavailable) {
        candidates.push(oldPod);
      }
    }
    const room = Math.min(Math.max(0, maxUnavailable - unavailable), candidates.length);
    return { deletePods: [...replace, ...candidates.slice(0, room)], createOnNodes: [] };
  }

  const deletePods: Pod[] = [];
  const notWantedOld: Pod[] = [];
  const allowedNew: string[] = [];
  const candidateNew: string[] = [];
  let surge = 0;
  let numAvailable = 0;
  for (const node of nodes) {
    const { newPod, oldPod, ok } = splitNode(ds, byNode.get(node) ?? [], hash);
    if (!ok) {
      surge++;
      continue;
    }
    if (oldPod ? available(oldPod) : newPod ? available(newPod) : false) numAvailable++;
    if (!oldPod) continue;
    if (!newPod) {
      if (!available(oldPod)) {
        if (!wanted.has(node)) deletePods.push(oldPod);
        else allowedNew.push(node);
      } else if (!wanted.has(node)) {
        notWantedOld.push(oldPod);
      } else if (surge < maxSurge) {
        candidateNew.push(node);
      }
      continue;
    }
    if (!available(newPod)) {
      surge++;
      continue;
    }
    deletePods.push(oldPod);
  }
  // Pods on nodes the set left go only once enough pods elsewhere are available.
  const deletable = Math.min(numAvailable - wanted.size, notWantedOld.length);
  if (deletable > 0) deletePods.push(...notWantedOld.slice(0, deletable));
  const room = Math.min(Math.max(0, maxSurge - surge), candidateNew.length);
  return { deletePods, createOnNodes: [...allowedNew, ...candidateNew.slice(0, room)] };
}
