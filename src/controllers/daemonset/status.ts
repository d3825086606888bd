// DaemonSet status counters, counted per node as upstream's updateDaemonSetStatus does: desired nodes, nodes with
// a pod, pods on nodes that should not run one, and the oldest pod's readiness, availability and revision.
import type { DaemonSet, DaemonSetStatus } from '../../generated/k8s/apps/v1.js';
import type { Node, Pod } from '../../generated/k8s/core/v1.js';
import { isPodReady } from '../../machinery/conditions.js';
import { isPodAvailable, msUntilAvailable } from '../workload/pod-state.js';
import { placement } from './eligibility.js';
import { isPodUpdated } from './template.js';

/** Bound pods first, then oldest first, then by name (upstream podByCreationTimestampAndPhase). */
export function byAge(a: Pod, b: Pod): number {
  const ba = a.spec?.nodeName ? 0 : 1;
  const bb = b.spec?.nodeName ? 0 : 1;
  if (ba !== bb) return ba - bb;
  const ta = Date.parse(a.metadata?.creationTimestamp ?? '') || 0;
  const tb = Date.parse(b.metadata?.creationTimestamp ?? '') || 0;
  if (ta !== tb) return ta - tb;
  return (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
}

export interface StatusResult {
  status: DaemonSetStatus;
  /** When a ready pod becomes available (minReadySeconds), in ms, so the set is synced again then. */
  recheckInMs?: number;
}

export function computeStatus(ds: DaemonSet, nodes: Node[], byNode: Map<string, Pod[]>, hash: string, nowMs: number, observe: boolean): StatusResult {
  let desired = 0;
  let current = 0;
  let misscheduled = 0;
  let ready = 0;
  let available = 0;
  let updated = 0;
  let recheck: number | undefined;
  const minReady = ds.spec?.minReadySeconds ?? 0;
  for (const node of nodes) {
    const pods = byNode.get(node.metadata?.name ?? '') ?? [];
    if (!placement(node, ds).shouldRun) {
      if (pods.length) misscheduled++;
      continue;
    }
    desired++;
    if (!pods.length) continue;
    current++;
    const pod = [...pods].sort(byAge)[0];
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReady, nowMs)) available++;
      else {
        const left = msUntilAvailable(pod, minReady, nowMs);
        if (left !== undefined) recheck = Math.min(recheck ?? left, left);
      }
    }
    if (isPodUpdated(pod, hash, ds)) updated++;
  }
  const old: DaemonSetStatus = ds.status ?? ({} as DaemonSetStatus);
  const status: DaemonSetStatus = {
    ...(old.collisionCount !== undefined ? { collisionCount: old.collisionCount } : {}),
    ...(old.conditions ? { conditions: old.conditions } : {}),
    currentNumberScheduled: current,
    desiredNumberScheduled: desired,
    numberMisscheduled: misscheduled,
    numberReady: ready,
    ...(available ? { numberAvailable: available } : {}),
    ...(desired - available ? { numberUnavailable: desired - available } : {}),
    ...(updated ? { updatedNumberScheduled: updated } : {}),
  };
  const gen = observe ? ds.metadata?.generation : old.observedGeneration;
  if (gen) status.observedGeneration = gen;
  return { status, recheckInMs: recheck };
}

/** Whether two statuses carry the same counters (the order of keys does not matter). */
export function sameStatus(a: DaemonSetStatus | undefined, b: DaemonSetStatus): boolean {
  const keys: Array<keyof DaemonSetStatus> = ['currentNumberScheduled', 'desiredNumberScheduled', 'numberMisscheduled', 'numberReady', 'numberAvailable', 'numberUnavailable', 'updatedNumberScheduled', 'observedGeneration', 'collisionCount'];
  return !!a && keys.every((k) => (a[k] ?? 0) === (b[k] ?? 0));
}
