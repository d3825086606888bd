// Termination of a deleted NodeClaim, as upstream's node termination controller: taint the node
// karpenter.sh/disrupted:NoSchedule, evict its pods through the eviction API (DaemonSet and mirror pods stay; a PDB's
// 429 is retried), delete the pods outright once the claim's terminationGracePeriod has run out, then delete the
// Node and drop the termination finalizers (node first, then claim).
import type { Node, Pod } from '../../generated/k8s/core/v1.js';
import type { Client } from '../../client/client.js';
import { ApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import { parseGoDuration } from '../../util/duration.js';
import type { Clock } from '../../util/clock.js';
import type { KarpenterDeps } from './deps.js';
import { condition } from './lifecycle.js';
import { conditionTypes as ct, disruptedTaint, nodeClaimsRef, nodesRef, terminationFinalizer, type NodeClaim } from './types.js';

const retryMs = 1000;
const mirrorAnnotation = 'kubernetes.io/config.mirror';

const isDaemonSetPod = (p: Pod) => p.metadata?.ownerReferences?.some((o) => o.controller && o.kind === 'DaemonSet') ?? false;
const isTerminal = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/** Pods a drain waits for: not DaemonSet, not mirror, not finished. */
export function drainable(p: Pod): boolean {
  return !isDaemonSetPod(p) && !p.metadata?.annotations?.[mirrorAnnotation] && !isTerminal(p);
}

function withoutFinalizer(cur: KObject): KObject {
  return { ...cur, metadata: { ...cur.metadata, finalizers: (cur.metadata.finalizers ?? []).filter((f) => f !== terminationFinalizer) } };
}

/** Awaits a write, a 404 (the object gone already) being success. Anything else fails the step, which is retried. */
async function ignoreNotFound(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 404)) throw err;
  }
}

/** One termination step; returns the ms after which to look again (or nothing when done). */
export async function terminate(client: Client, clock: Clock, deps: KarpenterDeps, claim: NodeClaim, node: Node | undefined): Promise<number | undefined> {
  const name = claim.metadata.name ?? '';
  if (node) {
    const taints = node.spec?.taints ?? [];
    if (!taints.some((t) => t.key === disruptedTaint.key && t.effect === disruptedTaint.effect)) {
      await client.guaranteedUpdate(nodesRef, '', name, (cur) => ({ ...cur, spec: { ...(cur.spec as object), taints: [...(((cur.spec as Node['spec'])?.taints) ?? []), { ...disruptedTaint }] } }));
    }
    const pods = deps.pods.byIndex('node', name).filter(drainable);
    if (pods.length) {
      const now = clock.now().getTime();
      const grace = claim.spec.terminationGracePeriod ? parseGoDuration(claim.spec.terminationGracePeriod) : undefined;
      const deadline = grace !== undefined && claim.metadata.deletionTimestamp ? Date.parse(claim.metadata.deletionTimestamp) + grace : undefined;
      const reason = condition(claim, ct.disruptionReason)?.status === 'True' ? condition(claim, ct.disruptionReason)!.reason : 'Forceful Termination';
      for (const p of pods) {
        if (p.metadata?.deletionTimestamp) continue;
        const ns = p.metadata?.namespace ?? '';
        const pn = p.metadata?.name ?? '';
        if (deadline !== undefined && now >= deadline) {
          await ignoreNotFound(() => client.delete('v1/pods', ns, pn));
          deps.events.event(p, 'Normal', 'Disrupted', `Deleting the pod to accommodate the terminationTime ${new Date(deadline).toISOString()} of the node. The pod was granted 0 seconds of grace-period of its ${p.spec?.terminationGracePeriodSeconds ?? 30} terminationGracePeriodSeconds. This bypasses the PDB of the pod and the do-not-disrupt annotation.`);
          continue;
        }
        const evicted = () => deps.events.event(p, 'Normal', 'Evicted', `Evicted pod: ${reason}`);
        const refused = (err: unknown) => {
          if (err instanceof ApiError && err.code === 429) {
            deps.events.event(node, 'Warning', 'FailedDraining', `Failed to drain node, evicting pod violates a PDB (Pod=${ns}/${pn})`);
          } else if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) {
            throw err;
          }
        };
        try {
          const r = client.services.evictPod(ns, pn);
          // On a store that waits (etcd) the outcome comes later; an unexpected failure is the next pass's to retry.
          if (r instanceof Promise) r.then(evicted, refused).catch(() => undefined);
          else evicted();
        } catch (err) {
          refused(err);
        }
      }
      return deadline !== undefined ? Math.max(1, Math.min(retryMs, deadline - now)) : retryMs;
    }
    if (!node.metadata?.deletionTimestamp) await ignoreNotFound(() => client.delete(nodesRef, '', name));
    await ignoreNotFound(() => client.guaranteedUpdate(nodesRef, '', name, withoutFinalizer));
    return retryMs;
  }
  await ignoreNotFound(() => client.guaranteedUpdate(nodeClaimsRef, '', name, withoutFinalizer));
  return undefined;
}
