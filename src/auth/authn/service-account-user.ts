// The user a ServiceAccount token authenticates as: `system:serviceaccount:NS:NAME` in the ServiceAccount groups,
// with the pod, node and credential id in `extra` under upstream's keys.
import { credentialIdKey, type UserInfo } from '../types.js';
import { serviceAccountGroups, serviceAccountUsername } from '../identities.js';

export const extraKeys = {
  credentialId: credentialIdKey,
  nodeName: 'authentication.kubernetes.io/node-name',
  nodeUid: 'authentication.kubernetes.io/node-uid',
  podName: 'authentication.kubernetes.io/pod-name',
  podUid: 'authentication.kubernetes.io/pod-uid',
} as const;

export interface ServiceAccountInfo {
  namespace: string;
  name: string;
  uid: string;
  podName?: string;
  podUid?: string;
  nodeName?: string;
  nodeUid?: string;
  /** `JTI=<jti>` for tokens that carry one. */
  credentialId?: string;
}

/** The user a validated ServiceAccount token authenticates as (system:authenticated is added by authentication). */
export function serviceAccountTokenUser(sa: ServiceAccountInfo): UserInfo {
  const extra: Record<string, string[]> = {};
  if (sa.credentialId) extra[extraKeys.credentialId] = [sa.credentialId];
  if (sa.nodeName) {
    extra[extraKeys.nodeName] = [sa.nodeName];
    if (sa.nodeUid) extra[extraKeys.nodeUid] = [sa.nodeUid];
  }
  if (sa.podName && sa.podUid) {
    extra[extraKeys.podName] = [sa.podName];
    extra[extraKeys.podUid] = [sa.podUid];
  }
  const user: UserInfo = { username: serviceAccountUsername(sa.namespace, sa.name), uid: sa.uid, groups: serviceAccountGroups(sa.namespace) };
  if (Object.keys(extra).length) user.extra = extra;
  return user;
}
