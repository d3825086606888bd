// What the DynamicResources plugin needs of claims besides allocation: the devices other claims hold.
import type { AllocationResult, ResourceClaim } from '../../generated/k8s/resource/v1.js';
import { deviceKey } from './types.js';

/**
 * Keys of the devices the claims' allocations hold, for `AllocateInput.allocated`. Results with admin access do not
 * hold their device (others may still be given it), as upstream's allocated state leaves them out. `more`: allocations
 * not written yet (in flight).
 */
export function allocatedDevices(claims: Iterable<ResourceClaim>, more: Iterable<AllocationResult> = []): Set<string> {
  const out = new Set<string>();
  const add = (a: AllocationResult | undefined) => {
    for (const r of a?.devices?.results ?? []) if (!r.adminAccess) out.add(deviceKey(r));
  };
  for (const c of claims) add(c.status?.allocation);
  for (const a of more) add(a);
  return out;
}
