// The remaining API groups kubectl and everyday manifests need.
import type { ResourceDef } from '../resource.js';
import { hpaFromV1, hpaToV1 } from './hpa-conversion.js';
import { coreEventToEventsV1, eventsV1ToCoreEvent, eventFieldSelectors } from './events.js';
import { selfSubjectReview } from './access-reviews.js';
import { localSubjectAccessReview, selfSubjectAccessReview, selfSubjectRulesReview, subjectAccessReview } from './authorization-reviews.js';
import { checkBindingWrite, checkRoleWrite } from '../../auth/rbac/escalation.js';
import { tokenReview } from './token-review.js';
import { typedDefaults } from './typed.js';
import {
  defaultEndpointSlice, defaultHpaV2, defaultIngressClass, defaultNetworkPolicy, defaultPriorityClass, defaultRoleBinding, defaultStorageClass,
} from '../defaults/other.js';
import { validateHpa, validateIngress, validateNetworkPolicy, validatePdb, validateRole, validateRoleBinding } from '../validation/other.js';
import { nameIsPathSegment } from '../../machinery/names.js';
import { horizontalPodAutoscalerPrinter } from '../tables/autoscaling.js';
import { leasePrinter, podDisruptionBudgetPrinter, priorityClassPrinter } from '../tables/misc.js';
import { eventsV1EventPrinter } from '../tables/events.js';
import { endpointSlicePrinter, ingressClassPrinter, ingressPrinter, networkPolicyPrinter } from '../tables/networking.js';
import { storageClassPrinter } from '../tables/storage.js';
import { clusterRoleBindingPrinter, roleBindingPrinter } from '../tables/rbac.js';

const createOnly = ['create'];

export const otherResources: ResourceDef[] = [
  {
    group: 'autoscaling', version: 'v2', versions: ['v2', 'v1'], kind: 'HorizontalPodAutoscaler', plural: 'horizontalpodautoscalers', singular: 'horizontalpodautoscaler',
    namespaced: true, shortNames: ['hpa'], categories: ['all'], subresources: ['status'], generation: true,
    emptyStatus: { desiredReplicas: 0, currentMetrics: null },
    toVersion: (o, v) => (v === 'v1' ? hpaToV1(o) : o), fromVersion: (o, v) => (v === 'v1' ? hpaFromV1(o) : o),
    // autoscaling/v1 bodies are converted to v2 (fromVersion) before the storage version's defaults apply.
    defaults: typedDefaults(defaultHpaV2), validate: validateHpa, table: horizontalPodAutoscalerPrinter,
  },
  { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', singular: 'poddisruptionbudget', namespaced: true, shortNames: ['pdb'], subresources: ['status'], generation: true,
    emptyStatus: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }, validate: validatePdb, table: podDisruptionBudgetPrinter },
  { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', singular: 'lease', namespaced: true, table: leasePrinter },
  {
    group: 'events.k8s.io', version: 'v1', kind: 'Event', plural: 'events', singular: 'event', namespaced: true, shortNames: ['ev'],
    sharedStorage: { key: 'core/events', apiVersion: 'v1' }, fieldSelectors: eventFieldSelectors,
    toVersion: (o) => coreEventToEventsV1(o), fromVersion: (o) => eventsV1ToCoreEvent(o),
    nameValidation: nameIsPathSegment, table: eventsV1EventPrinter,
  },
  { group: 'scheduling.k8s.io', version: 'v1', kind: 'PriorityClass', plural: 'priorityclasses', singular: 'priorityclass', namespaced: false, shortNames: ['pc'],
    defaults: typedDefaults(defaultPriorityClass), table: priorityClassPrinter },
  { group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice', plural: 'endpointslices', singular: 'endpointslice', namespaced: true,
    defaults: typedDefaults(defaultEndpointSlice), table: endpointSlicePrinter },
  { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress', plural: 'ingresses', singular: 'ingress', namespaced: true, shortNames: ['ing'], subresources: ['status'], generation: true, emptyStatus: { loadBalancer: {} },
    validate: validateIngress, table: ingressPrinter },
  { group: 'networking.k8s.io', version: 'v1', kind: 'IngressClass', plural: 'ingressclasses', singular: 'ingressclass', namespaced: false,
    defaults: typedDefaults(defaultIngressClass), table: ingressClassPrinter },
  { group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy', plural: 'networkpolicies', singular: 'networkpolicy', namespaced: true, shortNames: ['netpol'], generation: true,
    defaults: typedDefaults(defaultNetworkPolicy), validate: validateNetworkPolicy, table: networkPolicyPrinter },
  { group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass', plural: 'storageclasses', singular: 'storageclass', namespaced: false, shortNames: ['sc'], returnDeletedObject: true,
    defaults: typedDefaults(defaultStorageClass), table: storageClassPrinter },
  // Writes of roles and bindings are checked against privilege escalation (the `escalate` and `bind` verbs).
  {
    group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', plural: 'roles', singular: 'role', namespaced: true,
    prepareCreate: (o, ctx) => checkRoleWrite('roles', o, undefined, ctx), prepareUpdate: (o, old, ctx) => checkRoleWrite('roles', o, old, ctx),
    nameValidation: nameIsPathSegment, validate: (o) => validateRole(o, true),
  },
  {
    group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding', plural: 'rolebindings', singular: 'rolebinding', namespaced: true,
    prepareCreate: (o, ctx) => checkBindingWrite('rolebindings', o, undefined, ctx), prepareUpdate: (o, old, ctx) => checkBindingWrite('rolebindings', o, old, ctx),
    nameValidation: nameIsPathSegment, defaults: typedDefaults(defaultRoleBinding), validate: (o, old) => validateRoleBinding(o, old, false), table: roleBindingPrinter,
  },
  {
    group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', singular: 'clusterrole', namespaced: false,
    prepareCreate: (o, ctx) => checkRoleWrite('clusterroles', o, undefined, ctx), prepareUpdate: (o, old, ctx) => checkRoleWrite('clusterroles', o, old, ctx),
    nameValidation: nameIsPathSegment, validate: (o) => validateRole(o, false),
  },
  {
    group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBinding', plural: 'clusterrolebindings', singular: 'clusterrolebinding', namespaced: false,
    prepareCreate: (o, ctx) => checkBindingWrite('clusterrolebindings', o, undefined, ctx), prepareUpdate: (o, old, ctx) => checkBindingWrite('clusterrolebindings', o, old, ctx),
    nameValidation: nameIsPathSegment, defaults: typedDefaults(defaultRoleBinding), validate: (o, old) => validateRoleBinding(o, old, true),
    table: clusterRoleBindingPrinter,
  },
  {
    group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview', plural: 'subjectaccessreviews', singular: 'subjectaccessreview',
    namespaced: false, verbs: createOnly, virtualCreate: subjectAccessReview,
  },
  {
    group: 'authorization.k8s.io', version: 'v1', kind: 'LocalSubjectAccessReview', plural: 'localsubjectaccessreviews', singular: 'localsubjectaccessreview',
    namespaced: true, verbs: createOnly, virtualCreate: localSubjectAccessReview,
  },
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
