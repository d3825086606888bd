// Pod garbage collection: force-deletes pods bound to nodes that no longer exist (after a quarantine), terminating
// pods that were never scheduled, terminating pods on out-of-service nodes, and the oldest terminated pods above
// a threshold. Upstream: pkg/controller/podgc.
import type { Node, Pod } from '../generated/k8s/core/v1.js';
import { isNodeReady } from '../machinery/conditions.js';
import type { KObject } from '../machinery/types.js';
import type { Client } from '../client/client.js';
import { rfc3339, type Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { nodeTaints, taintKeys } from './node-taints.js';

export const gcCheckPeriodMs = 20_000;
export const quarantineMs = 40_000;
export const terminatedPodThreshold = 12_500;

const isTerminated = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

export class PodGcController {
  /** Names of missing nodes pods are bound to, with the clock time they were first found missing. */
  private readonly missingSince = new Map<string, number>();
  private readonly stopTimer: () => void;

  constructor(private readonly client: Client, private readonly clock: Clock, private readonly log: Logger) {
    this.stopTimer = clock.setInterval(() => {
      try {
        this.gc();
      } catch (err) {
        this.log.warn({ err }, 'pod gc pass failed');
      }
    }, gcCheckPeriodMs);
  }

  gc(): void {
    const pods = this.client.list('v1/pods');
    const node = (name: string) => this.client.get('v1/nodes', '', name);
    const terminated = pods.filter(isTerminated);
    if (terminated.length > terminatedPodThreshold) {
      const byAge = [...terminated].sort((a, b) => (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? '') || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
      for (const p of byAge.slice(0, terminated.length - terminatedPodThreshold)) this.forceDelete(p, 'terminated pod above the threshold');
    }
    const now = this.clock.nowMs();
    const stillMissing = new Set<string>();
    for (const p of pods) {
      const nodeName = p.spec?.nodeName;
      if (p.metadata?.deletionTimestamp && !nodeName) {
        this.forceDelete(p, 'terminating pod that was never scheduled');
        continue;
      }
      if (!nodeName) continue;
      const n = node(nodeName);
      if (!n) {
        stillMissing.add(nodeName);
        const since = this.missingSince.get(nodeName) ?? now;
        this.missingSince.set(nodeName, since);
        if (now - since >= quarantineMs) {
          this.forceDelete(p, 'orphaned pod', { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' });
        }
        continue;
      }
      if (p.metadata?.deletionTimestamp && !isNodeReady(n) && nodeTaints(n).some((t) => t.key === taintKeys.outOfService)) {
        this.forceDelete(p, 'terminating pod on an out-of-service node');
      }
    }
    for (const name of [...this.missingSince.keys()]) if (!stillMissing.has(name)) this.missingSince.delete(name);
  }

  /** Marks the pod Failed (with the condition) unless it already ended, then deletes it with no grace period. */
  private forceDelete(p: Pod, why: string, condition?: Record<string, string>): void {
    const ns = p.metadata?.namespace ?? '';
    const name = p.metadata?.name ?? '';
    const uid = p.metadata?.uid;
    const def = this.client.resource('v1/pods')!;
    this.log.debug({ pod: `${ns}/${name}`, why }, 'pod gc force-deletes a pod');
    try {
      if (!isTerminated(p)) {
        const stamp = rfc3339(this.clock.now());
        this.client.guaranteedUpdate(def, ns, name, (cur: KObject) => {
          const st = (cur.status ?? {}) as { conditions?: Array<Record<string, unknown>> };
          let conditions = st.conditions;
          if (condition) conditions = [...(conditions ?? []).filter((c) => c.type !== condition.type), { ...condition, lastTransitionTime: stamp }];
          return { ...cur, status: { ...st, phase: 'Failed', ...(conditions ? { conditions } : {}) } };
        }, { subresource: 'status' });
      }
      this.client.delete(def, ns, name, { gracePeriodSeconds: 0, preconditions: { uid } });
    } catch (err) {
      this.log.debug({ err, pod: `${ns}/${name}` }, 'pod gc deletion failed');
    }
  }

  stop(): void {
    this.stopTimer();
  }
}
