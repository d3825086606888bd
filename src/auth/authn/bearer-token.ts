// The `Authorization: Bearer <token>` header, read as upstream reads it: a header that is absent, empty or of
// another scheme is no credential at all; a bearer token nobody recognises is an invalid one.
import type { Outcome, TokenAuthenticator } from './outcome.js';

export const invalidBearerToken = 'invalid bearer token';

/** The token of an Authorization header, or undefined when the header carries no bearer token. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  const parts = value.split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer') return undefined;
  return parts[1] || undefined;
}

export function authenticateBearer(header: string | string[] | undefined, tokens: TokenAuthenticator, audiences: string[]): Outcome {
  const token = bearerToken(header);
  if (token === undefined) return undefined;
  const o = tokens.authenticateToken(token, audiences);
  return o ?? { error: invalidBearerToken };
}
