// Pod rules beyond defaults and validation: partial writes (resize, ephemeral containers) and the initial status.
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { ResourceDef } from '../resource.js';
import { qosClass } from '../pod-qos.js';
import { rfc3339 } from '../../util/clock.js';
import { resizedPod, validatePodResize, validatePodSpec } from '../validation/pod.js';
import { validateEphemeralContainersUpdate, withEphemeralContainers } from '../validation/ephemeral-containers.js';
import { boundPod, validateBoundPod } from '../pod-binding.js';

export const podStrategy: Partial<ResourceDef> = {
  partialWrites: {
    resize: { merge: resizedPod, validate: validatePodResize },
    ephemeralcontainers: { merge: withEphemeralContainers, validate: (pod, old) => validateEphemeralContainersUpdate(pod, old, validatePodSpec) },
    // Not served over HTTP (POST pods/binding is a create of a Binding): the binding's own write, node and condition at once.
    binding: { merge: boundPod, validate: validateBoundPod },
  },
  prepareCreate(obj, ctx) {
    const pod = obj as Pod;
    const status: Record<string, unknown> = { phase: 'Pending', qosClass: qosClass(pod) };
    // As kube-apiserver does: a gated pod says why it is not scheduled from the moment it exists.
    if (pod.spec?.schedulingGates?.length) {
      status.conditions = [{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: rfc3339(ctx.clock.now()), reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }];
    }
    obj.status = status;
  },
};
