// Authentication at the HTTP level (in-process server, plain HTTP): Authorization headers read as upstream reads
// them, ServiceAccount JWTs checked (signature, algorithm, times, audiences, live objects), TokenRequest rules,
// TokenReview answers, and hostile input to all of them: no 5xx, every failure a Status, no prototype touched.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSign, generateKeyPairSync, createHmac } from 'node:crypto';
import { assertStatus, useBonsai, type Resp } from './http.js';
import { securityOf } from '../../src/auth/security.js';
import { boundClaims, signToken } from '../../src/auth/serviceaccount/claims.js';
import { eventually } from '../helpers/kubectl.js';

const issuer = 'https://kubernetes.default.svc.cluster.local';
const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

function notServerError(r: Resp, what: string): void {
  assert.ok(r.status < 500, `${what}: ${r.status} ${r.text.slice(0, 300)}`);
  if (r.status >= 400 && r.status !== 431) assert.equal(r.body?.kind, 'Status', `${what}: ${r.text.slice(0, 300)}`);
}

describe('authentication (HTTP)', () => {
  const { env, req } = useBonsai();
  const whoami = (headers: Record<string, string>) => req('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, { headers, anonymous: true });
  const review = (token: unknown, audiences?: unknown) => req('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, ...(audiences ? { audiences } : {}) } });
  const requestToken = (name: string, spec: Record<string, unknown> = {}, ns = 'default') => req('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });

  it('reads Authorization headers as upstream: no bearer token is anonymous, a bad one is 401', async () => {
    const admin = env.b.credentials.token;
    const anonymous = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
    for (const h of ['', 'Bearer', 'Bearer ', `Bearer  ${admin}`, 'Basic Zm9vOmJhcg==', 'Token abc', '   ']) {
      const r = await whoami(h ? { authorization: h } : {});
      assert.equal(r.status, 201, `${JSON.stringify(h)}: ${r.text}`);
      assert.deepEqual(r.body.status.userInfo, anonymous, JSON.stringify(h));
    }
    for (const h of [`bearer ${admin}`, `BEARER ${admin} trailing words`, `Bearer ${admin}`]) {
      const r = await whoami({ authorization: h });
      assert.deepEqual(r.body.status.userInfo, { username: 'bonsai-admin', groups: ['system:masters', 'system:authenticated'] }, h);
    }
    for (const h of ['Bearer x y', 'Bearer a.b.c', `Bearer ${admin}x`, `Bearer ${'a'.repeat(12_000)}`, 'Bearer ....', 'Bearer e30.e30.', 'Bearer %00%ff']) {
      const r = await req('GET', '/api/v1/namespaces', undefined, { headers: { authorization: h } });
      assertStatus(r, 401, 'Unauthorized', 'Unauthorized');
      assert.equal(r.text, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}\n');
    }
    // Headers past node's limit are refused by the HTTP parser, never a crash.
    const huge = await req('GET', '/api', undefined, { headers: { authorization: `Bearer ${'a'.repeat(40_000)}` } });
    assert.equal(huge.status, 431);
    assert.equal((await req('GET', '/healthz')).status, 200);
  });

  it('signs TokenRequests with the cluster key and upstream claims, within upstream limits', async () => {
    const r = await requestToken('default', { audiences: ['vault', 'api'], expirationSeconds: 7200 });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.kind, 'TokenRequest');
    assert.deepEqual(r.body.spec, { audiences: ['vault', 'api'], expirationSeconds: 7200 });
    const [header, claims] = (r.body.status.token as string).split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>);
    assert.equal(header.alg, 'RS256');
    assert.equal(header.kid, securityOf(env.b.registry).serviceAccountKeys.verificationKey()?.kid);
    const sa = (await req('GET', '/api/v1/namespaces/default/serviceaccounts/default')).body;
    assert.deepEqual(Object.keys(claims), ['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
    assert.deepEqual(claims['kubernetes.io'], { namespace: 'default', serviceaccount: { name: 'default', uid: sa.metadata.uid } });
    assert.equal(claims.sub, 'system:serviceaccount:default:default');
    assert.equal(Number(claims.exp) - Number(claims.iat), 7200);
    assert.equal(r.body.metadata.uid, sa.metadata.uid);

    assertStatus(await requestToken('default', { expirationSeconds: 599 }), 422, 'Invalid', 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes');
    assertStatus(await requestToken('default', { expirationSeconds: 2 ** 33 }), 422, 'Invalid', /may not specify a duration larger than 2\^32 seconds/);
    assertStatus(await requestToken('default', { expirationSeconds: 'soon' }), 400, 'BadRequest');
    assertStatus(await requestToken('nobody'), 404, 'NotFound', 'serviceaccounts "nobody" not found');
    assertStatus(await requestToken('default', { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } }), 400, 'BadRequest', 'cannot bind token to object of type /v1, Kind=ConfigMap');
    assertStatus(await requestToken('default', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'missing' } }), 404, 'NotFound', 'pods "missing" not found');
    const pod = await req('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bound' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    assert.equal(pod.status, 201, pod.text);
    assertStatus(await requestToken('default', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'bound', uid: 'other' } }), 409, 'Conflict', /the UID in the bound object reference \(other\) does not match the UID in record/);
    const bound = await requestToken('default', { boundObjectRef: JSON.parse('{"kind":"Pod","apiVersion":"v1","name":"bound","__proto__":{"x":1}}') as unknown });
    assert.equal(bound.status, 201, bound.text);
    const reviewed = await review(bound.body.status.token);
    assert.equal(reviewed.body.status.authenticated, true);
    assert.deepEqual(reviewed.body.status.user.extra['authentication.kubernetes.io/pod-name'], ['bound']);
    assert.deepEqual(reviewed.body.status.user.extra['authentication.kubernetes.io/pod-uid'], [pod.body.metadata.uid]);
    // Deleting the pod invalidates the token.
    await req('DELETE', '/api/v1/namespaces/default/pods/bound?gracePeriodSeconds=0');
    assert.deepEqual((await review(bound.body.status.token)).body.status, { user: {}, error: 'service account token has been invalidated' });
  });

  it('refuses forged, expired and misdirected ServiceAccount tokens', async () => {
    const security = securityOf(env.b.registry);
    const sa = (await req('GET', '/api/v1/namespaces/default/serviceaccounts/default')).body;
    const now = Math.floor(env.b.clock.nowMs() / 1000);
    const claims = boundClaims({ issuer, namespace: 'default', serviceAccount: { name: 'default', uid: sa.metadata.uid }, audiences: [issuer], now, expirationSeconds: 3600 });
    const good = await signToken(security.serviceAccountKeys, claims);
    assert.equal((await review(good)).body.status.authenticated, true);
    const [h, p, s] = good.split('.');
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const signWith = (header: unknown, payload: unknown) => {
      const input = `${b64(header)}.${b64(payload)}`;
      return `${input}.${createSign('RSA-SHA256').update(input).sign(other).toString('base64url')}`;
    };
    const hs = `${b64({ alg: 'HS256' })}.${p}`;
    const cases: Array<[string, string]> = [
      ['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${p}.`],
      ['HS256 with the public key as secret', `${hs}.${createHmac('sha256', 'secret').update(hs).digest('base64url')}`],
      ['another key', signWith({ alg: 'RS256' }, claims)],
      ['tampered payload', `${h}.${b64({ ...claims, sub: 'system:serviceaccount:kube-system:admin' })}.${s}`],
      ['truncated signature', `${h}.${p}.${s.slice(0, 20)}`],
      ['expired', await signToken(security.serviceAccountKeys, { ...claims, exp: now - 120, iat: now - 4000, nbf: now - 4000 })],
      ['not yet valid', await signToken(security.serviceAccountKeys, { ...claims, nbf: now + 600 })],
      ['wrong uid', await signToken(security.serviceAccountKeys, { ...claims, 'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'default', uid: 'x' } } })],
      ['other audience', await signToken(security.serviceAccountKeys, { ...claims, aud: ['elsewhere'] })],
      ['claims of the wrong type', await signToken(security.serviceAccountKeys, { ...claims, exp: 'never', 'kubernetes.io': [1, 2] })],
      ['prototype keys', await signToken(security.serviceAccountKeys, JSON.parse(`{"iss":"${issuer}","aud":["${issuer}"],"__proto__":{"finalizers":["x"]},"kubernetes.io":{"__proto__":{"polluted":true}}}`) as Record<string, unknown>)],
      ['deep payload', `${h}.${b64(`{"iss":"${issuer}","x":${'['.repeat(5000)}${']'.repeat(5000)}}`)}.${s}`],
    ];
    const errors: Record<string, string> = {};
    for (const [what, token] of cases) {
      const r = await req('GET', '/api/v1/namespaces', undefined, { headers: { authorization: `Bearer ${token}` } });
      assertStatus(r, 401, 'Unauthorized');
      const rv = await review(token);
      assert.equal(rv.status, 201, `${what}: ${rv.text}`);
      assert.equal(rv.body.status.authenticated, undefined, what);
      errors[what] = rv.body.status.error;
    }
    assert.equal(errors['alg none'], 'invalid bearer token');
    assert.equal(errors['another key'], 'go-jose/go-jose: error in cryptographic primitive');
    assert.equal(errors.expired, 'service account token has expired');
    assert.equal(errors['not yet valid'], 'service account token is not valid yet');
    assert.equal(errors['wrong uid'], `service account UID (${sa.metadata.uid}) does not match claim (x)`);
    assert.equal(errors['other audience'], `token audiences ["elsewhere"] is invalid for the target audiences ["${issuer}"]`);
    assert.equal(({} as Record<string, unknown>).finalizers, undefined);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('answers hostile TokenReview bodies with 4xx and touches no prototype', async () => {
    const bodies: unknown[] = [
      { spec: {} }, { spec: { token: '' } }, { spec: { token: 42 } }, { spec: 'x' }, { spec: { token: 'x', audiences: 'a' } },
      { spec: { token: 'x', audiences: [null, 1, {}] } }, { spec: { token: 'x'.repeat(2_000_000) } },
      JSON.parse('{"spec":{"token":"x","__proto__":{"finalizers":["p"]}},"__proto__":{"polluted":1},"metadata":{"__proto__":{"x":1}}}'),
      JSON.parse('{"spec":{"token":"x","audiences":["a"],"constructor":{"prototype":{"polluted":1}}}}'),
    ];
    for (const b of bodies) {
      const r = await req('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', ...(b as object) });
      notServerError(r, JSON.stringify(b).slice(0, 80));
    }
    assertStatus(await review(''), 400, 'BadRequest', 'token is required for TokenReview in authentication');
    assert.equal((await req('POST', '/apis/authentication.k8s.io/v1/namespaces/default/tokenreviews', { spec: { token: 'x' } })).status, 404);
    assert.equal((await req('GET', '/apis/authentication.k8s.io/v1/tokenreviews')).status, 405);
    assert.equal(({} as Record<string, unknown>).finalizers, undefined);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('legacy ServiceAccount token Secrets', () => {
  const { req } = useBonsai();
  const review = (token: string) => req('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });

  it('fills token Secrets of existing ServiceAccounts and deletes those whose ServiceAccount is gone', async () => {
    assert.equal((await req('POST', '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'build-robot' } })).status, 201);
    const secret = { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token', metadata: { name: 'build-robot-secret', annotations: { 'kubernetes.io/service-account.name': 'build-robot' } } };
    assert.equal((await req('POST', '/api/v1/namespaces/default/secrets', secret)).status, 201);
    const filled = await eventually(async () => {
      const r = await req('GET', '/api/v1/namespaces/default/secrets/build-robot-secret');
      return r.body.data?.token ? r.body : undefined;
    }, 15_000, 'the token');
    const sa = (await req('GET', '/api/v1/namespaces/default/serviceaccounts/build-robot')).body;
    assert.equal(filled.metadata.annotations['kubernetes.io/service-account.uid'], sa.metadata.uid);
    assert.equal(Buffer.from(filled.data.namespace, 'base64').toString(), 'default');
    assert.match(Buffer.from(filled.data['ca.crt'], 'base64').toString(), /^-----BEGIN CERTIFICATE-----/);
    const token = Buffer.from(filled.data.token, 'base64').toString();
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
    assert.deepEqual(claims, {
      iss: 'kubernetes/serviceaccount', 'kubernetes.io/serviceaccount/namespace': 'default', 'kubernetes.io/serviceaccount/secret.name': 'build-robot-secret',
      'kubernetes.io/serviceaccount/service-account.name': 'build-robot', 'kubernetes.io/serviceaccount/service-account.uid': sa.metadata.uid,
      sub: 'system:serviceaccount:default:build-robot',
    });
    const ok = await review(token);
    assert.equal(ok.body.status.authenticated, true);
    assert.equal(ok.body.status.user.username, 'system:serviceaccount:default:build-robot');
    // The label is written beside the review (on etcd its write may land just after the answer).
    const used = await eventually(async () => {
      const r = (await req('GET', '/api/v1/namespaces/default/secrets/build-robot-secret')).body;
      return r.metadata.labels?.['kubernetes.io/legacy-token-last-used'] ? r : undefined;
    }, 15_000, 'the last-used label');
    assert.match(used.metadata.labels['kubernetes.io/legacy-token-last-used'], /^\d{4}-\d{2}-\d{2}$/);

    // A Secret naming a ServiceAccount that does not exist is deleted; so are the Secrets of a deleted one.
    assert.equal((await req('POST', '/api/v1/namespaces/default/secrets', { ...secret, metadata: { name: 'orphan', annotations: { 'kubernetes.io/service-account.name': 'nobody' } } })).status, 201);
    await eventually(async () => (await req('GET', '/api/v1/namespaces/default/secrets/orphan')).status === 404, 15_000, 'the orphan token deleted');
    await req('DELETE', '/api/v1/namespaces/default/serviceaccounts/build-robot');
    await eventually(async () => (await req('GET', '/api/v1/namespaces/default/secrets/build-robot-secret')).status === 404, 15_000, 'the token Secret deleted');
    assert.equal((await review(token)).body.status.error, 'Token has been invalidated');
  });
});
