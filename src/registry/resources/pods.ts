// Pod rules beyond defaults: admission-time fields (service account, priority, default tolerations) and initial status.
import type { Pod, Container, Toleration } from 'kubernetes-types/core/v1.js';
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

const defaultTolerations: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

function admitPod(obj: KObject, ctx: StrategyContext): void {
  const pod = obj as unknown as Pod;
  const spec = pod.spec;
  if (!spec) return;
  // ServiceAccount admission.
  spec.serviceAccountName ||= spec.serviceAccount || 'default';
  spec.serviceAccount = spec.serviceAccountName;
  // Priority admission.
  if (spec.priority === undefined) {
    const pcName = spec.priorityClassName;
    const pc = pcName ? ctx.registry.getStored('scheduling.k8s.io/priorityclasses', '', pcName) : undefined;
    spec.priority = typeof pc?.value === 'number' ? pc.value : 0;
    if (pc && typeof pc.preemptionPolicy === 'string') spec.preemptionPolicy = pc.preemptionPolicy;
  }
  spec.preemptionPolicy ??= 'PreemptLowerPriority';
  // DefaultTolerationSeconds admission.
  const tol = (spec.tolerations ??= []);
  for (const d of defaultTolerations) {
    if (!tol.some((t) => (t.key === d.key || (t.operator === 'Exists' && !t.key)) && (!t.effect || t.effect === d.effect))) tol.push({ ...d });
  }
}

export const podStrategy: Partial<ResourceDef> = {
  partialWrites: {
    resize: { merge: resizedPod, validate: validatePodResize },
    ephemeralcontainers: { merge: withEphemeralContainers, validate: (pod, old) => validateEphemeralContainersUpdate(pod, old, validatePodSpec) },
  },
  prepareCreate(obj, ctx) {
    admitPod(obj, ctx);
    const pod = obj as unknown as Pod;
    const status: Record<string, unknown> = { phase: 'Pending', qosClass: qosClass(pod) };
    // As kube-apiserver does: a gated pod says why it is not scheduled from the moment it exists.
    if (pod.spec?.schedulingGates?.length) {
      status.conditions = [{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: rfc3339(ctx.clock.now()), reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }];
    }
    obj.status = status;
  },
};
