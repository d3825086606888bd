// authorization.k8s.io self-reviews: computed answers, never stored. Authorization is off: everything is allowed.
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
