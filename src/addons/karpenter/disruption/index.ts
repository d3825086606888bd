// Karpenter's disruption half: NodeClaim disruption conditions, expiration, and the disruption loop with budgets.
import type { Manager } from '../../../controllers/runtime/index.js';
import type { AddonContext } from '../../types.js';
import type { KarpenterDeps } from '../deps.js';
import { claimDisruptionController } from './claim-controller.js';
import { DisruptionController } from './controller.js';

export { DisruptionController } from './controller.js';
export { claimDisruptionController } from './claim-controller.js';

/**
 * Starts the disruption controllers (the NodeClaim one on the add-on's manager) on the add-on's shared state (`deps`: the catalog, the event recorder, the
 * NodePool/NodeClaim/Node/Pod informers — pods indexed `node` by spec.nodeName — and the provisioning trigger).
 */
export function startDisruption(ctx: AddonContext, deps: KarpenterDeps, manager: Manager): { stop(): void } {
  const log = ctx.log.child({ component: 'karpenter-disruption' });
  manager.add(claimDisruptionController(deps));
  const loop = new DisruptionController(ctx.client, ctx.clock, log, deps);
  return { stop: () => loop.stop() };
}
