// Self-reviews: computed answers, never stored: who the requesting user is. (The authorization reviews are in
// authorization-reviews.ts.)
import type { KObject } from '../../machinery/types.js';
import type { StrategyContext } from '../resource.js';
import { anonymousUser, userInfoJson } from '../../auth/types.js';

/** authentication.k8s.io SelfSubjectReview (`kubectl auth whoami`): the user the request authenticated as. */
export function selfSubjectReview(obj: KObject, ctx: StrategyContext): KObject {
  const { metadata } = obj;
  return {
    apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: { ...metadata, creationTimestamp: undefined },
    status: { userInfo: userInfoJson(ctx.user ?? anonymousUser) },
  };
}
