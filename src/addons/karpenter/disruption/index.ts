// STUB: the disruption controller (consolidation, expiration, drift, budgets) is built on branch `kdis`, which
// replaces this file. It starts after the provisioner, with the same context and the shared dependencies.
import type { AddonContext } from '../../types.js';
import type { KarpenterDeps } from '../deps.js';

export function startDisruption(_ctx: AddonContext, _deps: KarpenterDeps): { stop(): void } {
  return { stop() {} };
}
