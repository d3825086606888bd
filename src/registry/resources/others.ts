// The remaining API groups kubectl and everyday manifests need.
import type { ResourceDef } from '../resource.js';
import { hpaFromV1, hpaToV1 } from './hpa-conversion.js';
import { coreEventToEventsV1, eventsV1ToCoreEvent, eventFieldSelectors } from './events.js';
import { selfSubjectAccessReview, selfSubjectReview, selfSubjectRulesReview } from './access-reviews.js';
import { tokenReview } from './token-review.js';

const createOnly = ['create'];

export const otherResources: ResourceDef[] = [
  {
    group: 'autoscaling', version: 'v2', versions: ['v2', 'v1'], kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers', singular: 'horizontalpodautoscaler',
    namespaced: true, shortNames: ['hpa'], categories: ['all'], subresources: ['status'], generation: true,
    toVersion: (o, v) => (v === 'v1' ? hpaToV1(o) : o), fromVersion: (o, v) => (v === 'v1' ? hpaFromV1(o) : o),
  },
  { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', singular: 'poddisruptionbudget', namespaced: true, shortNames: ['pdb'], subresources: ['status'], generation: true },
  { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', singular: 'lease', namespaced: true },
  {
    group: 'events.k8s.io', version: 'v1', kind: 'Event', plural: 'events', singular: 'event', namespaced: true, shortNames: ['ev'],
    sharedStorage: { key: 'core/events', apiVersion: 'v1' }, fieldSelectors: eventFieldSelectors,
    toVersion: (o) => coreEventToEventsV1(o), fromVersion: (o) => eventsV1ToCoreEvent(o),
  },
  { group: 'scheduling.k8s.io', version: 'v1', kind: 'PriorityClass', plural: 'priorityclasses', singular: 'priorityclass', namespaced: false, shortNames: ['pc'] },
  { group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice', plural: 'endpointslices', singular: 'endpointslice', namespaced: true },
  { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress', plural: 'ingresses', singular: 'ingress', namespaced: true, shortNames: ['ing'], subresources: ['status'], generation: true },
  { group: 'networking.k8s.io', version: 'v1', kind: 'IngressClass', plural: 'ingressclasses', singular: 'ingressclass', namespaced: false },
  { group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy', plural: 'networkpolicies', singular: 'networkpolicy', namespaced: true, shortNames: ['netpol'], generation: true },
  { group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass', plural: 'storageclasses', singular: 'storageclass', namespaced: false, shortNames: ['sc'] },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', plural: 'roles', singular: 'role', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding', plural: 'rolebindings', singular: 'rolebinding', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', singular: 'clusterrole', namespaced: false },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBinding', plural: 'clusterrolebindings', singular: 'clusterrolebinding', namespaced: false },
  {
    group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview', plural: 'selfsubjectaccessreviews', singular: 'selfsubjectaccessreview',
    namespaced: false, verbs: createOnly, virtualCreate: selfSubjectAccessReview,
  },
  {
    group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectRulesReview', plural: 'selfsubjectrulesreviews', singular: 'selfsubjectrulesreview',
    namespaced: false, verbs: createOnly, virtualCreate: selfSubjectRulesReview,
  },
  {
    group: 'authentication.k8s.io', version: 'v1', kind: 'SelfSubjectReview', plural: 'selfsubjectreviews', singular: 'selfsubjectreview',
    namespaced: false, verbs: createOnly, virtualCreate: selfSubjectReview,
  },
  {
    group: 'authentication.k8s.io', version: 'v1', kind: 'TokenReview', plural: 'tokenreviews', singular: 'tokenreview',
    namespaced: false, verbs: createOnly, virtualCreate: tokenReview,
  },
];
