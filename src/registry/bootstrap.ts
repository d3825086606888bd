// Objects every cluster starts with: system namespaces, the kubernetes Service, priority and storage classes, and
// the default RBAC roles and bindings (whatever the authorization mode, as on a real cluster).
import type { KObject } from '../machinery/types.js';
import { bootstrapPolicy } from '../auth/rbac/bootstrap-policy.js';
import { ApiError } from '../machinery/errors.js';
import type { Registry } from './registry.js';
import { storageKey } from './resource.js';
import { syncLocalAPIServices } from './resources/apiservices.js';
import { drive, settled, type Steps } from '../util/steps.js';

const namespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
/** The address the `kubernetes` Endpoints advertise (the simulated control-plane node). */
const apiAddress = '172.18.0.2';

function* ensure(reg: Registry, group: string, plural: string, namespace: string, obj: KObject): Steps<void> {
  const def = reg.defs.find((d) => d.group === group && d.plural === plural);
  if (!def) return;
  if (reg.getStored(storageKey(def), def.namespaced ? namespace : '', obj.metadata.name ?? '')) return;
  try {
    yield* settled(reg.create(def, namespace, obj, { webhooks: false }));
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 409)) throw e;
  }
}

/** Creates what is missing: done when it returns, or a promise on a store that waits (etcd). */
export function bootstrap(reg: Registry): void | Promise<void> {
  return drive(bootstrapSteps(reg));
}

function* bootstrapSteps(reg: Registry): Steps<void> {
  for (const name of namespaces) yield* ensure(reg, '', 'namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  yield* ensure(reg, '', 'services', 'default', {
    apiVersion: 'v1', kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }], sessionAffinity: 'None', type: 'ClusterIP' },
  });
  yield* ensure(reg, '', 'endpoints', 'default', {
    apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
    subsets: [{ addresses: [{ ip: apiAddress }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }],
  });
  yield* ensure(reg, 'discovery.k8s.io', 'endpointslices', 'default', {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
    addressType: 'IPv4', endpoints: [{ addresses: [apiAddress], conditions: { ready: true } }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }],
  });
  for (const [name, value, description] of [
    ['system-node-critical', 2000001000, 'Used for system critical pods that must not be moved from their current node.'],
    ['system-cluster-critical', 2000000000, 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.'],
  ] as const) {
    yield* ensure(reg, 'scheduling.k8s.io', 'priorityclasses', '', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, description, globalDefault: false, preemptionPolicy: 'PreemptLowerPriority' });
  }
  yield* ensure(reg, 'storage.k8s.io', 'storageclasses', '', {
    apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass',
    metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: 'bonsai.dev/simulated', reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer',
  });
  yield* settled(bootstrapPolicy(reg));
  yield* settled(syncLocalAPIServices(reg));
}
