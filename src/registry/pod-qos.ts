// A pod's quality-of-service class, as the pod strategy records it on create and resize validation compares it.
import type { Container, Pod } from '../generated/k8s/core/v1.js';

type Quantities = Record<string, string> | undefined;

/** Upstream's QoS classes: Guaranteed when every container's requests equal limits for cpu and memory. */
export function qosClass(pod: Pod): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers: Container[] = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const req: Quantities = c.resources?.requests;
    const lim: Quantities = c.resources?.limits;
    for (const r of ['cpu', 'memory']) {
      if (req?.[r] || lim?.[r]) any = true;
      const l = lim?.[r];
      const q = req?.[r] ?? l;
      if (!l || q !== l) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
