// The NodeClaim side of disruption (upstream's nodeclaim/disruption, nodeclaim/expiration and nodeclaim/podevents
// controllers): keeps the Consolidatable and Drifted conditions, deletes expired NodeClaims (forceful, not
// budgeted), and stamps status.lastPodEventTime when a pod is bound to, or leaves, the claim's node.
import type { Pod } from '../../../generated/k8s/core/v1.js';
import type { Client } from '../../../client/client.js';
import type { Change } from '../../../client/types.js';
import { defineController, type ControllerContext } from '../../../controllers/runtime/index.js';
import type { KObject } from '../../../machinery/types.js';
import { rfc3339 } from '../../../util/clock.js';
import type { Clock } from '../../../util/clock.js';
import type { Logger } from '../../../util/logger.js';
import type { KarpenterDeps } from '../deps.js';
import { conditionTypes, labels as wk, nodeClaimsRef, nodePoolsRef, podsRef, type NodeClaim } from '../types.js';
import { condTrue, isTerminal } from './candidates.js';
import { clearCondition, consolidatableAt, driftReason, expiresAt, setTrue } from './claim-conditions.js';
import { syncPoolHash } from './pool-hash.js';

/** Pod events closer together than this are not written again (upstream's dedupe timeout). */
const podEventDedupeMs = 10_000;
/** Drift is re-checked this often even without a change (upstream's requeue). */
const driftRecheckMs = 5 * 60_000;

/** The keys a NodePool change concerns: the pool (unless gone) and its NodeClaims. */
function poolChanged(deps: KarpenterDeps, c: Change): string[] {
  const name = c.object.metadata.name;
  const keys = c.type !== 'DELETED' ? [`pool/${name}`] : [];
  for (const nc of deps.nodeClaims.list()) if (nc.metadata.labels?.[wk.nodePool] === name) keys.push(`claim/${nc.metadata.name}`);
  return keys;
}

/** Bound, turned terminal, started terminating, or deleted while bound: a pod event on its node's claim. */
function podChanged(c: Change): string[] {
  const now = c.object as Pod;
  const before = c.previous as Pod | undefined;
  const node = now.spec?.nodeName;
  if (!node || now.metadata?.ownerReferences?.some((o) => o.kind === 'DaemonSet')) return [];
  const bound = !before?.spec?.nodeName;
  const terminal = isTerminal(now) && !(before && isTerminal(before));
  const terminating = !!now.metadata?.deletionTimestamp && !before?.metadata?.deletionTimestamp;
  return c.type === 'DELETED' || c.type === 'ADDED' || bound || terminal || terminating ? [`pod/${node}`] : [];
}

/** Keys `claim/<name>`, `pool/<name>` and `pod/<node name>`. */
export const claimDisruptionController = (deps: KarpenterDeps) => defineController({
  name: 'karpenter-nodeclaim-disruption',
  watches: [
    { resource: nodeClaimsRef, map: (c) => [`claim/${c.object.metadata.name}`] },
    { resource: nodePoolsRef, map: (c) => poolChanged(deps, c) },
    { resource: podsRef, map: podChanged },
  ],
  initialKeys: () => [...deps.nodeClaims.list().map((nc) => `claim/${nc.metadata.name}`), ...deps.nodePools.list().map((np) => `pool/${np.metadata.name}`)],
  setup: ({ client, clock, log, queue }) => new ClaimDisruptionController(client, clock, log, deps, queue),
});

class ClaimDisruptionController {
  constructor(private readonly client: Client, private readonly clock: Clock, private readonly log: Logger, private readonly deps: KarpenterDeps,
    private readonly queue: ControllerContext['queue']) {}

  async reconcile(key: string): Promise<number | undefined> {
    const slash = key.indexOf('/');
    const kind = key.slice(0, slash);
    const name = key.slice(slash + 1);
    if (kind === 'pod') return this.stampPodEvent(name);
    if (kind === 'pool') {
      const pool = this.deps.nodePools.get('', name);
      if (pool) await syncPoolHash(this.client, this.deps, pool, this.log);
      return undefined;
    }
    return this.reconcileClaim(name);
  }

