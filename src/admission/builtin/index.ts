// The built-in admission plugins, in kube-apiserver's order; policies and webhooks follow them in the registry's list.
import type { AdmissionPlugin } from '../types.js';
import { namespaceLifecycle } from './namespace-lifecycle.js';
import { defaultTolerationSeconds, priorityAdmission, serviceAccountAdmission } from './pod-admission.js';
import { defaultStorageClassAdmission } from './default-storage-class.js';
import { extendedResourceToleration } from './extended-resource-toleration.js';

export const builtinAdmission: readonly AdmissionPlugin[] = [
  namespaceLifecycle,
  serviceAccountAdmission,
  priorityAdmission,
  defaultTolerationSeconds,
  extendedResourceToleration,
  defaultStorageClassAdmission,
];
