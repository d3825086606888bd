// Extended resources through DRA (1.34's DRAExtendedResource): a DeviceClass with spec.extendedResourceName (or any
// class, as `deviceclass.resource.kubernetes.io/<class>`) lets a container's `nvidia.com/gpu: 1` be served from the
// class's devices. For such a pod the DynamicResources plugin allocates an in-memory claim with one request per
// container and resource (`container-<i>-request-<j>`) on nodes whose drivers publish devices; at PreBind the claim
// is created for real (named `<pod>-extended-resources-…`, owned by the pod, marked by upstream's annotation) with
// its allocation, and the pod's status.extendedResourceClaimStatus maps each container's resource to its request.
import type { Container, ContainerExtendedResourceRequest, Pod } from '../../generated/k8s/core/v1.js';
import type { DeviceClass, ResourceClaim } from '../../generated/k8s/resource/v1.js';

export const extendedClaimAnnotation = 'resource.kubernetes.io/extended-resource-claim';
const implicitPrefix = 'deviceclass.resource.kubernetes.io/';
/** The uid of the in-memory claim, until PreBind creates it. */
const uidPrefix = 'extended-resources/';
/** The uid of the pod's in-memory extended-resource claim (its key among the in-flight allocations). */
export const extendedDraftUid = (podUid: string): string => `${uidPrefix}${podUid}`;

export interface ExtendedRequests {
  /** The names of the extended resources the claim serves. */
  resources: Set<string>;
  /** The claim to allocate (not stored yet). */
  claim: ResourceClaim;
  mappings: ContainerExtendedResourceRequest[];
}

/** Extended resource name -> the class serving it (several: the newest, then the first by name, as one pick). */
function classByResource(classes: ReadonlyMap<string, DeviceClass>): Map<string, DeviceClass> {
  const out = new Map<string, DeviceClass>();
  const newer = (a: DeviceClass, b: DeviceClass) => {
    const ta = a.metadata.creationTimestamp ?? '';
    const tb = b.metadata.creationTimestamp ?? '';
    return ta !== tb ? ta > tb : (a.metadata.name ?? '') < (b.metadata.name ?? '');
  };
  for (const c of classes.values()) {
    for (const name of [c.spec.extendedResourceName, `${implicitPrefix}${c.metadata.name ?? ''}`]) {
      if (!name) continue;
      const had = out.get(name);
      if (!had || newer(c, had)) out.set(name, c);
    }
  }
  return out;
}

/** Whether any of the pod's requests is an extended resource (a domain-qualified name): only then are classes read. */
export const mayUseExtended = (requests: Readonly<Record<string, number>>): boolean => Object.keys(requests).some((k) => k.includes('/') && !k.startsWith('kubernetes.io/'));

const quantityOf = (c: Container, name: string): number => {
  const raw = c.resources?.requests?.[name] ?? c.resources?.limits?.[name];
  const n = Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
};

/** The pod's extended resource requests that classes map, as the claim to allocate; undefined when there are none. */
export function extendedRequests(pod: Pod, classes: ReadonlyMap<string, DeviceClass>): ExtendedRequests | undefined {
  const byResource = classByResource(classes);
  if (!byResource.size) return undefined;
  const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  const resources = new Set<string>();
  const mappings: ContainerExtendedResourceRequest[] = [];
  const requests: NonNullable<NonNullable<ResourceClaim['spec']['devices']>['requests']> = [];
  containers.forEach((c, i) => {
    const names = [...new Set([...Object.keys(c.resources?.requests ?? {}), ...Object.keys(c.resources?.limits ?? {})])].sort();
    let j = 0;
    for (const name of names) {
      const cls = byResource.get(name);
      const count = cls ? quantityOf(c, name) : 0;
      if (!cls || !count) continue;
      const request = `container-${i}-request-${j++}`;
      resources.add(name);
      mappings.push({ containerName: c.name, resourceName: name, requestName: request });
      requests.push({ name: request, exactly: { deviceClassName: cls.metadata.name ?? '', allocationMode: 'ExactCount', count } });
    }
  });
  if (!requests.length) return undefined;
  const ns = pod.metadata.namespace ?? '';
  const claim: ResourceClaim = {
    apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim',
    metadata: { name: `${pod.metadata.name ?? ''}-extended-resources`, namespace: ns, uid: extendedDraftUid(pod.metadata.uid ?? ''), annotations: { [extendedClaimAnnotation]: 'true' } },
    spec: { devices: { requests } },
  };
  return { resources, claim, mappings };
}

/** Whether the claim is a pod's in-memory extended-resource claim (not stored yet). */
export const isExtendedDraft = (c: ResourceClaim): boolean => (c.metadata.uid ?? '').startsWith(uidPrefix);

/** The claim to create for the pod: generated name, owned by the pod, the draft's spec. */
export function extendedClaimToCreate(pod: Pod, draft: ResourceClaim): ResourceClaim {
  const name = pod.metadata.name ?? '';
  return {
    apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim',
    metadata: {
      generateName: `${name}-extended-resources-`, namespace: pod.metadata.namespace ?? '', annotations: { [extendedClaimAnnotation]: 'true' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name, uid: pod.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec: draft.spec,
  };
}
