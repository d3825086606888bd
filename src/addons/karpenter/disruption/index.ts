// Karpenter's disruption half: NodeClaim disruption conditions, expiration, and the disruption loop with budgets.
import type { Manager } from '../../../controllers/runtime/index.js';
import type { KarpenterDeps } from '../deps.js';
import { claimDisruptionController } from './claim-controller.js';
import { disruptionControllers } from './controller.js';

export { DisruptionController, disruptionControllers } from './controller.js';
export { claimDisruptionController } from './claim-controller.js';

/**
 * Starts the disruption controllers (the NodeClaim one and the disruption loop) on the add-on's manager and shared
 * state (`deps`: the catalog, the event recorder, the NodePool/NodeClaim/Node/Pod informers — pods indexed `node` by
 * spec.nodeName — and the provisioning trigger).
 */
export function startDisruption(deps: KarpenterDeps, manager: Manager): void {
  manager.add(claimDisruptionController(deps));
  for (const def of disruptionControllers(deps)) manager.add(def);
}
