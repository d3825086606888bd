// apps/v1 resources.
import { pathGetter } from '../../machinery/fields.js';
import type { ResourceDef } from '../resource.js';
import { prepareDaemonSetCreate, prepareDaemonSetUpdate } from '../defaults/daemonset-generation.js';
import { defaultDaemonSet, defaultDeployment, defaultReplicaSet, defaultStatefulSet } from '../defaults/apps.js';
import { validateDaemonSet, validateDeployment, validateReplicaSet, validateStatefulSet } from '../validation/apps.js';
import { controllerRevisionPrinter, daemonSetPrinter, deploymentPrinter, replicaSetPrinter, statefulSetPrinter } from '../tables/apps.js';
import { typedDefaults } from './typed.js';

export const appsResources: ResourceDef[] = [
  { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', singular: 'deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'], subresources: ['status', 'scale'], generation: true, emptyStatus: {},
    defaults: typedDefaults(defaultDeployment), validate: validateDeployment, table: deploymentPrinter },
  { group: 'apps', version: 'v1', kind: 'ReplicaSet', plural: 'replicasets', singular: 'replicaset', namespaced: true, shortNames: ['rs'], categories: ['all'], subresources: ['status', 'scale'], generation: true, emptyStatus: { replicas: 0 }, fieldSelectors: { 'status.replicas': pathGetter('status.replicas') },
    defaults: typedDefaults(defaultReplicaSet), validate: validateReplicaSet, table: replicaSetPrinter },
  { group: 'apps', version: 'v1', kind: 'StatefulSet', plural: 'statefulsets', singular: 'statefulset', namespaced: true, shortNames: ['sts'], categories: ['all'], subresources: ['status', 'scale'], generation: true, emptyStatus: { replicas: 0, availableReplicas: 0 },
    defaults: typedDefaults(defaultStatefulSet), validate: validateStatefulSet, table: statefulSetPrinter },
  { group: 'apps', version: 'v1', kind: 'DaemonSet', plural: 'daemonsets', singular: 'daemonset', namespaced: true, shortNames: ['ds'], categories: ['all'], subresources: ['status'], generation: true,
    emptyStatus: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }, prepareCreate: prepareDaemonSetCreate, prepareUpdate: prepareDaemonSetUpdate,
    defaults: typedDefaults(defaultDaemonSet), validate: validateDaemonSet, table: daemonSetPrinter },
  { group: 'apps', version: 'v1', kind: 'ControllerRevision', plural: 'controllerrevisions', singular: 'controllerrevision', namespaced: true, table: controllerRevisionPrinter },
];
