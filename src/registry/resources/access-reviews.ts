// Self-reviews: computed answers, never stored. Authentication and authorization are off: everyone is the
// cluster admin and everything is allowed.
import type { KObject } from '../../machinery/types.js';

export function selfSubjectAccessReview(obj: KObject): KObject {
  return { ...obj, apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', metadata: { ...obj.metadata, creationTimestamp: undefined }, status: { allowed: true, reason: 'authorization is disabled in bonsai' } };
}

export function selfSubjectRulesReview(obj: KObject): KObject {
  return {
    ...obj, apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', metadata: { ...obj.metadata, creationTimestamp: undefined },
    status: {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    },
  };
}

/** authentication.k8s.io SelfSubjectReview (`kubectl auth whoami`). */
export function selfSubjectReview(obj: KObject): KObject {
  return {
    ...obj, apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: { ...obj.metadata, creationTimestamp: undefined },
    status: { userInfo: { username: 'bonsai-admin', groups: ['system:masters', 'system:authenticated'] } },
  };
}
