// The checks upstream's validators make once a ServiceAccount token's signature and audiences are good: times
// (with go-jose's one-minute leeway), then the live objects the token names, with upstream's error texts.
import { timingSafeEqual } from 'node:crypto';
import { isRecord, type KObject } from '../../machinery/types.js';
import { numericDate } from './jwt.js';
import type { ObjectLookup } from './object-lookup.js';
import { serviceAccountUsername } from '../identities.js';
import { legacyClaimKeys } from '../serviceaccount/claims.js';
import type { ServiceAccountInfo } from './service-account-user.js';

const leeway = 60;
const invalidated = { error: 'service account token has been invalidated' };

type Result = ServiceAccountInfo | { error: string };

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const refOf = (v: unknown) => (isRecord(v) ? { name: str(v.name), uid: str(v.uid) } : undefined);
const deletedBefore = (o: KObject, cutoff: number) => !!o.metadata.deletionTimestamp && Date.parse(o.metadata.deletionTimestamp) / 1000 < cutoff;

/**
 * The object a token is bound to (`kind` as upstream's messages name it) must still exist, with the claimed uid,
 * and not be deleted before `cutoff`; undefined when it does.
 */
function checkBound(lookup: ObjectLookup, resource: 'pods' | 'secrets' | 'nodes', kind: string, namespace: string, ref: { name: string; uid: string }, cutoff: number): { error: string } | undefined {
  const o = lookup.get(resource, namespace, ref.name);
  if (!o) return invalidated;
  if (o.metadata.uid !== ref.uid) return { error: `${kind} UID (${o.metadata.uid ?? ''}) does not match service account ${kind} ref claim (${ref.uid})` };
  return deletedBefore(o, cutoff) ? invalidated : undefined;
}

function checkTimes(p: Record<string, unknown>, now: number): { error: string } | undefined {
  const nbf = numericDate(p.nbf);
  const exp = numericDate(p.exp);
  const iat = numericDate(p.iat);
  if (Number.isNaN(nbf) || Number.isNaN(exp) || Number.isNaN(iat)) return { error: 'service account token claims could not be validated due to unexpected validation error' };
  if (nbf !== undefined && now + leeway < nbf) return { error: 'service account token is not valid yet' };
  if (exp !== undefined && now - leeway > exp) return { error: 'service account token has expired' };
  if (iat !== undefined && now + leeway < iat) return { error: 'service account token is issued in the future' };
  return undefined;
}

/** Tokens from TokenRequest: `kubernetes.io` claims naming the ServiceAccount and what the token is bound to. */
export function validateBoundToken(p: Record<string, unknown>, lookup: ObjectLookup): Result {
  const now = lookup.now();
  const times = checkTimes(p, now);
  if (times) return times;
  const k8s = isRecord(p['kubernetes.io']) ? p['kubernetes.io'] : {};
  const namespace = str(k8s.namespace);
  const saRef = refOf(k8s.serviceaccount) ?? { name: '', uid: '' };
  const cutoff = now - leeway;
  const sa = lookup.get('serviceaccounts', namespace, saRef.name);
  if (!sa) return { error: `serviceaccounts "${saRef.name}" not found` };
  if (sa.metadata.uid !== saRef.uid) return { error: `service account UID (${sa.metadata.uid ?? ''}) does not match claim (${saRef.uid})` };
  if (deletedBefore(sa, cutoff)) return { error: `service account ${namespace}/${saRef.name} has been deleted` };

  const secretRef = refOf(k8s.secret);
  if (secretRef) {
    const bad = checkBound(lookup, 'secrets', 'secret', namespace, secretRef, cutoff);
    if (bad) return bad;
  }
  const info: ServiceAccountInfo = { namespace, name: saRef.name, uid: saRef.uid };
  const podRef = refOf(k8s.pod);
  if (podRef) {
    const bad = checkBound(lookup, 'pods', 'pod', namespace, podRef, cutoff);
    if (bad) return bad;
    info.podName = podRef.name;
    info.podUid = podRef.uid;
  }
  const nodeRef = refOf(k8s.node);
  if (nodeRef && podRef) {
    info.nodeName = nodeRef.name;
    info.nodeUid = nodeRef.uid || undefined;
  } else if (nodeRef) {
    const bad = checkBound(lookup, 'nodes', 'node', '', nodeRef, cutoff);
    if (bad) return bad;
    info.nodeName = nodeRef.name;
    info.nodeUid = nodeRef.uid;
  }
  const jti = str(p.jti);
  if (jti) info.credentialId = `JTI=${jti}`;
  return info;
}

const invalidSinceLabel = 'kubernetes.io/legacy-token-invalid-since';

/** Tokens of `kubernetes.io/service-account-token` Secrets: valid while the Secret holds exactly this token. */
export function validateLegacyToken(p: Record<string, unknown>, token: string, lookup: ObjectLookup): Result {
  const sub = str(p.sub);
  if (!sub) return { error: 'sub claim is missing' };
  const namespace = str(p[legacyClaimKeys.namespace]);
  if (!namespace) return { error: 'namespace claim is missing' };
  const secretName = str(p[legacyClaimKeys.secretName]);
  if (!secretName) return { error: 'secretName claim is missing' };
  const name = str(p[legacyClaimKeys.serviceAccountName]);
  if (!name) return { error: 'serviceAccountName claim is missing' };
  const uid = str(p[legacyClaimKeys.serviceAccountUid]);
  if (!uid) return { error: 'serviceAccountUID claim is missing' };
  if (sub !== serviceAccountUsername(namespace, name)) return { error: 'sub claim is invalid' };

  const secret = lookup.get('secrets', namespace, secretName);
  if (!secret || secret.metadata.deletionTimestamp) return { error: 'Token has been invalidated' };
  const stored = Buffer.from(isRecord(secret.data) ? str(secret.data.token) : '', 'base64');
  const given = Buffer.from(token);
  if (stored.length !== given.length || !timingSafeEqual(stored, given)) return { error: "Token does not match server's copy" };
  const sa = lookup.get('serviceaccounts', namespace, name);
  if (!sa) return { error: `serviceaccounts "${name}" not found` };
  if (sa.metadata.deletionTimestamp) return { error: `ServiceAccount ${namespace}/${name} has been deleted` };
  if (sa.metadata.uid !== uid) return { error: `ServiceAccount UID (${sa.metadata.uid ?? ''}) does not match claim (${uid})` };
  if (secret.metadata.labels?.[invalidSinceLabel]) {
    lookup.markLegacyTokenUsed?.(secret);
    return {
      error: `the token in secret ${namespace}/${secretName} for service account ${namespace}/${name} has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the '${invalidSinceLabel}' label from the secret to temporarily allow use of this token`,
    };
  }
  lookup.markLegacyTokenUsed?.(secret);
  return { namespace, name, uid };
}
