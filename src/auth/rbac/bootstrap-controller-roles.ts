// The system:controller:* ClusterRoles (and their bindings to the kube-system ServiceAccounts) of the
// kube-controller-manager controllers Bonsai runs, written down from upstream's bootstrap controller policy.
import { controllerClientNames } from '../identities.js';
import { bind, events, r, read, serviceAccount, type BindingSpec, type RoleSpec } from './policy-dsl.js';

const rw = 'create delete get list patch update watch';

/** Rules by upstream client name (the ServiceAccount each controller acts as). */
const controllerRules: Record<string, RoleSpec['rules']> = {
  'clusterrole-aggregation-controller': [r('escalate get list patch update watch', 'rbac.authorization.k8s.io', 'clusterroles')],
  'cronjob-controller': [
    r('get list update watch', 'batch', 'cronjobs'), r(rw, 'batch', 'jobs'), r('update', 'batch', 'cronjobs/status'), r('update', 'batch', 'cronjobs/finalizers'),
    r('delete list watch', 'core', 'pods'), events,
  ],
  'daemon-set-controller': [
    r(read, 'apps extensions', 'daemonsets'), r('update', 'apps extensions', 'daemonsets/status'), r('update', 'apps extensions', 'daemonsets/finalizers'),
    r('list watch', 'core', 'nodes'), r('create delete list patch watch', 'core', 'pods'), r('create', 'core', 'pods/binding'), r(rw, 'apps', 'controllerrevisions'), events,
  ],
  'deployment-controller': [
    r('get list update watch', 'apps extensions', 'deployments'), r('update', 'apps extensions', 'deployments/status'), r('update', 'apps extensions', 'deployments/finalizers'),
    r(rw, 'apps extensions', 'replicasets'), r('get list update watch', 'core', 'pods'), events,
  ],
  'disruption-controller': [
    r(read, 'apps extensions', 'deployments'), r(read, 'apps extensions', 'replicasets'), r(read, 'core', 'replicationcontrollers'), r(read, 'policy', 'poddisruptionbudgets'),
    r(read, 'apps', 'statefulsets'), r('update', 'policy', 'poddisruptionbudgets/status'), r('patch update', 'core', 'pods/status'), r('get', '*', '*/scale'), events,
  ],
  'endpoint-controller': [
    r(read, 'core', 'pods services'), r('create delete get list update watch', 'core', 'endpoints'), r('create', 'core', 'endpoints/restricted'), events,
  ],
  'endpointslice-controller': [
    r(read, 'core', 'nodes pods services'), r('update', 'core', 'services/finalizers'), r('create delete get list update watch', 'discovery.k8s.io', 'endpointslices'), events,
  ],
  'generic-garbage-collector': [r('delete get list patch update watch', '*', '*'), events],
  'horizontal-pod-autoscaler': [
    r(read, 'autoscaling', 'horizontalpodautoscalers'), r('update', 'autoscaling', 'horizontalpodautoscalers/status'), r('get update', '*', '*/scale'),
    r('list watch', 'core', 'pods'), r('list watch', 'metrics.k8s.io', 'pods'), r(read, 'custom.metrics.k8s.io', '*'), r(read, 'external.metrics.k8s.io', '*'), events,
  ],
  'job-controller': [
    r('get list patch update watch', 'batch', 'jobs'), r('update', 'batch', 'jobs/status'), r('update', 'batch', 'jobs/finalizers'),
    r('create delete list patch watch', 'core', 'pods'), events,
  ],
  'namespace-controller': [
    r('delete get list watch', 'core', 'namespaces'), r('update', 'core', 'namespaces/finalize namespaces/status'), r('delete deletecollection get list watch', '*', '*'),
  ],
  'node-controller': [
    r('delete get list patch update watch', 'core', 'nodes'), r('patch update', 'core', 'nodes/status'), r('patch update', 'core', 'pods/status'),
    r('delete get list watch', 'core', 'pods'), events,
  ],
  'persistent-volume-binder': [
    r('create delete get list update watch', 'core', 'persistentvolumes'), r('update', 'core', 'persistentvolumes/status'),
    r('get list update watch', 'core', 'persistentvolumeclaims'), r('update', 'core', 'persistentvolumeclaims/status'),
    r('create delete get list watch', 'core', 'pods'), r(read, 'storage.k8s.io', 'storageclasses'), r('list watch', 'core', 'nodes'), events, r('watch', 'core', 'events'),
  ],
  'pod-garbage-collector': [r('delete list watch', 'core', 'pods'), r(read, 'core', 'nodes'), r('patch', 'core', 'pods/status')],
  'replicaset-controller': [
    r('get list update watch', 'apps extensions', 'replicasets'), r('update', 'apps extensions', 'replicasets/status'), r('update', 'apps extensions', 'replicasets/finalizers'),
    r('create delete list patch watch', 'core', 'pods'), events,
  ],
  'resource-claim-controller': [
    r('get list watch', 'core', 'pods'), r('update', 'core', 'pods/finalizers'), r('patch update', 'core', 'pods/status'),
    r('create delete get list watch', 'resource.k8s.io', 'resourceclaims'), r('patch update', 'resource.k8s.io', 'resourceclaims resourceclaims/status'),
    r('get list watch', 'resource.k8s.io', 'resourceclaimtemplates'), events,
  ],
  'service-account-controller': [r('create', 'core', 'serviceaccounts'), events],
  'statefulset-controller': [
    r('list watch', 'core', 'pods'), r(read, 'apps', 'statefulsets'), r('update', 'apps', 'statefulsets/status'), r('update', 'apps', 'statefulsets/finalizers'),
    r('create delete get patch update', 'core', 'pods'), r(rw, 'apps', 'controllerrevisions'), r('create get list watch', 'core', 'persistentvolumeclaims'),
    r('delete update', 'core', 'persistentvolumeclaims'), r('update', 'core', 'pods/finalizers'), events,
  ],
  'ttl-after-finished-controller': [r('delete get list watch', 'batch', 'jobs'), events],
};

const clients = [...new Set(Object.values(controllerClientNames))].sort();

export const controllerRoles: RoleSpec[] = clients.map((client) => ({ name: `system:controller:${client}`, rules: controllerRules[client] ?? [] }));

export const controllerRoleBindings: BindingSpec[] = clients.map((client) => bind(`system:controller:${client}`, [serviceAccount(client)]));
