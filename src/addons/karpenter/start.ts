// Starts the Karpenter controllers: a manager (its shared informers) and settings, then the status, NodeClaim
// (lifecycle and termination) and provisioning controllers, then disruption.
import type { Node, Pod } from '../../generated/k8s/core/v1.js';
import { EventRecorder } from '../../client/event-recorder.js';
import type { AddonContext, AddonHandle } from '../types.js';
import type { KarpenterDeps } from './deps.js';
import { Manager } from '../../controllers/runtime/index.js';
import { nodeClaimController } from './nodeclaim-controller.js';
import { provisionerController, type Provisioner } from './provisioner.js';
import { parseSettings } from './settings.js';
import { statusController } from './status.js';
import { nodeClaimsRef, nodePoolsRef, nodesRef, podsRef, type NodeClaim, type NodePool } from './types.js';
// ---- DISRUPTION HOOK: the disruption controller (branch `kdis`) is started below, after provisioning. ----
import { startDisruption } from './disruption/index.js';

/** Pods' index `node`: spec.nodeName. */
const podNode = (p: Pod): string | undefined => p.spec?.nodeName;

export function startKarpenter(ctx: AddonContext): AddonHandle & { deps: KarpenterDeps; provisioner: Provisioner } {
  const { settings, catalog } = parseSettings(ctx.settings);
  const { client, clock, log } = ctx;
  const manager = new Manager({ client, clock, log, logFor: (name) => log.child({ component: name }) }).start();
  const informers = manager.informers!;
  const nodePools = informers.informer<NodePool>(nodePoolsRef);
  const nodeClaims = informers.informer<NodeClaim>(nodeClaimsRef);
  const nodes = informers.informer<Node>(nodesRef);
  const pods = informers.informer<Pod>(podsRef, { node: podNode });
  let provisioner: Provisioner | undefined;
  const deps: KarpenterDeps = {
    catalog, settings, events: new EventRecorder(client, { component: 'karpenter' }), nodePools, nodeClaims, nodes, pods,
    trigger: () => provisioner?.trigger(),
    expectPlacements: (claim) => provisioner?.expectPlacements(claim),
    nominated: () => provisioner?.nominatedClaims() ?? new Set(),
  };
  manager.add(statusController(deps)).add(nodeClaimController(deps));
  manager.add(provisionerController(deps, (p) => (provisioner = p)));
  // ---- DISRUPTION HOOK ----
  startDisruption(deps, manager);
  return {
    deps, provisioner: provisioner!,
    stop() {
      manager.stop();
    },
  };
}
