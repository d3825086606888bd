// kube-controller-manager's resourceclaim controller, on the controller runtime: one queue of pods (claims from
// templates), one of claims (reservations, deallocation, clean-up of generated claims).
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { ResourceClaim } from '../../generated/k8s/resource/v1.js';
import { keyFor, splitKey } from '../../machinery/object-key.js';
import { defineController, indexes, indexNames } from '../runtime/index.js';
import { syncClaim } from './claim-sync.js';
import { claimsRef, owningPod, syncPodClaims, templatesRef } from './pod-claims.js';

const hasClaims = (pod: Pod) => !!pod.spec?.resourceClaims?.length;

/** The claims a pod names (made for it, or named directly). */
function claimsOfPod(pod: Pod): string[] {
  const ns = pod.metadata.namespace ?? '';
  const names = new Set<string>();
  for (const s of pod.status?.resourceClaimStatuses ?? []) if (s.resourceClaimName) names.add(s.resourceClaimName);
  for (const c of pod.spec?.resourceClaims ?? []) if (c.resourceClaimName) names.add(c.resourceClaimName);
  return [...names].map((n) => keyFor(ns, n));
}

const podClaimsController = defineController({
  name: 'resourceclaim',
  for: { resource: 'v1/pods', when: (c) => c.type !== 'DELETED' && hasClaims(c.object as Pod) },
  watches: [
    { resource: claimsRef, map: (c) => { const o = owningPod(c.object as ResourceClaim); return o ? [keyFor(c.object.metadata.namespace ?? '', o.name)] : []; } },
    {
      resource: templatesRef, when: (c) => c.type === 'ADDED',
      map: (c, { client }) => client.list<Pod>('v1/pods', c.object.metadata.namespace ?? '')
        .filter((p) => p.spec?.resourceClaims?.some((r) => r.resourceClaimTemplateName === c.object.metadata.name)).map((p) => keyFor(p.metadata.namespace ?? '', p.metadata.name ?? '')),
    },
  ],
  setup({ client, log, informers }) {
    // The claims made for a pod, by their controller owner: no list of the namespace's claims per pod.
    const claims = informers.informer<ResourceClaim>(claimsRef, { [indexNames.byOwner]: indexes.byOwner });
    const owned = (pod: Pod) => claims.byIndex(indexNames.byOwner, pod.metadata.uid ?? '');
    return {
      reconcile(key: string) {
        const { namespace, name } = splitKey(key);
        return syncPodClaims(client, log, owned, namespace, name);
      },
    };
  },
});

const claimController = defineController({
  name: 'resourceclaim-claims',
  identity: 'resourceclaim',
  for: claimsRef,
  watches: [{ resource: 'v1/pods', when: (c) => hasClaims(c.object as Pod), map: (c) => claimsOfPod(c.object as Pod) }],
  async reconcile(key, { client, log }) {
    const { namespace, name } = splitKey(key);
    await syncClaim(client, log, namespace, name);
  },
});

export const resourceClaimControllers = [podClaimsController, claimController];
