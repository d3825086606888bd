// One level-triggered reconcile per NodeClaim: the lifecycle stages (lifecycle.ts) while it lives, termination once
// it is deleted (termination.ts). A Node deleted by a user takes its NodeClaim with it (the node carries the
// termination finalizer, so the claim's termination drains it first).
import type { Node } from '../../generated/k8s/core/v1.js';
import type { Client } from '../../client/client.js';
import { ApiError } from '../../machinery/errors.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { defineController } from '../../controllers/runtime/index.js';
import { keyFor, keyOf, splitKey } from '../../machinery/object-key.js';
import type { KarpenterDeps } from './deps.js';
import { condition, dueIn, initialConditions, isTrue, launched, nextStage, nodeFor, readyCondition, registeredNode, setCondition, type StageContext } from './lifecycle.js';
import { terminate } from './termination.js';
import { conditionTypes as ct, labels as wk, nodeClaimsRef, nodesRef, podsRef, terminationFinalizer, type NodeClaim } from './types.js';

/** One reconcile per NodeClaim (keys `/<name>`): its own changes, its Node's, and pods leaving a terminating one's node. */
export const nodeClaimController = (deps: KarpenterDeps) => defineController({
  name: 'karpenter-nodeclaim',
  for: nodeClaimsRef,
  watches: [
    { resource: nodesRef, map: (c) => (deps.nodeClaims.get('', c.object.metadata.name ?? '') ? [keyOf(c.object)] : []) },
    {
      resource: podsRef,
      map: (c) => {
        const nodeName = (c.object.spec as { nodeName?: string } | undefined)?.nodeName;
        return nodeName && deps.nodeClaims.get('', nodeName)?.metadata.deletionTimestamp ? [keyFor('', nodeName)] : [];
      },
    },
  ],
  setup: ({ client, clock, log }) => {
    const c = new NodeClaimController(client, clock, log, deps);
    return { reconcile: (key: string) => c.reconcile(splitKey(key).name) };
  },
});

class NodeClaimController {
  constructor(private readonly client: Client, private readonly clock: Clock, private readonly log: Logger, private readonly deps: KarpenterDeps) {}

