// serviceaccounts/token: a TokenRequest answered with an unsigned token (authentication is off in Bonsai).
import { isRecord, type KObject } from '../machinery/types.js';
import { rfc3339 } from '../util/clock.js';
import type { Registry } from '../registry/registry.js';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

export function tokenRequest(reg: Registry, namespace: string, name: string, body: KObject): KObject {
  const sa = reg.get(reg.find('', 'v1', 'serviceaccounts')!, namespace, name);
  const spec = isRecord(body.spec) ? body.spec : {};
  const seconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : 3600;
  const now = reg.clock.now();
  const exp = new Date(now.getTime() + seconds * 1000);
  const audiences = Array.isArray(spec.audiences) && spec.audiences.length ? spec.audiences : ['https://kubernetes.default.svc.cluster.local'];
  const claims = {
    aud: audiences, exp: Math.floor(exp.getTime() / 1000), iat: Math.floor(now.getTime() / 1000), iss: 'https://kubernetes.default.svc.cluster.local',
    sub: `system:serviceaccount:${namespace}:${name}`,
    'kubernetes.io': { namespace, serviceaccount: { name, uid: sa.metadata.uid } },
  };
  return {
    kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace, creationTimestamp: rfc3339(now) },
    spec: { audiences, expirationSeconds: seconds, boundObjectRef: spec.boundObjectRef ?? null },
    status: { token: `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`, expirationTimestamp: rfc3339(exp) },
  };
}
