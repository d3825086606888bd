// Who is asking and what they ask for: the shapes authentication, authorization and audit share.

/** An authenticated user, as upstream's user.Info. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** A user as authentication.k8s.io's UserInfo: empty fields left out, extra keys in Go's (sorted) order. */
export function userInfoJson(user: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: user.username };
  if (user.uid) out.uid = user.uid;
  if (user.groups.length) out.groups = [...user.groups];
  const keys = Object.keys(user.extra ?? {}).sort();
  if (keys.length) out.extra = Object.fromEntries(keys.map((k) => [k, [...(user.extra?.[k] ?? [])]]));
  return out;
}

export const groups = {
  masters: 'system:masters',
  authenticated: 'system:authenticated',
  unauthenticated: 'system:unauthenticated',
  serviceAccounts: 'system:serviceaccounts',
  nodes: 'system:nodes',
} as const;

/** The `extra` key of the credential a user authenticated with (a certificate fingerprint, a token's JTI). */
export const credentialIdKey = 'authentication.kubernetes.io/credential-id';

/** The identity the generated kubeconfig authenticates as. */
export const adminUser: UserInfo = { username: 'bonsai-admin', groups: [groups.masters, groups.authenticated] };
export const anonymousUser: UserInfo = { username: 'system:anonymous', groups: [groups.unauthenticated] };

/** What a request asks to do, as upstream's authorizer.Attributes. */
export interface RequestAttributes {
  user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection (resource requests); the lower-case HTTP method otherwise. */
  verb: string;
  resourceRequest: boolean;
  /** The URL path (non-resource requests are authorized by it). */
  path: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

export type Decision = 'allow' | 'deny' | 'noOpinion';

export interface Authorizer {
  authorize(a: RequestAttributes): { decision: Decision; reason: string };
}
