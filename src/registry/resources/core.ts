// core/v1 resources: declarations only; behaviour specific to a resource lives in its own file.
import { pathGetter } from '../../machinery/fields.js';
import type { ResourceDef } from '../resource.js';
import { podStrategy } from './pods.js';
import { namespaceStrategy } from './namespaces.js';
import { serviceStrategy } from './services.js';
import { eventFieldSelectors } from './events.js';
import { secretStrategy } from './secrets.js';
import { typedDefaults } from './typed.js';
import {
  defaultEndpoints, defaultLimitRange, defaultNamespace, defaultPersistentVolume, defaultPersistentVolumeClaim, defaultPod,
  defaultPodTemplateKind, defaultReplicationController, defaultSecret, defaultService,
} from '../defaults/core.js';
import {
  validateConfigMap, validateNamespace, validatePod, validatePodTemplateKind, validatePvc, validateReplicationController, validateSecret,
  validateService,
} from '../validation/core.js';
import { nameIsDns1035Label, nameIsDnsLabel, nameIsPathSegment } from '../../machinery/names.js';
import {
  configMapPrinter, endpointsPrinter, namespacePrinter, podTemplatePrinter, replicationControllerPrinter, resourceQuotaPrinter, secretPrinter,
  serviceAccountPrinter, servicePrinter,
} from '../tables/core.js';
import { podPrinter } from '../tables/pods.js';
import { nodePrinter, persistentVolumeClaimPrinter, persistentVolumePrinter } from '../tables/nodes.js';
import { coreEventPrinter } from '../tables/events.js';

const rw = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** NodeStatus: daemonEndpoints.kubeletEndpoint.Port and every nodeInfo field are serialised even when unset. */
const emptyNodeStatus = {
  daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
  nodeInfo: {
    machineID: '', systemUUID: '', bootID: '', kernelVersion: '', osImage: '', containerRuntimeVersion: '', kubeletVersion: '',
    kubeProxyVersion: '', operatingSystem: '', architecture: '',
  },
};

