// The claims of ServiceAccount tokens, as kube-apiserver writes them: bound tokens (TokenRequest) with audiences,
// expiry, a JTI and the `kubernetes.io` private claim; legacy Secret tokens with upstream's flat private claims
// and no expiry. Keys are in the order upstream's JSON has them (sorted).
import { randomUUID } from 'node:crypto';
import { serviceAccountUsername } from '../identities.js';
import { signingAlgorithm, type ServiceAccountKeys } from './signing-key.js';

/** The issuer (and default API audience) of bound tokens, as on kind and kubeadm clusters. */
export const defaultIssuer = 'https://kubernetes.default.svc.cluster.local';
export const legacyIssuer = 'kubernetes/serviceaccount';

/** Pod-bound tokens asking for exactly this lifetime (the kubelet's default) are extended, warning after it. */
export const warnOnlyBoundTokenSeconds = 3607;
export const extendedExpirationSeconds = 365 * 24 * 3600;

export interface ObjectRef {
  name: string;
  uid: string;
}

export interface BoundTokenInput {
  issuer: string;
  namespace: string;
  serviceAccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
  audiences: string[];
  /** Seconds since the epoch. */
  now: number;
  expirationSeconds: number;
  warnAfterSeconds?: number;
}

const ref = (r: ObjectRef) => ({ name: r.name, uid: r.uid });

export function boundClaims(t: BoundTokenInput): Record<string, unknown> {
  const k8s: Record<string, unknown> = { namespace: t.namespace };
  if (t.node) k8s.node = ref(t.node);
  if (t.pod) k8s.pod = ref(t.pod);
  if (t.secret) k8s.secret = ref(t.secret);
  k8s.serviceaccount = ref(t.serviceAccount);
  if (t.warnAfterSeconds) k8s.warnafter = t.now + t.warnAfterSeconds;
  return {
    aud: t.audiences, exp: t.now + t.expirationSeconds, iat: t.now, iss: t.issuer, jti: randomUUID(),
    'kubernetes.io': k8s, nbf: t.now, sub: serviceAccountUsername(t.namespace, t.serviceAccount.name),
  };
}

/** The flat private claims of legacy Secret tokens. */
export const legacyClaimKeys = {
  namespace: 'kubernetes.io/serviceaccount/namespace',
  secretName: 'kubernetes.io/serviceaccount/secret.name',
  serviceAccountName: 'kubernetes.io/serviceaccount/service-account.name',
  serviceAccountUid: 'kubernetes.io/serviceaccount/service-account.uid',
} as const;

export function legacyClaims(namespace: string, serviceAccount: ObjectRef, secretName: string): Record<string, unknown> {
  return {
    iss: legacyIssuer,
    [legacyClaimKeys.namespace]: namespace,
    [legacyClaimKeys.secretName]: secretName,
    [legacyClaimKeys.serviceAccountName]: serviceAccount.name,
    [legacyClaimKeys.serviceAccountUid]: serviceAccount.uid,
    sub: serviceAccountUsername(namespace, serviceAccount.name),
  };
}

/** Signs claims with the cluster's ServiceAccount key (RS256, with the key's id in the header). */
export async function signToken(keys: ServiceAccountKeys, claims: Record<string, unknown>): Promise<string> {
  const { key, kid } = await keys.signingKey();
  const { SignJWT } = await import('jose');
  return new SignJWT(claims).setProtectedHeader({ alg: signingAlgorithm, kid }).sign(key);
}
