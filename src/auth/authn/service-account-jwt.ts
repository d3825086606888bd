// ServiceAccount JWTs, as upstream's JWT token authenticator checks them: a token of one of our issuers, signed by
// our key, good for the audiences asked for, then checked against the live objects it names by the issuer's
// validator (bound tokens: pod, secret or node refs and expiry; legacy Secret tokens: the Secret's own copy).
import type { ServiceAccountKeys } from '../serviceaccount/signing-key.js';
import { legacyIssuer } from '../serviceaccount/claims.js';
import { acceptedAlgorithms, audiencesOf, decodeJwt, verifySignature, type DecodedJwt } from './jwt.js';
import { quoteList, type Outcome, type TokenAuthenticator } from './outcome.js';
import { validateBoundToken, validateLegacyToken } from './service-account-validators.js';
import { serviceAccountTokenUser, type ServiceAccountInfo } from './service-account-user.js';
import type { ObjectLookup } from './object-lookup.js';

// The lookup's shape lives in object-lookup.ts (the validators use it too); auth/security.ts takes it from here.
export type { ObjectLookup };

export interface ServiceAccountJwtOptions {
  keys: ServiceAccountKeys;
  issuer: string;
  /** The API server's own audiences: what tokens without `aud` (legacy ones) are good for. */
  apiAudiences: string[];
  lookup: ObjectLookup;
}

const cryptoError = 'go-jose/go-jose: error in cryptographic primitive';

export function serviceAccountJwt(opts: ServiceAccountJwtOptions): TokenAuthenticator {
  return {
    authenticateToken(token: string, requested: string[]): Outcome {
      const jwt = decodeJwt(token);
      if (!jwt) return undefined;
      const iss = jwt.payload.iss;
      if (iss !== opts.issuer && iss !== legacyIssuer) return undefined;
      if (!acceptedAlgorithms.has(String(jwt.header.alg))) return undefined;
      const key = opts.keys.verificationKey();
      if (!key || !verifySignature(jwt, key.key)) return { error: cryptoError };
      const tokenAudiences = audiencesOf(jwt.payload.aud);
      if (!tokenAudiences) return { error: 'json: cannot unmarshal into Go struct field Claims.aud of type jwt.Audience' };
      const effective = tokenAudiences.length ? tokenAudiences : opts.apiAudiences;
      const shared = effective.filter((a) => requested.includes(a));
      if (shared.length === 0) return { error: `token audiences ${quoteList(effective)} is invalid for the target audiences ${quoteList(requested)}` };
      const info = validate(jwt, token, iss === legacyIssuer, opts.lookup);
      if ('error' in info) return info;
      return { user: serviceAccountTokenUser(info), audiences: shared };
    },
  };
}

function validate(jwt: DecodedJwt, token: string, legacy: boolean, lookup: ObjectLookup): ServiceAccountInfo | { error: string } {
  try {
    return legacy ? validateLegacyToken(jwt.payload, token, lookup) : validateBoundToken(jwt.payload, lookup);
  } catch {
    return { error: 'service account token claims could not be validated due to unexpected validation error' };
  }
}
