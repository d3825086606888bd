// Helpers around claims the DynamicResources plugin needs besides allocation: the devices other claims hold, and
// the names the resourceclaim controller gives the claims it creates from a pod's ResourceClaimTemplates.
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

/** Upstream's bound on the base of a generated claim name: 63 characters less 6 for a dash and 5 random ones. */
const maxBaseLength = 57;

/**
 * The generateName of the claim made for a pod's claim from a template: `<pod>-<claim>-`; when that is longer
 * than 57 characters, both names are cut in proportion to their lengths and joined by one dash (no trailing one).
 */
export function podClaimGenerateName(podName: string, podClaimName: string): string {
  const full = `${podName}-${podClaimName}-`;
  if (full.length <= maxBaseLength) return full;
  const cut = (s: string) => s.slice(0, Math.floor((s.length * maxBaseLength) / full.length));
  return `${cut(podName)}-${cut(podClaimName)}`;
}

// The apiserver's generated-name alphabet: consonants and digits that cannot spell words.
const nameChars = 'bcdfghjklmnpqrstvwxz2456789';

/** A name as the apiserver completes `podClaimGenerateName`: five random characters appended. */
export function podClaimName(podName: string, podClaimName: string, random: () => number = Math.random): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += nameChars[Math.floor(random() * nameChars.length)];
  return `${podClaimGenerateName(podName, podClaimName)}${suffix}`;
}

/** The annotation the controller puts on such a claim: the name of the pod's claim entry. */
export const podClaimNameAnnotation = 'resource.kubernetes.io/pod-claim-name';
