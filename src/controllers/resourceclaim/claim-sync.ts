// The resourceclaim controller's claim side: reservations for pods that are gone, replaced or done are dropped; a
// claim no pod uses any more is deallocated (its allocation cleared and the scheduler's delete-protection finalizer
// removed), and a claim generated for a pod that will not run again is deleted.
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { ResourceClaim } from '../../generated/k8s/resource/v1.js';
import type { Client } from '../../client/client.js';
import type { Logger } from '../../util/logger.js';
import { claimsRef, isPodDone, owningPod } from './pod-claims.js';
import { claimFinalizer } from '../../machinery/dra-names.js';


function stillUsing(client: Client, ns: string, ref: { resource: string; apiGroup?: string; name: string; uid: string }): boolean {
  if ((ref.apiGroup ?? '') !== '' || ref.resource !== 'pods') return true;
  const pod = client.get<Pod>('v1/pods', ns, ref.name);
  return !!pod && pod.metadata.uid === ref.uid && !isPodDone(pod);
}

export async function syncClaim(client: Client, log: Logger, ns: string, name: string): Promise<void> {
  const claim = client.get<ResourceClaim>(claimsRef, ns, name);
  if (!claim) return;
  const reserved = claim.status?.reservedFor ?? [];
  const valid = reserved.filter((r) => stillUsing(client, ns, r));
  const protectedByScheduler = claim.metadata.finalizers?.includes(claimFinalizer) ?? false;
  const release = valid.length < reserved.length || (protectedByScheduler && !!claim.metadata.deletionTimestamp && valid.length === 0);
  if (release) {
    const updated = await client.guaranteedUpdate<ResourceClaim>(claimsRef, ns, name, (cur) => {
      const c = cur as ResourceClaim;
      const keep = (c.status?.reservedFor ?? []).filter((r) => stillUsing(client, ns, r));
      const status = { ...c.status, reservedFor: keep.length ? keep : undefined };
      // Deallocated as soon as its last consumer is gone, so that the devices serve others.
      if (!keep.length && c.metadata.finalizers?.includes(claimFinalizer)) delete status.allocation;
      return { ...c, status };
    }, { subresource: 'status' });
    if (!updated.status?.allocation && updated.metadata.finalizers?.includes(claimFinalizer)) {
      await client.guaranteedUpdate(claimsRef, ns, name, (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: (cur.metadata.finalizers ?? []).filter((f) => f !== claimFinalizer) } }));
    }
    log.debug({ claim: `${ns}/${name}`, reserved: valid.length }, 'released resource claim reservations');
  }
  if (valid.length) return;
  const owner = owningPod(claim);
  if (!owner || claim.metadata.deletionTimestamp) return;
  const pod = client.get<Pod>('v1/pods', ns, owner.name);
  // An owner not found may not be known yet: the garbage collector deletes the claim once the pod is truly gone.
  if (pod && (pod.metadata.uid !== owner.uid || isPodDone(pod))) {
    await client.delete(claimsRef, ns, name, { preconditions: { uid: claim.metadata.uid } });
    log.debug({ claim: `${ns}/${name}` }, 'deleted unused generated resource claim');
  }
}
