// What the DaemonSet controller decides per node (upstream podsShouldBeOnNode): create a pod where one belongs
// and none exists, delete failed (with backoff) and succeeded pods, prune extra pods, and delete pods from nodes
// the set may no longer run on.
import type { DaemonSet } from '../../generated/k8s/apps/v1.js';
import type { Node, Pod } from '../../generated/k8s/core/v1.js';
import { isPodReady } from '../../machinery/conditions.js';
import { isPodAvailable } from '../workload/pod-state.js';
import { revisionHashLabel } from '../workload/history.js';
import { placement } from './eligibility.js';
import { rollingLimits } from './rolling-update.js';
import { byAge } from './status.js';

/** Per-node exponential backoff for deleting failed daemon pods (upstream: 1 s doubling to 15 min). */
export class FailedPodBackoff {
  private readonly entries = new Map<string, { delayMs: number; lastMs: number }>();
  constructor(private readonly initialMs = 1000, private readonly maxMs = 15 * 60 * 1000) {}

  /** Milliseconds left in the current backoff window, or 0 when a delete may proceed now. */
  remaining(key: string, nowMs: number): number {
    const e = this.entries.get(key);
    if (!e) return 0;
    const left = e.lastMs + e.delayMs - nowMs;
    return left > 0 ? left : 0;
  }

  /** Records a delete: the next window doubles, or starts over when the last one is long past. */
  next(key: string, nowMs: number): void {
    const e = this.entries.get(key);
    if (!e || nowMs - e.lastMs > 2 * this.maxMs) this.entries.set(key, { delayMs: this.initialMs, lastMs: nowMs });
    else this.entries.set(key, { delayMs: Math.min(e.delayMs * 2, this.maxMs), lastMs: nowMs });
    if (this.entries.size > 10_000) this.entries.delete(this.entries.keys().next().value as string);
  }
}

export interface NodeDecision {
  create: boolean;
  delete: Pod[];
  /** Failed pods waiting out their backoff: sync again after this many ms. */
  retryInMs?: number;
  /** Events to record on the set: [type, reason, message]. */
  events: Array<['Normal' | 'Warning', string, string]>;
}

export function decideNode(ds: DaemonSet, node: Node, pods: Pod[], hash: string, nowMs: number, backoff: FailedPodBackoff): NodeDecision {
  const { shouldRun, shouldContinueRunning } = placement(node, ds);
  const nodeName = node.metadata?.name ?? '';
  const out: NodeDecision = { create: false, delete: [], events: [] };
  if (shouldRun && !pods.length) {
    out.create = true;
    return out;
  }
  if (!pods.length) return out;
  if (!shouldContinueRunning) {
    out.delete = pods.filter((p) => !p.metadata?.deletionTimestamp);
    return out;
  }
  const ns = ds.metadata?.namespace ?? '';
  const running: Pod[] = [];
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const name = `${ns}/${pod.metadata?.name}`;
    if (pod.status?.phase === 'Failed') {
      const key = `${ds.metadata?.uid}/${ds.status?.observedGeneration ?? 0}/${nodeName}`;
      const left = backoff.remaining(key, nowMs);
      if (left > 0) {
        out.retryInMs = Math.min(out.retryInMs ?? left, left);
        continue;
      }
      backoff.next(key, nowMs);
      out.events.push(['Warning', 'FailedDaemonPod', `Found failed daemon pod ${name} on node ${nodeName}, will try to kill it`]);
      out.delete.push(pod);
    } else if (pod.status?.phase === 'Succeeded') {
      out.events.push(['Normal', 'SucceededDaemonPod', `Found succeeded daemon pod ${name} on node ${nodeName}, will try to delete it`]);
      out.delete.push(pod);
    } else {
      running.push(pod);
    }
  }
  running.sort(byAge);
  const surge = rollingLimits(ds, 1).maxSurge > 0;
  if (!surge) {
    out.delete.push(...running.slice(1));
    return out;
  }
  if (running.length === 0) {
    out.create = shouldRun;
    return out;
  }
  if (running.length === 1) return out;
  // Surging: keep the oldest new and the oldest old pod while the new one is not yet available.
  let oldestNew: Pod | undefined;
  let oldestOld: Pod | undefined;
  for (const pod of running) {
    const isNew = pod.metadata?.labels?.[revisionHashLabel] === hash;
    if (isNew && !oldestNew) oldestNew = pod;
    else if (!isNew && !oldestOld) oldestOld = pod;
    else out.delete.push(pod);
  }
  if (oldestNew && oldestOld && (!isPodReady(oldestOld) || isPodAvailable(oldestNew, ds.spec?.minReadySeconds ?? 0, nowMs))) out.delete.push(oldestOld);
  return out;
}
