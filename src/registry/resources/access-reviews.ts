// Self-reviews: computed answers, never stored. Authentication is off: everyone is the cluster admin. (The
// authorization reviews are in authorization-reviews.ts.)
import type { KObject } from '../../machinery/types.js';

/** authentication.k8s.io SelfSubjectReview (`kubectl auth whoami`). */
export function selfSubjectReview(obj: KObject): KObject {
  return {
    ...obj, apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: { ...obj.metadata, creationTimestamp: undefined },
    status: { userInfo: { username: 'bonsai-admin', groups: ['system:masters', 'system:authenticated'] } },
  };
}