  async reconcile(name: string): Promise<void | number> {
    const claim = this.client.get<NodeClaim>(nodeClaimsRef, '', name);
    const node = this.client.get<Node>(nodesRef, '', name);
    if (!claim) {
      // A node whose claim is gone: finish what termination would have done.
      if (node?.metadata?.deletionTimestamp && node.metadata.finalizers?.includes(terminationFinalizer)) await this.dropNodeFinalizer(node);
      return;
    }
    if (claim.metadata.deletionTimestamp) return terminate(this.client, this.clock, this.deps, claim, node);
    if (node?.metadata?.deletionTimestamp) {
      await this.client.delete(nodeClaimsRef, '', name);
      return;
    }
    const now = this.clock.now();
    if (!claim.metadata.finalizers?.includes(terminationFinalizer)) {
      await this.client.guaranteedUpdate(nodeClaimsRef, '', name, (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: [...(cur.metadata.finalizers ?? []), terminationFinalizer] } }));
      return;
    }
    if (!claim.status?.conditions?.length) {
      const next = { ...claim, status: { ...(claim.status ?? {}) } };
      initialConditions(next, now);
      await this.client.updateStatus(nodeClaimsRef, '', name, next);
      return;
    }
    const ctx: StageContext = { claim, node, now, settings: this.deps.settings, catalog: this.deps.catalog };
    const stage = nextStage(ctx);
    const ttl = this.deps.settings.registrationTTLSeconds * 1000;
    const age = now.getTime() - Date.parse(claim.metadata.creationTimestamp ?? now.toISOString());
    if (!isTrue(claim, ct.registered) && age >= ttl) {
      this.log.info({ nodeClaim: name }, 'deleting the NodeClaim: its node did not register within the registration TTL');
      await this.client.delete(nodeClaimsRef, '', name);
      return;
    }
    if (!stage) return isTrue(claim, ct.registered) ? undefined : ttl - age;
    const wait = dueIn(stage, ctx);
    if (wait > 0) return Math.min(wait, isTrue(claim, ct.registered) ? wait : ttl - age);
    switch (stage.name) {
      case 'launch': return this.launch(claim, now);
      case 'create-node': return this.createNode(claim);
      case 'register': return this.register(claim, node!, now);
      case 'remove-startup-taints': return this.removeStartupTaints(claim, node!);
      case 'initialize': return this.initialize(claim, node!, now);
    }
  }

  private async launch(claim: NodeClaim, now: Date): Promise<void> {
    const name = claim.metadata.name ?? '';
    const next = launched(claim, this.deps.catalog, now);
    if (!next) {
      this.deps.events.event(claim, 'Warning', 'InsufficientCapacityError', `NodeClaim ${name} event: all requested instance types were unavailable during launch`);
      await this.client.delete(nodeClaimsRef, '', name);
      return;
    }
    const updated = await this.client.update<NodeClaim>(nodeClaimsRef, '', name, { ...claim, metadata: next.metadata, status: claim.status });
    await this.client.updateStatus(nodeClaimsRef, '', name, { ...updated, status: next.status });
  }

  private async createNode(claim: NodeClaim): Promise<void> {
    const node = nodeFor(claim);
    try {
      const created = await this.client.create<Node>(nodesRef, '', node);
      const alloc = created.status?.allocatable ?? {};
      if (JSON.stringify(alloc) !== JSON.stringify(node.status?.allocatable ?? {})) {
        await this.client.updateStatus(nodesRef, '', node.metadata!.name!, { ...created, status: { ...(created.status ?? {}), capacity: node.status!.capacity, allocatable: node.status!.allocatable } });
      }
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 409)) throw err;
    }
  }

  private async register(claim: NodeClaim, node: Node, now: Date): Promise<void> {
    const name = claim.metadata.name ?? '';
    // The node takes pods once the unregistered taint goes, unless startup taints still hold them off.
    if (!claim.spec.startupTaints?.length) await this.deps.expectPlacements(name);
    await this.client.guaranteedUpdate(nodesRef, '', name, (cur) => registeredNode(cur, claim));
    const status = { ...(claim.status ?? {}), nodeName: node.metadata?.name };
    setCondition(status, ct.registered, 'True', 'Registered', '', now, claim.metadata.generation);
    readyCondition(status, now, claim.metadata.generation);
    await this.client.updateStatus(nodeClaimsRef, '', name, { ...claim, status });
  }

  private async removeStartupTaints(claim: NodeClaim, node: Node): Promise<void> {
    const keys = new Set((claim.spec.startupTaints ?? []).map((t) => `${t.key}:${t.effect}`));
    await this.deps.expectPlacements(claim.metadata.name ?? '');
    await this.client.guaranteedUpdate(nodesRef, '', node.metadata?.name ?? '', (cur) => {
      const spec = (cur.spec ?? {}) as Node['spec'] & object;
      return { ...cur, spec: { ...spec, taints: (spec.taints ?? []).filter((t) => !keys.has(`${t.key}:${t.effect}`)) } };
    });
  }

  private async initialize(claim: NodeClaim, node: Node, now: Date): Promise<void> {
    const name = claim.metadata.name ?? '';
    if (node.metadata?.labels?.[wk.initialized] !== 'true') {
      await this.client.guaranteedUpdate(nodesRef, '', name, (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { ...(cur.metadata.labels ?? {}), [wk.initialized]: 'true' } } }));
    }
    const status = { ...(claim.status ?? {}) };
    setCondition(status, ct.initialized, 'True', 'Initialized', '', now, claim.metadata.generation);
    readyCondition(status, now, claim.metadata.generation);
    if (condition(claim, ct.initialized)?.status !== 'True') await this.client.updateStatus(nodeClaimsRef, '', name, { ...claim, status });
  }

  private async dropNodeFinalizer(node: Node): Promise<void> {
    const name = node.metadata?.name ?? '';
    try {
      await this.client.guaranteedUpdate(nodesRef, '', name, (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: (cur.metadata.finalizers ?? []).filter((f) => f !== terminationFinalizer) } }));
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }
}
