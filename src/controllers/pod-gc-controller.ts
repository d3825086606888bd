// Pod garbage collection: force-deletes pods bound to nodes that no longer exist (after a quarantine), terminating
// pods that were never scheduled, terminating pods on out-of-service nodes, and the oldest terminated pods above
// a threshold. Upstream: pkg/controller/podgc. A periodic pass over every pod (the quarantine is kept across passes),
// not a per-object reconciler.
import type { Pod, PodCondition } from '../generated/k8s/core/v1.js';
import { isNodeReady } from '../machinery/conditions.js';
import { rfc3339 } from '../util/clock.js';
import { definePeriodic, type ControllerContext } from './runtime/index.js';
import { nodeTaints, taintKeys } from './node-taints.js';

export const gcCheckPeriodMs = 20_000;
export const quarantineMs = 40_000;
export const terminatedPodThreshold = 12_500;

const isTerminated = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

export const podGcController = definePeriodic({
  name: 'pod-garbage-collector',
  periodMs: gcCheckPeriodMs,
  setup: (ctx) => {
    const gc = new PodGc(ctx);
    return () => gc.gc();
  },
});

class PodGc {
  /** Names of missing nodes pods are bound to, with the clock time they were first found missing. */
  private readonly missingSince = new Map<string, number>();

  constructor(private readonly ctx: ControllerContext) {}

  async gc(): Promise<void> {
    const { client } = this.ctx;
    const pods = client.list('v1/pods');
    const terminated = pods.filter(isTerminated);
    if (terminated.length > terminatedPodThreshold) {
      const byAge = [...terminated].sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
      for (const p of byAge.slice(0, terminated.length - terminatedPodThreshold)) await this.forceDelete(p, 'terminated pod above the threshold');
    }
    const now = this.ctx.clock.nowMs();
    const stillMissing = new Set<string>();
    for (const p of pods) {
      const nodeName = p.spec?.nodeName;
      if (p.metadata.deletionTimestamp && !nodeName) {
        await this.forceDelete(p, 'terminating pod that was never scheduled');
        continue;
      }
      if (!nodeName) continue;
      const n = client.get('v1/nodes', '', nodeName);
      if (!n) {
        stillMissing.add(nodeName);
        const since = this.missingSince.get(nodeName) ?? now;
        this.missingSince.set(nodeName, since);
        if (now - since >= quarantineMs) {
          await this.forceDelete(p, 'orphaned pod', { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' });
        }
        continue;
      }
      if (p.metadata.deletionTimestamp && !isNodeReady(n) && nodeTaints(n).some((t) => t.key === taintKeys.outOfService)) {
        await this.forceDelete(p, 'terminating pod on an out-of-service node');
      }
    }
    for (const name of [...this.missingSince.keys()]) if (!stillMissing.has(name)) this.missingSince.delete(name);
  }

  /** Marks the pod Failed (with the condition) unless it already ended, then deletes it with no grace period. */
  private async forceDelete(p: Pod, why: string, condition?: PodCondition): Promise<void> {
    const { client, clock, log } = this.ctx;
    const ns = p.metadata.namespace ?? '';
    const name = p.metadata.name ?? '';
    const uid = p.metadata.uid;
    log.debug({ pod: `${ns}/${name}`, why }, 'pod gc force-deletes a pod');
    try {
      if (!isTerminated(p)) {
        const stamp = rfc3339(clock.now());
        await client.guaranteedUpdate('v1/pods', ns, name, (cur) => {
          const st = (cur.status ?? {}) as NonNullable<Pod['status']>;
          let conditions = st.conditions;
          if (condition) conditions = [...(conditions ?? []).filter((c) => c.type !== condition.type), { ...condition, lastTransitionTime: stamp }];
          return { ...cur, status: { ...st, phase: 'Failed', ...(conditions ? { conditions } : {}) } };
        }, { subresource: 'status' });
      }
      await client.delete('v1/pods', ns, name, { gracePeriodSeconds: 0, preconditions: { uid } });
    } catch (err) {
      log.debug({ err, pod: `${ns}/${name}` }, 'pod gc deletion failed');
    }
  }
}