export const coreResources: ResourceDef[] = [
  {
    group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', singular: 'namespace', namespaced: false,
    shortNames: ['ns'], subresources: ['status', 'finalize'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    keepStatusOnCreate: true, emptyStatus: {}, returnDeletedObject: true, fieldSelectors: { 'status.phase': pathGetter('status.phase') }, ...namespaceStrategy,
    defaults: typedDefaults(defaultNamespace), nameValidation: nameIsDnsLabel, validate: validateNamespace, table: namespacePrinter,
  },
  {
    group: '', version: 'v1', kind: 'Pod', plural: 'pods', singular: 'pod', namespaced: true, shortNames: ['po'], categories: ['all'],
    subresources: ['status', 'binding', 'eviction', 'log', 'exec', 'attach', 'portforward', 'proxy', 'ephemeralcontainers', 'resize'], generation: true,
    emptyStatus: {}, returnDeletedObject: true,
    fieldSelectors: {
      'spec.nodeName': pathGetter('spec.nodeName'), 'spec.restartPolicy': pathGetter('spec.restartPolicy'),
      'spec.schedulerName': pathGetter('spec.schedulerName'), 'spec.serviceAccountName': pathGetter('spec.serviceAccountName'),
      'spec.hostNetwork': (o) => String((o.spec as { hostNetwork?: boolean } | undefined)?.hostNetwork ?? false),
      'status.phase': pathGetter('status.phase'), 'status.podIP': pathGetter('status.podIP'),
      'status.nominatedNodeName': pathGetter('status.nominatedNodeName'),
    },
    ...podStrategy,
    defaults: typedDefaults(defaultPod), validate: validatePod, table: podPrinter,
  },
  {
    group: '', version: 'v1', kind: 'Node', plural: 'nodes', singular: 'node', namespaced: false, shortNames: ['no'],
    subresources: ['status', 'proxy'], keepStatusOnCreate: true, emptyStatus: emptyNodeStatus, fieldSelectors: { 'spec.unschedulable': (o) => String((o.spec as { unschedulable?: boolean } | undefined)?.unschedulable ?? false) },
    table: nodePrinter,
  },
  {
    group: '', version: 'v1', kind: 'Event', plural: 'events', singular: 'event', namespaced: true, shortNames: ['ev'], verbs: rw,
    fieldSelectors: eventFieldSelectors, nameValidation: nameIsPathSegment, table: coreEventPrinter,
  },
  { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', singular: 'configmap', namespaced: true, shortNames: ['cm'],
    validate: validateConfigMap, table: configMapPrinter },
  { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', singular: 'secret', namespaced: true, fieldSelectors: { type: pathGetter('type') }, ...secretStrategy,
    defaults: typedDefaults(defaultSecret), validate: validateSecret, table: secretPrinter },
  {
    group: '', version: 'v1', kind: 'Service', plural: 'services', singular: 'service', namespaced: true, shortNames: ['svc'], categories: ['all'],
    subresources: ['status', 'proxy'], verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    emptyStatus: { loadBalancer: {} }, returnDeletedObject: true,
    fieldSelectors: { 'spec.clusterIP': pathGetter('spec.clusterIP'), 'spec.type': pathGetter('spec.type') }, ...serviceStrategy,
    defaults: typedDefaults(defaultService), nameValidation: nameIsDns1035Label, validate: validateService, table: servicePrinter,
  },
  { group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', singular: 'serviceaccount', namespaced: true, shortNames: ['sa'], subresources: ['token'], returnDeletedObject: true,
    table: serviceAccountPrinter },
  {
    group: '', version: 'v1', kind: 'Endpoints', plural: 'endpoints', singular: 'endpoints', namespaced: true, shortNames: ['ep'],
    deprecationWarning: 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice',
    defaults: typedDefaults(defaultEndpoints), table: endpointsPrinter,
  },
  { group: '', version: 'v1', kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims', singular: 'persistentvolumeclaim', namespaced: true, shortNames: ['pvc'], subresources: ['status'], emptyStatus: {}, returnDeletedObject: true,
    defaults: typedDefaults(defaultPersistentVolumeClaim), validate: validatePvc, table: persistentVolumeClaimPrinter },
  { group: '', version: 'v1', kind: 'PersistentVolume', plural: 'persistentvolumes', singular: 'persistentvolume', namespaced: false, shortNames: ['pv'], subresources: ['status'], emptyStatus: {}, returnDeletedObject: true,
    defaults: typedDefaults(defaultPersistentVolume), table: persistentVolumePrinter },
  { group: '', version: 'v1', kind: 'LimitRange', plural: 'limitranges', singular: 'limitrange', namespaced: true, shortNames: ['limits'],
    defaults: typedDefaults(defaultLimitRange) },
  { group: '', version: 'v1', kind: 'ResourceQuota', plural: 'resourcequotas', singular: 'resourcequota', namespaced: true, shortNames: ['quota'], subresources: ['status'], emptyStatus: {}, returnDeletedObject: true,
    table: resourceQuotaPrinter },
  { group: '', version: 'v1', kind: 'PodTemplate', plural: 'podtemplates', singular: 'podtemplate', namespaced: true,
    defaults: typedDefaults(defaultPodTemplateKind), validate: validatePodTemplateKind, table: podTemplatePrinter },
  {
    group: '', version: 'v1', kind: 'ReplicationController', plural: 'replicationcontrollers', singular: 'replicationcontroller', namespaced: true,
    shortNames: ['rc'], categories: ['all'], subresources: ['status', 'scale'], generation: true, defaultPropagation: 'Orphan', emptyStatus: { replicas: 0 },
    fieldSelectors: { 'status.replicas': pathGetter('status.replicas') },
    defaults: typedDefaults(defaultReplicationController), validate: validateReplicationController, table: replicationControllerPrinter,
  },
];