  private claimOfNode(nodeName: string): NodeClaim | undefined {
    const direct = this.deps.nodeClaims.get('', nodeName);
    if (direct) return direct;
    return this.deps.nodeClaims.list().find((nc) => nc.status?.nodeName === nodeName);
  }

  private async stampPodEvent(nodeName: string): Promise<undefined> {
    const nc = this.claimOfNode(nodeName);
    if (!nc || nc.metadata.deletionTimestamp) return undefined;
    const now = this.clock.nowMs();
    const last = Date.parse(nc.status?.lastPodEventTime ?? '');
    if (Number.isFinite(last) && now - last < podEventDedupeMs) return undefined;
    try {
      await this.client.guaranteedUpdate(nodeClaimsRef, '', nc.metadata.name ?? '', (cur) => {
        const c = cur as NodeClaim;
        return { ...cur, status: { ...(c.status ?? {}), lastPodEventTime: rfc3339(this.clock.now()) } } as KObject;
      }, { subresource: 'status' });
    } catch (err) {
      this.log.debug({ err, nodeClaim: nc.metadata.name }, 'stamping lastPodEventTime failed');
    }
    this.queue.add(`claim/${nc.metadata.name}`);
    return undefined;
  }

  private async reconcileClaim(name: string): Promise<number | undefined> {
    const nc = this.deps.nodeClaims.get('', name);
    if (!nc || nc.metadata.deletionTimestamp) return undefined;
    const now = this.clock.nowMs();
    let requeue = Infinity;

    // Expiration: forceful, as soon as creation + expireAfter has passed.
    const expires = expiresAt(nc);
    if (expires !== undefined) {
      if (expires <= now) {
        this.log.info({ nodeClaim: name }, 'deleting expired nodeclaim');
        try {
          await this.client.delete(nodeClaimsRef, '', name);
        } catch (err) {
          this.log.debug({ err, nodeClaim: name }, 'deleting expired nodeclaim failed');
        }
        return undefined;
      }
      requeue = Math.min(requeue, expires - now);
    }

    const pool = this.deps.nodePools.get('', nc.metadata.labels?.[wk.nodePool] ?? '');
    const conds = nc.status?.conditions ?? [];
    let next = conds;
    const nowIso = rfc3339(this.clock.now());
    if (pool) {
      const at = consolidatableAt(pool, nc);
      if (at !== undefined && at <= now) next = setTrue(next, conditionTypes.consolidatable, 'Consolidatable', '', nowIso);
      else {
        next = clearCondition(next, conditionTypes.consolidatable);
        if (at !== undefined) requeue = Math.min(requeue, at - now);
      }
      const drift = condTrue(nc, conditionTypes.launched) ? driftReason(pool, nc) : undefined;
      next = drift ? setTrue(next, conditionTypes.drifted, drift, drift, nowIso) : clearCondition(next, conditionTypes.drifted);
      requeue = Math.min(requeue, driftRecheckMs);
    } else {
      next = clearCondition(clearCondition(next, conditionTypes.consolidatable), conditionTypes.drifted);
    }
    if (!sameConditions(conds, next)) {
      try {
        await this.client.guaranteedUpdate(nodeClaimsRef, '', name, (cur) => {
          const c = cur as NodeClaim;
          // Merge into the current conditions: other controllers own the rest.
          const mine = new Set<string>([conditionTypes.consolidatable, conditionTypes.drifted]);
          const kept = (c.status?.conditions ?? []).filter((x) => !mine.has(x.type));
          const ours = next.filter((x) => mine.has(x.type));
          return { ...cur, status: { ...(c.status ?? {}), conditions: [...kept, ...ours] } } as KObject;
        }, { subresource: 'status' });
      } catch (err) {
        this.log.debug({ err, nodeClaim: name }, 'updating disruption conditions failed');
        return 1000;
      }
    }
    return Number.isFinite(requeue) ? Math.max(1, requeue) : undefined;
  }
}

function sameConditions(a: readonly { type: string; status: string; reason: string }[], b: readonly { type: string; status: string; reason: string }[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((x) => b.some((y) => y.type === x.type && y.status === x.status && y.reason === x.reason));
}
