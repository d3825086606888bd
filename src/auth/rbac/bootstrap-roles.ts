// The default ClusterRoles and ClusterRoleBindings kube-apiserver 1.35 bootstraps (besides the controllers' own),
// written down from upstream's bootstrap policy. admin, edit and view get their rules from the aggregate-to-* roles.
import {
  bind, events, group, r, read, readWrite, serviceAccount, urls, user, write, type BindingSpec, type RoleSpec,
} from './policy-dsl.js';

const aggregate = (to: string) => ({ [`rbac.authorization.k8s.io/aggregate-to-${to}`]: 'true' });
const reviews = (group: string, resources: string) => r('create', group, resources);
const approver = (signer: string) => r('approve', 'certificates.k8s.io', 'signers', `kubernetes.io/${signer}`);
const leaderLease = (holder: string) => [r('create', 'coordination.k8s.io', 'leases'), r('get update', 'coordination.k8s.io', 'leases', holder)];

export const clusterRoles: RoleSpec[] = [
  { name: 'cluster-admin', rules: [r('*', '*', '*'), urls('*', '*')] },
  { name: 'admin', aggregateFrom: 'admin' },
  { name: 'edit', aggregateFrom: 'edit', labels: aggregate('admin') },
  { name: 'view', aggregateFrom: 'view', labels: aggregate('edit') },
  {
    name: 'system:aggregate-to-admin', labels: aggregate('admin'),
    rules: [reviews('authorization.k8s.io', 'localsubjectaccessreviews'), r(readWrite, 'rbac.authorization.k8s.io', 'rolebindings roles')],
  },
  {
    name: 'system:aggregate-to-edit', labels: aggregate('edit'),
    rules: [
      r(read, 'core', 'pods/attach pods/exec pods/portforward pods/proxy secrets services/proxy'),
      r('impersonate', 'core', 'serviceaccounts'),
      r(write, 'core', 'pods pods/attach pods/exec pods/portforward pods/proxy'),
      r('create', 'core', 'pods/eviction'),
      r(write, 'core', 'configmaps events persistentvolumeclaims replicationcontrollers replicationcontrollers/scale secrets serviceaccounts services services/proxy'),
      r('create', 'core', 'serviceaccounts/token'),
      r(write, 'apps', 'daemonsets deployments deployments/rollback deployments/scale replicasets replicasets/scale statefulsets statefulsets/scale'),
      r(write, 'autoscaling', 'horizontalpodautoscalers'),
      r(write, 'batch', 'cronjobs jobs'),
      r(write, 'extensions', 'daemonsets deployments deployments/rollback deployments/scale ingresses networkpolicies replicasets replicasets/scale replicationcontrollers/scale'),
      r(write, 'policy', 'poddisruptionbudgets'),
      r(write, 'networking.k8s.io', 'ingresses networkpolicies'),
      r(readWrite, 'coordination.k8s.io', 'leases'),
    ],
  },
  {
    name: 'system:aggregate-to-view', labels: aggregate('view'),
    rules: [
      r(read, 'core', 'configmaps endpoints persistentvolumeclaims persistentvolumeclaims/status pods replicationcontrollers replicationcontrollers/scale serviceaccounts services services/status'),
      r(read, 'core', 'bindings events limitranges namespaces/status pods/log pods/status replicationcontrollers/status resourcequotas resourcequotas/status'),
      r(read, 'core', 'namespaces'),
      r(read, 'discovery.k8s.io', 'endpointslices'),
      r(read, 'apps', 'controllerrevisions daemonsets daemonsets/status deployments deployments/scale deployments/status replicasets replicasets/scale replicasets/status statefulsets statefulsets/scale statefulsets/status'),
      r(read, 'autoscaling', 'horizontalpodautoscalers horizontalpodautoscalers/status'),
      r(read, 'batch', 'cronjobs cronjobs/status jobs jobs/status'),
      r(read, 'extensions', 'daemonsets daemonsets/status deployments deployments/scale deployments/status ingresses ingresses/status networkpolicies replicasets replicasets/scale replicasets/status replicationcontrollers/scale'),
      r(read, 'policy', 'poddisruptionbudgets poddisruptionbudgets/status'),
      r(read, 'networking.k8s.io', 'ingresses ingresses/status networkpolicies'),
    ],
  },
  { name: 'system:auth-delegator', rules: [reviews('authentication.k8s.io', 'tokenreviews'), reviews('authorization.k8s.io', 'subjectaccessreviews')] },
  {
    name: 'system:basic-user',
    rules: [reviews('authorization.k8s.io', 'selfsubjectaccessreviews selfsubjectrulesreviews'), reviews('authentication.k8s.io', 'selfsubjectreviews')],
  },
  { name: 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', rules: [r('create', 'certificates.k8s.io', 'certificatesigningrequests/nodeclient')] },
  { name: 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', rules: [r('create', 'certificates.k8s.io', 'certificatesigningrequests/selfnodeclient')] },
  { name: 'system:certificates.k8s.io:kube-apiserver-client-approver', rules: [approver('kube-apiserver-client')] },
  { name: 'system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', rules: [approver('kube-apiserver-client-kubelet')] },
  { name: 'system:certificates.k8s.io:kubelet-serving-approver', rules: [approver('kubelet-serving')] },
  { name: 'system:certificates.k8s.io:legacy-unknown-approver', rules: [approver('legacy-unknown')] },
  { name: 'system:discovery', rules: [urls('get', '/api /api/* /apis /apis/* /healthz /livez /openapi /openapi/* /readyz /version /version/')] },
  { name: 'system:heapster', rules: [r(read, 'core', 'events namespaces nodes pods'), r(read, 'extensions', 'deployments')] },
  { name: 'system:kube-aggregator', rules: [r(read, 'core', 'endpoints services')] },
  {
    name: 'system:kube-controller-manager',
    rules: [
      events, ...leaderLease('kube-controller-manager'),
      r('create', 'core', 'secrets serviceaccounts'),
      r('delete', 'core', 'secrets'),
      r('get', 'core', 'configmaps namespaces secrets serviceaccounts'),
      r('update', 'core', 'secrets serviceaccounts'),
      reviews('authentication.k8s.io', 'tokenreviews'),
      reviews('authorization.k8s.io', 'subjectaccessreviews'),
      r('list watch', '*', '*'),
      r('create', 'core', 'serviceaccounts/token'),
    ],
  },
  { name: 'system:kube-dns', rules: [r('list watch', 'core', 'endpoints services')] },
  {
    name: 'system:kube-scheduler',
    rules: [
      events, ...leaderLease('kube-scheduler'),
      r(read, 'core', 'nodes'),
      r('delete get list watch', 'core', 'pods'),
      r('create', 'core', 'bindings pods/binding'),
      r('patch update', 'core', 'pods/status'),
      r(read, 'core', 'replicationcontrollers services'),
      r(read, 'apps extensions', 'replicasets'),
      r(read, 'apps', 'statefulsets'),
      r(read, 'policy', 'poddisruptionbudgets'),
      r(read, 'core', 'persistentvolumeclaims persistentvolumes'),
      reviews('authentication.k8s.io', 'tokenreviews'),
      reviews('authorization.k8s.io', 'subjectaccessreviews'),
      r(read, 'storage.k8s.io', 'csinodes'),
      r(read, 'core', 'namespaces'),
      r(read, 'storage.k8s.io', 'csidrivers'),
      // Dynamic Resource Allocation (upstream's role since 1.32): claims are allocated and reserved, slices and classes read.
      r(read, 'resource.k8s.io', 'deviceclasses resourceclaims resourceslices'),
      r('patch update', 'resource.k8s.io', 'resourceclaims resourceclaims/status'),
      r(read, 'storage.k8s.io', 'csistoragecapacities'),
    ],
  },
  {
    name: 'system:kubelet-api-admin',
    rules: [r(read, 'core', 'nodes'), r('proxy', 'core', 'nodes'), r('*', 'core', 'nodes/log nodes/metrics nodes/proxy nodes/stats')],
  },
  { name: 'system:monitoring', rules: [urls('get', '/healthz /healthz/* /livez /livez/* /metrics /metrics/slis /readyz /readyz/*')] },
  {
    name: 'system:node',
    rules: [
      reviews('authentication.k8s.io', 'tokenreviews'),
      reviews('authorization.k8s.io', 'localsubjectaccessreviews subjectaccessreviews'),
      r(read, 'core', 'services'),
      r('create get list watch', 'core', 'nodes'),
      r('patch update', 'core', 'nodes/status'),
      r('patch update', 'core', 'nodes'),
      r('create patch update', 'core', 'events'),
      r(read, 'core', 'pods'),
      r('create delete', 'core', 'pods'),
      r('patch update', 'core', 'pods/status'),
      r('create', 'core', 'pods/eviction'),
      r(read, 'core', 'configmaps secrets'),
      r('get', 'core', 'persistentvolumeclaims persistentvolumes'),
      r('get', 'core', 'endpoints'),
      r('create get list watch', 'certificates.k8s.io', 'certificatesigningrequests'),
      r('create delete get patch update', 'coordination.k8s.io', 'leases'),
      r('get', 'storage.k8s.io', 'volumeattachments'),
      r('create', 'core', 'serviceaccounts/token'),
      r('get patch update', 'core', 'persistentvolumeclaims/status'),
      r(read, 'storage.k8s.io', 'csidrivers'),
      r('create delete get patch update', 'storage.k8s.io', 'csinodes'),
      r(read, 'node.k8s.io', 'runtimeclasses'),
    ],
  },
  { name: 'system:node-bootstrapper', rules: [r('create get list watch', 'certificates.k8s.io', 'certificatesigningrequests')] },
  { name: 'system:node-problem-detector', rules: [r('get', 'core', 'nodes'), r('patch', 'core', 'nodes/status'), events] },
  {
    name: 'system:node-proxier',
    rules: [r('list watch', 'core', 'endpoints services'), r(read, 'core', 'nodes'), events, r('list watch', 'discovery.k8s.io', 'endpointslices')],
  },
  {
    name: 'system:persistent-volume-provisioner',
    rules: [
      r('create delete get list watch', 'core', 'persistentvolumes'),
      r('get list update watch', 'core', 'persistentvolumeclaims'),
      r(read, 'storage.k8s.io', 'storageclasses'),
      r('watch', 'core', 'events'),
      events,
    ],
  },
  { name: 'system:public-info-viewer', rules: [urls('get', '/healthz /livez /readyz /version /version/')] },
  { name: 'system:service-account-issuer-discovery', rules: [urls('get', '/.well-known/openid-configuration /openid/v1/jwks')] },
  {
    name: 'system:volume-scheduler',
    rules: [r('get list patch update watch', 'core', 'persistentvolumes'), r(read, 'storage.k8s.io', 'storageclasses'), r('get list patch update watch', 'core', 'persistentvolumeclaims')],
  },
];

export const clusterRoleBindings: BindingSpec[] = [
  bind('cluster-admin', [group('system:masters')]),
  bind('system:basic-user', [group('system:authenticated')]),
  bind('system:discovery', [group('system:authenticated')]),
  bind('system:kube-controller-manager', [user('system:kube-controller-manager')]),
  bind('system:kube-dns', [serviceAccount('kube-dns')]),
  bind('system:kube-scheduler', [user('system:kube-scheduler')]),
  bind('system:monitoring', [group('system:monitoring')]),
  bind('system:node', []),
  bind('system:node-proxier', [user('system:kube-proxy')]),
  bind('system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
  bind('system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
  bind('system:volume-scheduler', [user('system:kube-scheduler')]),
];

/** Roles and bindings in kube-system and kube-public (leader election, extension API servers, bootstrap tokens). */
export const namespacedRoles: Array<RoleSpec & { namespace: string }> = [
  {
    namespace: 'kube-public', name: 'system:controller:bootstrap-signer',
    rules: [r(read, 'core', 'configmaps'), r('update', 'core', 'configmaps', 'cluster-info'), events],
  },
  { namespace: 'kube-system', name: 'extension-apiserver-authentication-reader', rules: [r(read, 'core', 'configmaps', 'extension-apiserver-authentication')] },
  { namespace: 'kube-system', name: 'system::leader-locking-kube-controller-manager', rules: [r('create get list update watch', 'coordination.k8s.io', 'leases'), r('create get list update watch', 'coordination.k8s.io', 'leasecandidates')] },
  { namespace: 'kube-system', name: 'system::leader-locking-kube-scheduler', rules: [r('create get list update watch', 'coordination.k8s.io', 'leases'), r('create get list update watch', 'coordination.k8s.io', 'leasecandidates')] },
  { namespace: 'kube-system', name: 'system:controller:bootstrap-signer', rules: [r(read, 'core', 'secrets')] },
  { namespace: 'kube-system', name: 'system:controller:cloud-provider', rules: [r('create get list watch', 'core', 'configmaps')] },
  { namespace: 'kube-system', name: 'system:controller:token-cleaner', rules: [r('delete get list watch', 'core', 'secrets'), events] },
];

export const namespacedRoleBindings: Array<BindingSpec & { namespace: string }> = [
  { namespace: 'kube-public', ...bind('system:controller:bootstrap-signer', [serviceAccount('bootstrap-signer')], 'system:controller:bootstrap-signer', 'Role') },
  {
    namespace: 'kube-system',
    ...bind('system::extension-apiserver-authentication-reader', [user('system:kube-controller-manager'), user('system:kube-scheduler')], 'extension-apiserver-authentication-reader', 'Role'),
  },
  {
    namespace: 'kube-system',
    ...bind('system::leader-locking-kube-controller-manager', [user('system:kube-controller-manager'), serviceAccount('kube-controller-manager'), serviceAccount('leader-election-controller')], undefined, 'Role'),
  },
  { namespace: 'kube-system', ...bind('system::leader-locking-kube-scheduler', [user('system:kube-scheduler'), serviceAccount('kube-scheduler')], undefined, 'Role') },
  { namespace: 'kube-system', ...bind('system:controller:bootstrap-signer', [serviceAccount('bootstrap-signer')], undefined, 'Role') },
  { namespace: 'kube-system', ...bind('system:controller:cloud-provider', [serviceAccount('cloud-provider')], undefined, 'Role') },
  { namespace: 'kube-system', ...bind('system:controller:token-cleaner', [serviceAccount('token-cleaner')], undefined, 'Role') },
];
