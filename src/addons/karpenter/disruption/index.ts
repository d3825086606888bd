// Karpenter's disruption half: NodeClaim disruption conditions, expiration, and the disruption loop with budgets.
import type { AddonContext } from '../../types.js';
import type { KarpenterDeps } from '../deps.js';
import { ClaimDisruptionController } from './claim-controller.js';
import { DisruptionController } from './controller.js';

export { DisruptionController } from './controller.js';
export { ClaimDisruptionController } from './claim-controller.js';

/**
 * Starts the disruption controllers on the add-on's shared state (`deps`: the catalog, the event recorder, the
 * NodePool/NodeClaim/Node/Pod informers — pods indexed `node` by spec.nodeName — and the provisioning trigger).
 */
export function startDisruption(ctx: AddonContext, deps: KarpenterDeps): { stop(): void } {
  const log = ctx.log.child({ component: 'karpenter-disruption' });
  const claims = new ClaimDisruptionController(ctx.client, ctx.clock, log, deps);
  const loop = new DisruptionController(ctx.client, ctx.clock, log, deps);
  return {
    stop() {
      loop.stop();
      claims.stop();
    },
  };
}
