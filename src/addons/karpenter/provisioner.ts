// The provisioner (kubernetes-sigs/karpenter pkg/controllers/provisioning): pods the scheduler marked Unschedulable
// are batched (the batch closes after `batchIdleSeconds` without a new pod, or `batchMaxSeconds` after it opened,
// on the clock), simulated against the nodes and in-flight NodeClaims, and the NodeClaims the simulation plans are
// created. Pods are nominated to where they should go (event `Nominated`), pods that fit nowhere get
// `FailedScheduling` from karpenter with the reason.
import type { DaemonSet } from '../../generated/k8s/apps/v1.js';
import type { Node, Pod } from '../../generated/k8s/core/v1.js';
import type { Client } from '../../client/client.js';
import { amounts, type ResourceAmounts } from '../../machinery/resources.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { chooseLaunch } from './cloud.js';
import type { KarpenterDeps } from './deps.js';
import { condition, isTrue } from './lifecycle.js';
import { nodeClaimFor } from './nodeclaims.js';
import { podKey, sum, typeCompatible } from './scheduling/fit.js';
import { fromNodeSelector, singleValueLabels } from './scheduling/requirements.js';
import { poolRequirements, simulate } from './scheduling/simulate.js';
import type { SimNode } from './scheduling/types.js';
import { conditionTypes as ct, disruptedTaint, kwokNodeClassesRef, labels as wk, nodeClaimsRef, nodePoolsRef, podsRef, unregisteredTaint, type NodeClaim, type NodePool } from './types.js';
import { defineController, type ControllerContext, type Reconciler } from '../../controllers/runtime/index.js';
import { keyOf, splitKey } from '../../machinery/object-key.js';

const maxNominations = 100_000;
/**
 * How long (clock) a nomination holds once its claim is Initialized: the scheduler's chance to bind the pod there.
 * Then the pod counts as pending again (the next simulation sees the node as it is, so it only adds capacity when
 * the node is truly full).
 */
const nominationGraceMs = 5_000;

interface Nomination {
  claim: string;
  at: number;
  /** The pod's uid: a pod deleted and made again under its name (a StatefulSet's) is not nominated. */
  uid: string | undefined;
}

export function isProvisionable(p: Pod): boolean {
  if (p.spec?.nodeName || p.metadata?.deletionTimestamp || (p.status?.phase && p.status.phase !== 'Pending')) return false;
  if (p.metadata?.ownerReferences?.some((o) => o.controller && o.kind === 'DaemonSet')) return false;
  return p.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable') ?? false;
}

const provisionKey = 'provision';
const triggerKey = 'trigger';
const recheckKey = 'recheck';
const podPrefix = 'pod:';

/**
 * The provisioner on the controller runtime: a provisionable pod or a NodePool change queues `trigger`, which opens
 * (or extends) the batch, a requeue of `provision` at the batch's end; `recheck` runs when held nominations run out;
 * `pod:<key>` drops the nomination of a pod bound or gone.
 */
export const provisionerController = (deps: KarpenterDeps, started: (p: Provisioner) => void) => defineController({
  name: 'karpenter-provisioner',
  watches: [
    { resource: podsRef, when: (c) => c.type !== 'DELETED' && isProvisionable(c.object as Pod), map: () => [triggerKey] },
    { resource: podsRef, when: (c) => c.type === 'DELETED' || !!(c.object as Pod).spec?.nodeName, map: (c) => [podPrefix + keyOf(c.object)] },
    { resource: nodePoolsRef, map: () => [triggerKey] },
  ],
  initialKeys: () => (deps.pods.list().some(isProvisionable) ? [triggerKey] : []),
  setup: ({ client, clock, log, queue }) => {
    const p = new Provisioner(client, clock, log, deps, queue);
    started(p);
    return p;
  },
});

export class Provisioner implements Reconciler {
  private readonly nominations = new Map<string, Nomination>();
  private batchStart: number | undefined;
  private stopped = false;

  constructor(private readonly client: Client, private readonly clock: Clock, private readonly log: Logger, private readonly deps: KarpenterDeps, private readonly queue: ControllerContext['queue']) {}

  reconcile(key: string): void | Promise<void> {
    if (key === provisionKey) return this.fire();
    if (key === triggerKey) return this.trigger();
    if (key === recheckKey) {
      this.recheckAt = Infinity;
      return this.trigger();
    }
    if (key.startsWith(podPrefix)) {
      const { namespace, name } = splitKey(key.slice(podPrefix.length));
      const p = this.deps.pods.get(namespace, name);
      if (!p || p.spec?.nodeName) this.nominations.delete(key.slice(podPrefix.length));
      // A pod made again under its name drops the nomination of the pod before it.
      else this.nominationOf(p);
    }
  }

  /** The pod's nomination, if it was made for this pod (a record of an earlier pod of the name is dropped). */
  private nominationOf(p: Pod): Nomination | undefined {
    const key = podKey(p);
    const n = this.nominations.get(key);
    if (n && n.uid !== p.metadata?.uid) {
      this.nominations.delete(key);
      return undefined;
    }
    return n;
  }

