// Provisioning as a simulation: where would these pods go, on the nodes there are (and those launching) and on
// NodeClaims the NodePools could create? The provisioner launches the plans; the disruption half asks whether a
// node's pods fit elsewhere (plus at most one cheaper replacement).
import type { SimInput, SimResult } from './types.js';

export type { ClaimPlan, SimInput, SimNode, SimResult } from './types.js';

export function simulate(input: SimInput): SimResult {
  const failures = new Map<string, string>();
  for (const p of input.pods) failures.set(`${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`, 'not implemented yet');
  return { existing: new Map(), newClaims: [], failures };
}
