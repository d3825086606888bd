// Authentication, as the request chain uses it: `authenticate` gives the user a request comes from (or throws the
// 401 Status); authorization and impersonation follow it in the onRequest hook (src/api/server.ts).
import type { Registry } from '../../registry/registry.js';
import { securityOf } from '../security.js';
import type { UserInfo } from '../types.js';
import type { AuthnRequest } from './authenticator.js';

export { Authenticator, unauthorized, type AuthnRequest, type TokenReviewResult } from './authenticator.js';

/** The user a request to `reg`'s server comes from; throws the 401 ApiError for an invalid credential. */
export function authenticate(reg: Registry, req: AuthnRequest): Promise<UserInfo> {
  return securityOf(reg).authenticator.authenticate(req);
}
