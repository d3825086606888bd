// Self-reviews: computed answers, never stored: who the requesting user is. (The authorization reviews are in
// authorization-reviews.ts.)
import type { KObject } from '../../machinery/types.js';
import type { StrategyContext } from '../resource.js';
import { anonymousUser, type UserInfo } from '../../auth/types.js';

/** A user as authentication.k8s.io's UserInfo: empty fields left out, extra keys in Go's (sorted) order. */
export function userInfoJson(user: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: user.username };
  if (user.uid) out.uid = user.uid;
  if (user.groups.length) out.groups = [...user.groups];
  const keys = Object.keys(user.extra ?? {}).sort();
  if (keys.length) out.extra = Object.fromEntries(keys.map((k) => [k, [...(user.extra?.[k] ?? [])]]));
  return out;
}

/** authentication.k8s.io SelfSubjectReview (`kubectl auth whoami`): the user the request authenticated as. */
export function selfSubjectReview(obj: KObject, ctx: StrategyContext): KObject {
  const { metadata } = obj;
  return {
    apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: { ...metadata, creationTimestamp: undefined },
    status: { userInfo: userInfoJson(ctx.user ?? anonymousUser) },
  };
}
