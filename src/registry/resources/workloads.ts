// scheduling.k8s.io/v1alpha1 Workload (KEP-4671, Kubernetes 1.35 alpha): pod groups with a basic or gang policy.
// The scheduler reads it (src/scheduler/gangs.ts); nothing else acts on it.
import type { ResourceDef } from '../resource.js';
import { validateWorkload } from '../validation/workload.js';

export const workloads: ResourceDef = {
  group: 'scheduling.k8s.io', version: 'v1alpha1', kind: 'Workload', plural: 'workloads', singular: 'workload', namespaced: true,
  validate: validateWorkload,
};
