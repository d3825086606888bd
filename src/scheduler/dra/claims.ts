// What the DynamicResources plugin needs of claims besides allocation: the devices other claims hold.
import type { ResourceClaim } from '../../generated/k8s/resource/v1.js';
import { deviceKey } from './types.js';

/**
 * Keys of the devices the claims' allocations hold, for `AllocateInput.allocated`. Results with admin access do not
 * hold their device (others may still be given it), as upstream's allocated state leaves them out.
 */
export function allocatedDevices(claims: Iterable<ResourceClaim>): Set<string> {
  const out = new Set<string>();
  for (const c of claims) {
    for (const r of c.status?.allocation?.devices?.results ?? []) {
      if (!r.adminAccess) out.add(deviceKey(r));
    }
  }
  return out;
}
