// The authentication chain of every request, in kube-apiserver's order: a verified client certificate, then a
// bearer token (token file, ServiceAccount JWTs, the admin token). The first user wins and joins
// system:authenticated. With no credential the request is anonymous (`system:anonymous`), when allowed; an invalid
// credential is always a 401, never anonymous.
import { ApiError } from '../../machinery/errors.js';
import { anonymousUser, groups, type UserInfo } from '../types.js';
import { authenticateBearer } from './bearer-token.js';
import { authenticateClientCertificate } from './client-certificate.js';
import { firstUser, isAuthenticated, type Authenticated, type Outcome, type TokenAuthenticator } from './outcome.js';

/** What authentication reads of a request (a node IncomingMessage fits). */
export interface AuthnRequest {
  headers: { authorization?: string | string[] };
  socket?: unknown;
}

export interface AuthenticatorOptions {
  tokens: TokenAuthenticator;
  /** The API server's audiences: what requests to the API ask tokens to be good for. */
  apiAudiences: string[];
  /** `--anonymous-auth` (default true, as upstream). */
  anonymous: boolean;
}

/** The 401 upstream answers for a missing or invalid credential. */
export const unauthorized = () => new ApiError(401, 'Unauthorized', 'Unauthorized');

export interface TokenReviewResult {
  authenticated: boolean;
  user?: UserInfo;
  audiences?: string[];
  error?: string;
}

/** Adds system:authenticated, as upstream's group adder does (not to anonymous or (un)authenticated users). */
function withAuthenticatedGroup(a: Authenticated): Authenticated {
  const u = a.user;
  if (u.username === anonymousUser.username || u.groups.includes(groups.authenticated) || u.groups.includes(groups.unauthenticated)) return a;
  return { ...a, user: { ...u, groups: [...u.groups, groups.authenticated] } };
}

export class Authenticator {
  constructor(private readonly opts: AuthenticatorOptions) {}

  /** A verified client certificate, then a bearer token (tried only when the certificate gave no user). */
  private union(req: AuthnRequest, audiences: string[]): Outcome {
    const o = firstUser([
      () => authenticateClientCertificate(req.socket),
      () => authenticateBearer(req.headers.authorization, this.opts.tokens, audiences),
    ]);
    return isAuthenticated(o) ? withAuthenticatedGroup(o) : o;
  }

  /** The user a request acts as; throws the 401 Status when its credential is invalid or anonymity is off. */
  authenticateRequest(req: AuthnRequest): UserInfo {
    const o = this.union(req, this.opts.apiAudiences);
    if (o && 'user' in o) return o.user;
    if (o || !this.opts.anonymous) throw unauthorized();
    return { username: anonymousUser.username, groups: [...anonymousUser.groups] };
  }

  /** A TokenReview: the token alone, for `audiences` (default: the API server's). */
  reviewToken(token: string, audiences: string[] | undefined): TokenReviewResult {
    const wanted = audiences?.length ? audiences : this.opts.apiAudiences;
    const o = this.union({ headers: { authorization: `Bearer ${token}` } }, wanted);
    if (o === undefined) return { authenticated: false };
    if ('error' in o) return { authenticated: false, error: o.error };
    return { authenticated: true, user: o.user, audiences: o.audiences };
  }
}
