// Who the in-process components are (as upstream's components authenticate) and the ServiceAccount user names.
import { isDns1123Label, isDns1123Subdomain } from '../machinery/names.js';
import { groups, type UserInfo } from './types.js';

const saPrefix = 'system:serviceaccount:';

/** `system:serviceaccount:NS:NAME`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${saPrefix}${namespace}:${name}`;
}

/** The groups every ServiceAccount of a namespace is in (system:authenticated is added by authentication). */
export function serviceAccountGroups(namespace: string): string[] {
  return [groups.serviceAccounts, `${groups.serviceAccounts}:${namespace}`];
}

/** Namespace and name of a ServiceAccount user name, or undefined when it is not one (as upstream's SplitUsername). */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(saPrefix)) return undefined;
  const parts = username.slice(saPrefix.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts;
  if (isDns1123Label(namespace).length || isDns1123Subdomain(name).length) return undefined;
  return { namespace, name };
}

export function serviceAccountUser(namespace: string, name: string): UserInfo {
  return { username: serviceAccountUsername(namespace, name), groups: [...serviceAccountGroups(namespace), groups.authenticated] };
}

/** Where an in-process component's writes come from, for the audit log. */
export interface ComponentInfo {
  /** What upstream's component sends as User-Agent. */
  userAgent: string;
}

const version = 'v1.35.0';
const agent = (binary: string, suffix = '') => `${binary}/${version} (linux/amd64) kubernetes/bonsai${suffix}`;

export interface ComponentIdentity {
  user: UserInfo;
  component: ComponentInfo;
}

/**
 * The identity each kube-controller-manager controller uses with --use-service-account-credentials: the
 * ServiceAccount kube-system/<client name>, where the client name is upstream's (some differ from the controller name).
 */
export const controllerClientNames: Record<string, string> = {
  'garbage-collector': 'generic-garbage-collector',
  namespace: 'namespace-controller',
  serviceaccount: 'service-account-controller',
  'root-ca-certificate-publisher': 'root-ca-cert-publisher',
  disruption: 'disruption-controller',
  endpoints: 'endpoint-controller',
  endpointslice: 'endpointslice-controller',
  'node-lifecycle': 'node-controller',
  'taint-eviction': 'node-controller', // upstream's taint eviction controller uses the node controller's role
  'pod-garbage-collector': 'pod-garbage-collector',
  replicaset: 'replicaset-controller',
  deployment: 'deployment-controller',
  job: 'job-controller',
  daemonset: 'daemon-set-controller',
  cronjob: 'cronjob-controller',
  'ttl-after-finished': 'ttl-after-finished-controller',
  'horizontal-pod-autoscaler': 'horizontal-pod-autoscaler',
  statefulset: 'statefulset-controller',
  'persistentvolume-binder': 'persistent-volume-binder',
  resourceclaim: 'resource-claim-controller',
  'clusterrole-aggregation': 'clusterrole-aggregation-controller',
};

export function controllerIdentity(controller: string): ComponentIdentity {
  const client = controllerClientNames[controller] ?? `${controller}-controller`;
  const user = serviceAccountUser('kube-system', client);
  return { user, component: { userAgent: agent('kube-controller-manager', `/${user.username}`) } };
}

/** kube-controller-manager's own identity (it creates the controllers' ServiceAccounts). */
export const controllerManagerIdentity: ComponentIdentity = {
  user: { username: 'system:kube-controller-manager', groups: [groups.authenticated] },
  component: { userAgent: agent('kube-controller-manager') },
};

export const schedulerIdentity: ComponentIdentity = {
  user: { username: 'system:kube-scheduler', groups: [groups.authenticated] },
  component: { userAgent: agent('kube-scheduler', '/scheduler') },
};

export function nodeIdentity(nodeName: string): ComponentIdentity {
  return {
    user: { username: `system:node:${nodeName}`, groups: [groups.nodes, groups.authenticated] },
    component: { userAgent: agent('kubelet') },
  };
}