  /** The NodeClaims pending pods are nominated to now (disruption leaves them alone, as upstream). */
  nominatedClaims(): Set<string> {
    // Held nominations only: a bound or deleted pod, or one whose nomination ran out, has left the map.
    return new Set([...this.nominations.values()].map((n) => n.claim));
  }

  stop(): void {
    this.stopped = true;
  }

  /** Opens (or extends) a batch: it closes `batchIdleSeconds` after the last trigger, `batchMaxSeconds` at most. */
  trigger(): void {
    if (this.stopped) return;
    const s = this.deps.settings;
    const now = this.clock.now().getTime();
    this.batchStart ??= now;
    this.queue.addAfter(provisionKey, Math.max(0, Math.min(s.batchIdleSeconds * 1000, this.batchStart + s.batchMaxSeconds * 1000 - now)));
  }

  private async fire(): Promise<void> {
    this.batchStart = undefined;
    try {
      await this.provision();
    } catch (err) {
      this.log.warn({ err }, 'provisioning failed');
    }
  }

  private nominatedClaim(p: Pod, claims: Map<string, NodeClaim>, now: number): string | undefined {
    const n = this.nominationOf(p);
    if (!n) return undefined;
    const c = claims.get(n.claim);
    if (!c || c.metadata.deletionTimestamp) {
      this.nominations.delete(podKey(p));
      return undefined;
    }
    if (isTrue(c, ct.initialized)) {
      const since = Math.max(n.at, Date.parse(condition(c, ct.initialized)?.lastTransitionTime ?? '') || 0);
      const left = since + nominationGraceMs - now;
      if (left <= 0) {
        this.nominations.delete(podKey(p));
        return undefined;
      }
      this.recheckIn(left);
    }
    return n.claim;
  }

  /** One provisioning pass; returns the names of the NodeClaims created. */
  async provision(): Promise<string[]> {
    const now = this.clock.now().getTime();
    const claims = new Map(this.deps.nodeClaims.list().map((c) => [c.metadata.name ?? '', c]));
    const nominatedTo = new Map<string, Pod[]>();
    const pending: Pod[] = [];
    for (const p of this.deps.pods.list()) {
      if (p.spec?.nodeName) continue;
      const claim = this.nominatedClaim(p, claims, now);
      if (claim) {
        const list = nominatedTo.get(claim) ?? [];
        list.push(p);
        nominatedTo.set(claim, list);
      } else if (isProvisionable(p)) {
        pending.push(p);
      }
    }
    if (!pending.length) return [];
    const classes = new Set(this.client.list(kwokNodeClassesRef).map((c) => c.metadata.name));
    const pools = this.deps.nodePools.list().filter((p) => !p.metadata.deletionTimestamp && classes.has(p.spec?.template?.spec?.nodeClassRef?.name));
    if (!pools.length) return []; // no NodePool (or none with its node class): Karpenter has nothing to say
    for (const pool of pools) {
      const reqs = poolRequirements(pool);
      if (!this.deps.catalog.all().some((t) => typeCompatible(t, reqs))) {
        this.deps.events.event(pool, 'Warning', 'NoCompatibleInstanceTypes', 'NodePool requirements filtered out all compatible available instance types');
      }
    }
    const nodes = this.simNodes(claims, nominatedTo);
    const daemonSets = this.client.list<DaemonSet>('apps/v1/daemonsets').map((d) => ({ metadata: { namespace: d.metadata?.namespace, labels: d.spec?.template?.metadata?.labels }, spec: d.spec?.template?.spec }) as Pod);
    const result = simulate({ pods: pending, nodes, pools, catalog: this.deps.catalog, daemonSets, poolUsage: this.poolUsage(claims.values()) });
    const created: string[] = [];
    const date = this.clock.now();
    for (const plan of result.newClaims) {
      const claim = await this.client.create<NodeClaim>(nodeClaimsRef, '', nodeClaimFor(plan, date));
      const name = claim.metadata.name ?? '';
      created.push(name);
      for (const p of plan.pods) await this.nominate(p, name, undefined, now);
    }
    for (const [nodeName, pods] of result.existing) {
      const claim = claims.get(nodeName);
      for (const p of pods) await this.nominate(p, claim ? nodeName : undefined, this.deps.nodes.get('', nodeName) ? nodeName : undefined, now);
    }
    for (const [key, reason] of result.failures) {
      const p = pending.find((x) => podKey(x) === key);
      if (p) this.deps.events.event(p, 'Warning', 'FailedScheduling', `Failed to schedule pod, ${reason}`);
    }
    if (created.length) this.log.info({ nodeClaims: created.length, pods: pending.length }, 'created nodeclaims');
    return created;
  }

  private recheckAt = Infinity;

  /** A provisioning pass once held nominations run out (a requeue, not a blind retry). */
  private recheckIn(ms: number): void {
    const at = this.clock.now().getTime() + ms;
    if (at >= this.recheckAt) return;
    this.recheckAt = at;
    this.queue.addAfter(recheckKey, ms + 10);
  }

