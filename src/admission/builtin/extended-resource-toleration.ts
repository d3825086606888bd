// ExtendedResourceToleration, as kube-apiserver's plugin: a pod whose containers or init containers request an
// extended resource (nvidia.com/gpu, ...) tolerates the `<resource>:NoSchedule` taint that nodes offering it carry,
// so such pods may land there and others stay away. Handles pod creates and updates (not subresources).
import type { Container, Pod, Toleration } from '../../generated/k8s/core/v1.js';
import { isQualifiedName } from '../../machinery/names.js';
import { hasOwn } from '../../util/own.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.js';

/** An extended resource: domain-qualified, not in the kubernetes.io domain, and valid behind the `requests.` prefix. */
export function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/') || name.includes('kubernetes.io/')) return false;
  return !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
}

/**
 * The resources a container requests. Admission runs before defaulting here (upstream, after): a resource with a
 * limit and no request is requested at its limit, as defaulting will make it.
 */
function requested(c: Container | undefined): string[] {
  const res = c?.resources;
  if (!res || typeof res !== 'object') return [];
  const names = new Set<string>();
  for (const part of [res.requests, res.limits]) {
    if (part && typeof part === 'object') for (const k of Object.keys(part)) if (hasOwn(part, k)) names.add(k);
  }
  return [...names];
}

const handles = (a: AdmissionAttributes) =>
  (a.operation === 'CREATE' || a.operation === 'UPDATE') && !a.subresource && a.def.group === '' && a.def.plural === 'pods';

export const extendedResourceToleration: AdmissionPlugin = {
  name: 'ExtendedResourceToleration',
  handles,
  mutate(a) {
    if (!handles(a)) return;
    const spec = (a.object as Pod | undefined)?.spec;
    if (!spec || typeof spec !== 'object') return;
    const resources = new Set<string>();
    for (const list of [spec.containers, spec.initContainers]) {
      if (!Array.isArray(list)) continue;
      for (const c of list) for (const name of requested(c)) if (isExtendedResourceName(name)) resources.add(name);
    }
    if (!resources.size) return;
    const tolerations: Toleration[] = Array.isArray(spec.tolerations) ? spec.tolerations : (spec.tolerations = []);
    for (const key of [...resources].sort()) {
      const want: Toleration = { key, operator: 'Exists', effect: 'NoSchedule' };
      // Upstream's AddOrUpdateTolerationInPod: a toleration with the same key, operator, value and effect is replaced.
      const i = tolerations.findIndex((t) => t && t.key === key && t.operator === 'Exists' && (t.value ?? '') === '' && t.effect === 'NoSchedule');
      if (i < 0) tolerations.push(want);
      else if (tolerations[i].tolerationSeconds !== undefined) tolerations[i] = want;
    }
  },
};
