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

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Defaulter = (obj: any) => void;

const byKind: Record<string, Defaulter> = {
  '/Pod': defaultPod,
  '/PodTemplate': defaultPodTemplateKind,
  '/ReplicationController': defaultReplicationController,
  '/Service': defaultService,
  '/Namespace': defaultNamespace,
  '/Secret': defaultSecret,
  '/PersistentVolume': defaultPersistentVolume,
  '/PersistentVolumeClaim': defaultPersistentVolumeClaim,
  '/Endpoints': defaultEndpoints,
  '/LimitRange': defaultLimitRange,
  'apps/Deployment': defaultDeployment,
  'apps/ReplicaSet': defaultReplicaSet,
  'apps/StatefulSet': defaultStatefulSet,
  'apps/DaemonSet': defaultDaemonSet,
  'batch/Job': defaultJob,
  'batch/CronJob': defaultCronJob,
  'networking.k8s.io/NetworkPolicy': defaultNetworkPolicy,
  'networking.k8s.io/IngressClass': defaultIngressClass,
  'storage.k8s.io/StorageClass': defaultStorageClass,
  'storage.k8s.io/CSIDriver': defaultCsiDriver,
  'scheduling.k8s.io/PriorityClass': defaultPriorityClass,
  'discovery.k8s.io/EndpointSlice': defaultEndpointSlice,
  'rbac.authorization.k8s.io/RoleBinding': defaultRoleBinding,
  'rbac.authorization.k8s.io/ClusterRoleBinding': defaultRoleBinding,
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': (o) => defaultWebhookConfiguration(o, true),
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': (o) => defaultWebhookConfiguration(o, false),
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
