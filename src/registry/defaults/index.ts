// Entry point of defaulting: fills in what kube-apiserver 1.35 fills in when it decodes an object of a kind.
// Mutates in place; unknown kinds are left alone. Typed views come from kubernetes-types.
import type { KObject, GroupVersionKind } from '../../machinery/types.js';
import { defaultDaemonSet, defaultDeployment, defaultReplicaSet, defaultStatefulSet } from './apps.js';
import { defaultCronJob, defaultJob } from './batch.js';
import {
  defaultEndpoints, defaultLimitRange, defaultNamespace, defaultPersistentVolume, defaultPersistentVolumeClaim, defaultPod,
  defaultPodTemplateKind, defaultReplicationController, defaultSecret, defaultService,
} from './core.js';
import {
  defaultCsiDriver, defaultEndpointSlice, defaultHpaV1, defaultHpaV2, defaultIngressClass, defaultNetworkPolicy,
  defaultPriorityClass, defaultRoleBinding, defaultStorageClass, defaultWebhookConfiguration,
} from './other.js';

export { defaultJobSelector, jobLabels } from './batch.js';
export { defaultPullPolicy } from './pod.js';

type Defaulter = (obj: KObject) => void;
/** Views the stored object as its kind's type (kubernetes-types) for that kind's defaulter. */
const typed = <T>(fn: (o: T) => void): Defaulter => (o) => fn(o as unknown as T);

const byKind: Record<string, Defaulter> = {
  '/Pod': typed(defaultPod),
  '/PodTemplate': typed(defaultPodTemplateKind),
  '/ReplicationController': typed(defaultReplicationController),
  '/Service': typed(defaultService),
  '/Namespace': typed(defaultNamespace),
  '/Secret': typed(defaultSecret),
  '/PersistentVolume': typed(defaultPersistentVolume),
  '/PersistentVolumeClaim': typed(defaultPersistentVolumeClaim),
  '/Endpoints': typed(defaultEndpoints),
  '/LimitRange': typed(defaultLimitRange),
  'apps/Deployment': typed(defaultDeployment),
  'apps/ReplicaSet': typed(defaultReplicaSet),
  'apps/StatefulSet': typed(defaultStatefulSet),
  'apps/DaemonSet': typed(defaultDaemonSet),
  'batch/Job': typed(defaultJob),
  'batch/CronJob': typed(defaultCronJob),
  'networking.k8s.io/NetworkPolicy': typed(defaultNetworkPolicy),
  'networking.k8s.io/IngressClass': typed(defaultIngressClass),
  'storage.k8s.io/StorageClass': typed(defaultStorageClass),
  'storage.k8s.io/CSIDriver': typed(defaultCsiDriver),
  'scheduling.k8s.io/PriorityClass': typed(defaultPriorityClass),
  'discovery.k8s.io/EndpointSlice': typed(defaultEndpointSlice),
  'rbac.authorization.k8s.io/RoleBinding': typed(defaultRoleBinding),
  'rbac.authorization.k8s.io/ClusterRoleBinding': typed(defaultRoleBinding),
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': typed((o: Parameters<typeof defaultWebhookConfiguration>[0]) => defaultWebhookConfiguration(o, true)),
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': typed((o: Parameters<typeof defaultWebhookConfiguration>[0]) => defaultWebhookConfiguration(o, false)),
};

/** Applies the defaults kube-apiserver applies to `obj` of kind `gvk`, in place. */
export function applyDefaults(gvk: GroupVersionKind, obj: KObject): void {
  if (gvk.group === 'autoscaling' && gvk.kind === 'HorizontalPodAutoscaler') {
    if (gvk.version === 'v1') defaultHpaV1(obj as never);
    else defaultHpaV2(obj as never);
    return;
  }
  if (!obj.metadata || typeof obj.metadata !== 'object') obj.metadata = {};
  byKind[`${gvk.group}/${gvk.kind}`]?.(obj);
}
