// serviceaccounts/token: TokenRequest, as kube-apiserver answers it: a JWT signed with the cluster's ServiceAccount
// key for the requested audiences (default: the API server's), 10 minutes to 2^32 seconds (default an hour),
// optionally bound to a Pod (with its Node), a Secret or a Node that must exist (and match a given uid).
import { badRequest, conflict, fieldInvalid, internalError, invalid, type FieldError } from '../machinery/errors.js';
import { isRecord, parseApiVersion, type KObject } from '../machinery/types.js';
import { rfc3339 } from '../util/clock.js';
import type { Registry } from '../registry/registry.js';
import { securityOf } from '../auth/security.js';
import {
  boundClaims, extendedExpirationSeconds, signToken, warnOnlyBoundTokenSeconds, type ObjectRef,
} from '../auth/serviceaccount/claims.js';

const group = 'authentication.k8s.io';
const minSeconds = 600;
const maxSeconds = 2 ** 32;

interface Bound {
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
}

const refOf = (o: KObject): ObjectRef => ({ name: o.metadata.name ?? '', uid: o.metadata.uid ?? '' });

function get(reg: Registry, plural: string, namespace: string, name: string): KObject {
  return reg.get(reg.find('', 'v1', plural)!, namespace, name);
}

function bindTo(reg: Registry, namespace: string, saName: string, ref: Record<string, unknown>): Bound {
  const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
  const kind = typeof ref.kind === 'string' ? ref.kind : '';
  const name = typeof ref.name === 'string' ? ref.name : '';
  const { group: refGroup, version } = parseApiVersion(apiVersion);
  const bound: Bound = {};
  let obj: KObject;
  if (refGroup === '' && kind === 'Pod') {
    obj = get(reg, 'pods', namespace, name);
    const spec = isRecord(obj.spec) ? obj.spec : {};
    if (spec.serviceAccountName !== saName) throw badRequest(`cannot bind token for serviceaccount "${saName}" to pod running with different serviceaccount name.`);
    bound.pod = refOf(obj);
    if (typeof spec.nodeName === 'string' && spec.nodeName) {
      const node = reg.getStored('core/nodes', '', spec.nodeName);
      bound.node = node ? refOf(node) : { name: spec.nodeName, uid: '' };
    }
  } else if (refGroup === '' && kind === 'Node') {
    obj = get(reg, 'nodes', '', name);
    bound.node = refOf(obj);
  } else if (refGroup === '' && kind === 'Secret') {
    obj = get(reg, 'secrets', namespace, name);
    bound.secret = refOf(obj);
  } else {
    throw badRequest(`cannot bind token to object of type ${refGroup}/${version}, Kind=${kind}`);
  }
  const uid = typeof ref.uid === 'string' ? ref.uid : '';
  if (uid && uid !== obj.metadata.uid) {
    throw conflict({ group: '', resource: kind }, name, `the UID in the bound object reference (${uid}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  return bound;
}

function echoRef(ref: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['kind', 'apiVersion', 'name', 'uid']) if (typeof ref[k] === 'string' && ref[k]) out[k] = ref[k] as string;
  return out;
}

export async function tokenRequest(reg: Registry, namespace: string, name: string, body: KObject): Promise<KObject> {
  const sa = get(reg, 'serviceaccounts', namespace, name);
  const meta = body.metadata ?? {};
  if (meta.name && meta.name !== name) throw invalid('TokenRequest', group, name, [fieldInvalid('metadata.name', meta.name, 'must match the service account name if specified')]);
  if (meta.namespace && meta.namespace !== namespace) throw invalid('TokenRequest', group, name, [fieldInvalid('metadata.namespace', meta.namespace, 'must match the service account namespace if specified')]);
  if (meta.uid && meta.uid !== sa.metadata.uid) {
    throw conflict({ group, resource: 'TokenRequest' }, name, `the UID in the token request (${meta.uid}) does not match the UID of the service account (${sa.metadata.uid ?? ''})`);
  }
  const security = securityOf(reg);
  const spec = isRecord(body.spec) ? body.spec : {};
  const requested = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];
  const audiences = requested.length ? requested : [...security.apiAudiences];
  const raw = spec.expirationSeconds ?? 3600;
  if (typeof raw !== 'number' || !Number.isInteger(raw)) {
    throw badRequest(`TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal ${typeof raw} into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64`);
  }
  const errors: FieldError[] = [];
  if (raw < minSeconds) errors.push(fieldInvalid('spec.expirationSeconds', raw, 'may not specify a duration less than 10 minutes'));
  if (raw > maxSeconds) errors.push(fieldInvalid('spec.expirationSeconds', raw, 'may not specify a duration larger than 2^32 seconds'));
  if (errors.length) throw invalid('TokenRequest', group, '', errors);
  const boundRef = isRecord(spec.boundObjectRef) ? spec.boundObjectRef : undefined;
  const bound = boundRef ? bindTo(reg, namespace, name, boundRef) : {};

  // Pod-bound tokens asking for the kubelet's default lifetime are extended (warning after it), as upstream does.
  let lifetime = raw;
  let warnAfter: number | undefined;
  if (bound.pod && raw === warnOnlyBoundTokenSeconds && audiences.every((a) => security.apiAudiences.includes(a))) {
    warnAfter = raw;
    lifetime = extendedExpirationSeconds;
  }
  const nowMs = reg.clock.nowMs();
  const now = Math.floor(nowMs / 1000);
  let token: string;
  try {
    token = await signToken(security.serviceAccountKeys, boundClaims({
      issuer: security.issuer, namespace, serviceAccount: refOf(sa), ...bound, audiences, now, expirationSeconds: lifetime, warnAfterSeconds: warnAfter,
    }));
  } catch (e) {
    throw internalError(`failed to generate token: ${(e as Error).message}`);
  }
  return {
    kind: 'TokenRequest', apiVersion: `${group}/v1`,
    metadata: { name, namespace, uid: meta.uid ?? sa.metadata.uid, creationTimestamp: rfc3339(new Date(now * 1000)) },
    spec: { audiences, expirationSeconds: raw, ...(boundRef ? { boundObjectRef: echoRef(boundRef) } : {}) },
    status: { token, expirationTimestamp: rfc3339(new Date((now + raw) * 1000)) },
  };
}
