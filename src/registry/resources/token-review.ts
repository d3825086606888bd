// authentication.k8s.io TokenReview: a computed answer, never stored. The token goes through the same
// authenticators as a request's bearer token, for the audiences asked for (default: the API server's).
import { badRequest } from '../../machinery/errors.js';
import { isRecord, type KObject } from '../../machinery/types.js';
import { securityOf } from '../../auth/security.js';
import { userInfoJson } from '../../auth/types.js';
import type { StrategyContext } from '../resource.js';

export function tokenReview(obj: KObject, ctx: StrategyContext): KObject {
  const spec = isRecord(obj.spec) ? obj.spec : {};
  const token = typeof spec.token === 'string' ? spec.token : '';
  if (!token) throw badRequest('token is required for TokenReview in authentication');
  const audiences = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];
  const r = securityOf(ctx.registry).authenticator.reviewToken(token, audiences);
  const status: Record<string, unknown> = {};
  if (r.authenticated) status.authenticated = true;
  status.user = r.user ? userInfoJson(r.user) : {};
  if (r.audiences?.length) status.audiences = r.audiences;
  if (r.error) status.error = r.error;
  return {
    apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: { ...obj.metadata, creationTimestamp: undefined },
    spec: { token, ...(audiences.length ? { audiences } : {}) }, status,
  };
}