  private async nominate(p: Pod, claim: string | undefined, node: string | undefined, now: number): Promise<void> {
    const info = [claim && `nodeclaim/${claim}`, node && `node/${node}`].filter(Boolean).join(', ');
    if (!info) return;
    this.deps.events.event(p, 'Normal', 'Nominated', `Pod should schedule on: ${info}`);
    if (claim) {
      if (this.nominations.size >= maxNominations) this.nominations.delete(this.nominations.keys().next().value as string);
      this.nominations.set(podKey(p), { claim, at: now, uid: p.metadata?.uid });
    }
    // Pods going to an existing, schedulable node can say so now; those going to a launching claim say so when its
    // node is about to take pods (expectPlacements, from the lifecycle), as a failed attempt clears the field.
    if (node && !claim) await this.expectPlacement(p, node);
  }

  /** Writes the expected placement of every pod nominated to `claim` (its node is about to accept pods). */
  async expectPlacements(claim: string): Promise<void> {
    let n = 0;
    for (const [key, nom] of this.nominations) {
      if (nom.claim !== claim) continue;
      const i = key.indexOf('/');
      const p = this.deps.pods.get(key.slice(0, i), key.slice(i + 1));
      if (p && !p.spec?.nodeName && this.nominationOf(p)) {
        await this.expectPlacement(p, claim);
        n++;
      }
    }
    this.log.debug({ nodeClaim: claim, pods: n }, 'expected placements written');
  }

  /**
   * Writes the expected placement into the pod's status.nominatedNodeName (KEP-5278: components that know where a
   * pod will go may say so). The scheduler tries that node first and keeps its room for the pod, so pods land where
   * the simulation packed them instead of being spread over the new nodes (which would leave some without room).
   */
  private async expectPlacement(p: Pod, nodeName: string): Promise<void> {
    const ns = p.metadata?.namespace ?? '';
    const name = p.metadata?.name ?? '';
    try {
      await this.client.guaranteedUpdate('v1/pods', ns, name, (cur) => {
        const status = (cur.status ?? {}) as NonNullable<Pod['status']>;
        if ((cur.spec as Pod['spec'])?.nodeName || status.nominatedNodeName === nodeName) return cur;
        return { ...cur, status: { ...status, nominatedNodeName: nodeName } };
      }, { subresource: 'status' });
    } catch (err) {
      this.log.debug({ err, pod: `${ns}/${name}` }, 'writing the expected placement failed');
    }
  }

  /** Nodes and in-flight claims as the simulation sees them. */
  private simNodes(claims: Map<string, NodeClaim>, nominatedTo: Map<string, Pod[]>): SimNode[] {
    const out: SimNode[] = [];
    const seen = new Set<string>();
    for (const n of this.deps.nodes.list()) {
      const name = n.metadata?.name ?? '';
      seen.add(name);
      const claim = claims.get(name);
      const startup = new Set((claim?.spec.startupTaints ?? []).map((t) => t.key));
      const taints = (n.spec?.taints ?? []).filter((t) => t.key !== unregisteredTaint.key && !startup.has(t.key) && !(claim && t.key.startsWith('node.kubernetes.io/not-ready')));
      out.push({
        name, nodeClaim: claim ? name : undefined, pool: n.metadata?.labels?.[wk.nodePool], labels: n.metadata?.labels ?? {}, taints,
        allocatable: amounts(n.status?.allocatable as Record<string, unknown> | undefined),
        pods: [...this.deps.pods.byIndex('node', name).filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed'), ...(nominatedTo.get(name) ?? [])],
        unschedulable: !!n.metadata?.deletionTimestamp || !!n.spec?.unschedulable || !!claim?.metadata.deletionTimestamp || taints.some((t) => t.key === disruptedTaint.key),
      });
    }
    for (const [name, c] of claims) {
      if (seen.has(name) || c.metadata.deletionTimestamp) continue;
      let allocatable: ResourceAmounts | undefined = c.status?.allocatable ? amounts(c.status.allocatable) : undefined;
      let labels = c.metadata.labels ?? {};
      if (!allocatable) {
        const l = chooseLaunch(c, this.deps.catalog);
        if (!l) continue;
        allocatable = amounts(l.type.allocatable);
        labels = { ...singleValueLabels(fromNodeSelector(c.spec.requirements)), ...labels };
      }
      out.push({ name, nodeClaim: name, pool: labels[wk.nodePool], labels, taints: c.spec.taints ?? [], allocatable, pods: nominatedTo.get(name) ?? [] });
    }
    return out;
  }

  private poolUsage(claims: Iterable<NodeClaim>): Map<string, ResourceAmounts> {
    const out = new Map<string, ResourceAmounts>();
    for (const c of claims) {
      const pool = c.metadata.labels?.[wk.nodePool];
      if (!pool) continue;
      let cap: ResourceAmounts | undefined = c.status?.capacity ? amounts(c.status.capacity) : undefined;
      if (!cap) {
        const l = chooseLaunch(c, this.deps.catalog);
        cap = l ? amounts(l.type.capacity) : {};
      }
      out.set(pool, sum(out.get(pool) ?? {}, { ...cap, nodes: 1 }));
    }
    return out;
  }
}

export type { Node, NodePool };
