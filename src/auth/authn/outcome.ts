// What an authenticator answers, as upstream's (response, ok, err): a user (with the audiences the credential is
// good for), an error (the credential is ours and invalid), or nothing (not ours: the next one may try).
import type { UserInfo } from '../types.js';

export interface Authenticated {
  user: UserInfo;
  audiences?: string[];
}

export type Outcome = Authenticated | { error: string } | undefined;

export interface TokenAuthenticator {
  /** `audiences`: what the caller accepts (the API server's own audiences for requests to the API). */
  authenticateToken(token: string, audiences: string[]): Outcome;
}

export const isAuthenticated = (o: Outcome): o is Authenticated => o !== undefined && 'user' in o;

/** Errors joined as upstream's aggregate error prints them: one as is, several (deduplicated) in brackets. */
export function aggregateErrors(errors: string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/**
 * Runs the attempts in order, each only when none before it found a user: the first user wins; otherwise the
 * errors, or nothing when none had one (upstream's union authenticator).
 */
export function firstUser(attempts: ReadonlyArray<() => Outcome>): Outcome {
  const errors: string[] = [];
  for (const attempt of attempts) {
    const o = attempt();
    if (o === undefined) continue;
    if ('user' in o) return o;
    errors.push(o.error);
  }
  return errors.length ? { error: aggregateErrors(errors) } : undefined;
}

/** Tries each authenticator in order (see firstUser). */
export function tokenUnion(authenticators: TokenAuthenticator[]): TokenAuthenticator {
  return {
    authenticateToken: (token, audiences) => firstUser(authenticators.map((a) => () => a.authenticateToken(token, audiences))),
  };
}

/** Go's %q of a string list: `["a" "b"]`. */
export function quoteList(list: string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}

/**
 * A credential that carries no audience (static tokens) is good for the API server's own audiences only: asked
 * for other audiences, it is not ours; otherwise it answers with the audiences both sides share.
 */
export function audienceAgnostic(apiAudiences: string[], inner: TokenAuthenticator): TokenAuthenticator {
  return {
    authenticateToken(token, audiences) {
      const shared = apiAudiences.filter((a) => audiences.includes(a));
      if (shared.length === 0) return undefined;
      const o = inner.authenticateToken(token, audiences);
      return isAuthenticated(o) ? { user: o.user, audiences: shared } : o;
    },
  };
}
