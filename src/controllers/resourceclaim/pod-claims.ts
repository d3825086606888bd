// The resourceclaim controller's pod side: a pod's claim that names a ResourceClaimTemplate gets a ResourceClaim made
// from the template, named `<pod>-<claim>-<random>`, owned by the pod and annotated with the pod's claim name; the
// names go into the pod's status.resourceClaimStatuses, which the scheduler and kubelet read.
import type { Pod, PodResourceClaim } from '../../generated/k8s/core/v1.js';
import type { ResourceClaim, ResourceClaimTemplate } from '../../generated/k8s/resource/v1.js';
import type { Client } from '../../client/client.js';
import type { Logger } from '../../util/logger.js';
import { podClaimAnnotation } from '../../machinery/dra-names.js';

export const claimsRef = 'resource.k8s.io/v1/resourceclaims';
export const templatesRef = 'resource.k8s.io/v1/resourceclaimtemplates';

/** A pod none of whose containers runs or will run: finished, or deleted before it was scheduled. */
export function isPodDone(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed' || (!!pod.metadata.deletionTimestamp && !pod.spec?.nodeName);
}

/** The pod that controls a claim (a claim made from a template), if any. */
export function owningPod(claim: ResourceClaim): { name: string; uid: string } | undefined {
  const o = claim.metadata.ownerReferences?.find((r) => r.controller && r.apiVersion === 'v1' && r.kind === 'Pod');
  return o && { name: o.name, uid: o.uid };
}

/** `<pod>-<claim>-` as the generated name's base, both parts cut in proportion when too long for a 63-character name. */
export function claimGenerateName(pod: string, claim: string): string {
  const base = `${pod}-${claim}-`;
  const max = 57;
  if (base.length <= max) return base;
  return `${pod.slice(0, Math.floor((pod.length * max) / base.length))}-${claim.slice(0, Math.floor((claim.length * max) / base.length))}`;
}

/** The claims a pod owns (as controller): the claims made for it. */
export type OwnedClaims = (pod: Pod) => readonly ResourceClaim[];

/** The claim made for one of the pod's claim entries earlier (found by owner and annotation), if any. */
function findGenerated(owned: OwnedClaims, pod: Pod, entry: PodResourceClaim): ResourceClaim | undefined {
  return owned(pod).find((c) => owningPod(c)?.uid === pod.metadata.uid && c.metadata.annotations?.[podClaimAnnotation] === entry.name);
}

/** Makes the pod's missing claims; returns how long to wait before trying again (a template not there yet). */
export async function syncPodClaims(client: Client, log: Logger, owned: OwnedClaims, ns: string, name: string): Promise<number | void> {
  const pod = client.get('v1/pods', ns, name);
  if (!pod?.spec?.resourceClaims?.length || isPodDone(pod) || pod.metadata.deletionTimestamp) return;
  const known = new Map((pod.status?.resourceClaimStatuses ?? []).map((s) => [s.name, s.resourceClaimName]));
  const found: Array<{ name: string; resourceClaimName: string }> = [];
  let retry = false;
  for (const entry of pod.spec.resourceClaims) {
    const template = entry.resourceClaimTemplateName;
    if (!template) continue;
    const recorded = known.get(entry.name);
    if (recorded) {
      const claim = client.get<ResourceClaim>(claimsRef, ns, recorded);
      if (claim && owningPod(claim)?.uid === pod.metadata.uid) continue;
    }
    let claim = findGenerated(owned, pod, entry);
    if (!claim) {
      const tpl = client.get<ResourceClaimTemplate>(templatesRef, ns, template);
      if (!tpl) {
        log.debug({ pod: `${ns}/${name}`, template }, 'resource claim template not found');
        retry = true;
        continue;
      }
      const meta = tpl.spec.metadata ?? {};
      claim = await client.create<ResourceClaim>(claimsRef, ns, {
        apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim',
        metadata: {
          generateName: claimGenerateName(name, entry.name),
          ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name, uid: pod.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
          annotations: { ...(meta.annotations ?? {}), [podClaimAnnotation]: entry.name },
          ...(meta.labels ? { labels: { ...meta.labels } } : {}),
        },
        spec: structuredClone(tpl.spec.spec),
      });
      log.debug({ pod: `${ns}/${name}`, claim: claim.metadata.name }, 'created resource claim');
    }
    found.push({ name: entry.name, resourceClaimName: claim.metadata.name ?? '' });
  }
  if (found.length) {
    await client.guaranteedUpdate('v1/pods', ns, name, (cur) => {
      const p = cur as Pod;
      if (p.metadata.uid !== pod.metadata.uid) return cur;
      const statuses = (p.status?.resourceClaimStatuses ?? []).filter((s) => !found.some((f) => f.name === s.name));
      return { ...p, status: { ...p.status, resourceClaimStatuses: [...statuses, ...found].sort((a, b) => a.name.localeCompare(b.name)) } };
    }, { subresource: 'status' });
  }
  if (retry) return 5_000;
}
