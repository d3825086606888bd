// Starts the Karpenter controllers: shared informers and settings, then the status, NodeClaim (lifecycle and
// termination) and provisioning controllers, then disruption.
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { EventRecorder } from '../../client/event-recorder.js';
import type { AddonContext, AddonHandle } from '../types.js';
import type { KarpenterDeps } from './deps.js';
import { NodeClaimController } from './nodeclaim-controller.js';
import { Provisioner } from './provisioner.js';
import { parseSettings } from './settings.js';
import { StatusController } from './status.js';
import { nodeClaimsRef, nodePoolsRef, nodesRef, podsRef, type NodeClaim, type NodePool } from './types.js';
// ---- DISRUPTION HOOK: the disruption controller (branch `kdis`) is started below, after provisioning. ----
import { startDisruption } from './disruption/index.js';

export function startKarpenter(ctx: AddonContext): AddonHandle & { deps: KarpenterDeps; provisioner: Provisioner } {
  const { settings, catalog } = parseSettings(ctx.settings);
  const { client, clock, log } = ctx;
  const nodePools = client.informer<NodePool>(nodePoolsRef);
  const nodeClaims = client.informer<NodeClaim>(nodeClaimsRef);
  const nodes = client.informer<Node>(nodesRef);
  const pods = client.informer<Pod>(podsRef, { indexes: { node: (p) => p.spec?.nodeName } });
  let provisioner: Provisioner | undefined;
  const deps: KarpenterDeps = {
    catalog, settings, events: new EventRecorder(client, { component: 'karpenter' }), nodePools, nodeClaims, nodes, pods,
    trigger: () => provisioner?.trigger(),
    expectPlacements: (claim) => provisioner?.expectPlacements(claim),
    nominated: () => provisioner?.nominatedClaims() ?? new Set(),
  };
  const status = new StatusController(client, clock, log.child({ component: 'karpenter-status' }), deps);
  const claimsCtl = new NodeClaimController(client, clock, log.child({ component: 'karpenter-nodeclaim' }), deps);
  provisioner = new Provisioner(client, clock, log.child({ component: 'karpenter-provisioner' }), deps);
  // ---- DISRUPTION HOOK ----
  const disruption = startDisruption(ctx, deps);
  const p = provisioner;
  return {
    deps, provisioner: p,
    stop() {
      disruption.stop();
      p.stop();
      claimsCtl.stop();
      status.stop();
      for (const i of [pods, nodes, nodeClaims, nodePools]) i.stop();
    },
  };
}
