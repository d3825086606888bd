// Pod rules beyond defaults: partial writes (resize, ephemeral containers) and the initial status.
import type { Pod, Container } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../machinery/types.js';
import type { ResourceDef, StrategyContext } from '../resource.js';
import { rfc3339 } from '../../util/clock.js';
import { resizedPod, validatePodResize, validatePodSpec } from '../validation/pod.js';
import { validateEphemeralContainersUpdate, withEphemeralContainers } from '../validation/ephemeral-containers.js';

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

export const podStrategy: Partial<ResourceDef> = {
  partialWrites: {
    resize: { merge: resizedPod, validate: validatePodResize },
    ephemeralcontainers: { merge: withEphemeralContainers, validate: (pod, old) => validateEphemeralContainersUpdate(pod, old, validatePodSpec) },
  },
  prepareCreate(obj, ctx) {
    const pod = obj as unknown as Pod;
    const status: Record<string, unknown> = { phase: 'Pending', qosClass: qosClass(pod) };
    // As kube-apiserver does: a gated pod says why it is not scheduled from the moment it exists.
    if (pod.spec?.schedulingGates?.length) {
      status.conditions = [{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: rfc3339(ctx.clock.now()), reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }];
    }
    obj.status = status;
  },
};
