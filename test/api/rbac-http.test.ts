// RBAC over HTTP: Forbidden Status bodies, impersonation headers (hostile ones too), access review validation,
// rules with odd names, and what an audit log records at each level.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertStatus, openWatch, useBonsai, type Resp } from './http.js';

const dir = mkdtempSync(join(tmpdir(), 'bonsai-rbac-http-'));
const auditPath = join(dir, 'audit.log');
after(() => rmSync(dir, { recursive: true, force: true }));

const as = (user: string, ...groups: string[]) => {
  const h: Record<string, string> = { 'Impersonate-User': user };
  if (groups.length) h['Impersonate-Group'] = groups.join(', ');
  return { headers: h };
};

function noPollution(): void {
  const probe = {} as Record<string, unknown>;
  for (const k of ['polluted', 'finalizers', 'verbs', 'admin', 'x']) assert.equal(probe[k], undefined, `Object.prototype.${k} was set`);
}

describe('RBAC over HTTP', () => {
  const { env, req } = useBonsai({ authorizationMode: 'RBAC', auditLog: auditPath, auditLevel: 'RequestResponse' });

  it('answers denials with upstream Status bodies', async () => {
    const list = assertStatus(await req('GET', '/api/v1/namespaces/default/pods', undefined, as('jane')), 403, 'Forbidden',
      'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"');
    assert.deepEqual(list.details, { kind: 'pods' });
    const named = assertStatus(await req('GET', '/apis/apps/v1/namespaces/ns1/deployments/web/scale', undefined, as('jane')), 403, 'Forbidden',
      'deployments.apps "web" is forbidden: User "jane" cannot get resource "deployments/scale" in API group "apps" in the namespace "ns1"');
    assert.deepEqual(named.details, { name: 'web', group: 'apps', kind: 'deployments' });
    assertStatus(await req('DELETE', '/api/v1/nodes/n1', undefined, as('jane')), 403, 'Forbidden', 'nodes "n1" is forbidden: User "jane" cannot delete resource "nodes" in API group "" at the cluster scope');
    assertStatus(await req('GET', '/api/v1/pods?watch=true', undefined, as('jane')), 403, 'Forbidden', 'pods is forbidden: User "jane" cannot watch resource "pods" in API group "" at the cluster scope');
    const path = assertStatus(await req('GET', '/metrics', undefined, as('jane')), 403, 'Forbidden', 'forbidden: User "jane" cannot get path "/metrics"');
    assert.deepEqual(path.details, {});
    // A missing role is named in the reason.
    await req('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      metadata: { name: 'dangling' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'nope' }, subjects: [{ kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    assertStatus(await req('GET', '/api/v1/namespaces/default/configmaps', undefined, as('jane')), 403, 'Forbidden',
      'configmaps is forbidden: User "jane" cannot list resource "configmaps" in API group "" in the namespace "default": RBAC: clusterrole.rbac.authorization.k8s.io "nope" not found');
    // Discovery, version and health are open to every authenticated user.
    for (const p of ['/api', '/apis', '/version', '/healthz', '/api/v1']) assert.equal((await req('GET', p, undefined, as('jane'))).status, 200, p);
  });

  it('lets members of system:masters do anything and names the request in Audit-Id', async () => {
    const r = await req('GET', '/api/v1/namespaces/default/pods', undefined, as('root', 'system:masters'));
    assert.equal(r.status, 200);
    assert.match(r.headers.get('audit-id') ?? '', /^[0-9a-f-]{36}$/);
    const given = await req('GET', '/version', undefined, { headers: { 'Audit-ID': 'my-request-1' } });
    assert.equal(given.headers.get('audit-id'), 'my-request-1');
  });

  it('survives hostile impersonation headers', async () => {
    const weird: Array<Record<string, string>> = [
      { 'Impersonate-User': '__proto__' },
      { 'Impersonate-User': 'constructor', 'Impersonate-Group': '__proto__' },
      { 'Impersonate-User': 'system:serviceaccount:__proto__:x' },
      { 'Impersonate-User': 'system:serviceaccount::' },
      { 'Impersonate-User': 'system:serviceaccount:a:b:c' },
      { 'Impersonate-User': 'x'.repeat(8000) },
      { 'Impersonate-User': 'jane', 'Impersonate-Extra-__proto__': 'polluted' },
      { 'Impersonate-User': 'jane', 'Impersonate-Extra-%ZZ': 'x' },
      { 'Impersonate-User': 'jane', 'Impersonate-Extra-prototype': 'x', 'Impersonate-Uid': '__proto__' },
      { 'Impersonate-User': '' },
      { 'Impersonate-User': 'system:anonymous' },
    ];
    for (const headers of weird) {
      const r = await req('GET', '/api/v1/namespaces/default/pods', undefined, { headers });
      assert.ok(r.status < 500, `${JSON.stringify(headers).slice(0, 80)} -> ${r.status}`);
      if (r.status !== 200) assert.equal(r.body?.kind, 'Status');
    }
    // Groups, extras or a uid without a user: refused as a client error (upstream answers 500).
    const r = assertStatus(await req('GET', '/api/v1/pods', undefined, { headers: { 'Impersonate-Group': 'system:masters' } }), 400, 'BadRequest');
    assert.match(r.message, /^requested \[\{Group {2}system:masters {4}\}\] without impersonating a user$/);
    const many: Record<string, string> = { 'Impersonate-User': 'jane' };
    for (let i = 0; i < 300; i++) many[`Impersonate-Extra-k${i}`] = 'v';
    assert.equal((await req('GET', '/api/v1/pods', undefined, { headers: many })).status, 400);
    noPollution();
  });

  it('validates access reviews and answers them from the rules, whatever keys they carry', async () => {
    const sar = (spec: unknown, meta: unknown = {}) => req('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: meta, spec });
    const ok = await sar({ user: 'root', groups: ['system:masters'], resourceAttributes: { verb: 'delete', resource: 'nodes' } });
    assert.equal(ok.status, 201);
    assert.deepEqual(ok.body.status, { allowed: true });
    const path = await sar({ user: 'jane', groups: ['system:authenticated'], nonResourceAttributes: { path: '/healthz', verb: 'get' } });
    assert.deepEqual(path.body.status, { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"' });
    const both = assertStatus(await sar({ user: 'jane', resourceAttributes: { verb: 'get' }, nonResourceAttributes: { path: '/x', verb: 'get' } }), 422, 'Invalid');
    assert.equal(both.message, 'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: cannot be specified in combination with resourceAttributes');
    assertStatus(await sar({ resourceAttributes: { verb: 'get' } }), 422, 'Invalid', 'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified');
    for (const spec of [
      { user: '__proto__', groups: ['__proto__', 'constructor'], extra: { __proto__: ['x'], constructor: ['y'] }, resourceAttributes: { verb: '__proto__', resource: 'constructor', namespace: 'prototype' } },
      JSON.parse('{"user":"jane","__proto__":{"polluted":true},"resourceAttributes":{"__proto__":{"verb":"get"},"resource":"pods"}}'),
    ]) {
      const r = await sar(spec);
      assert.ok(r.status < 500, r.text);
    }
    const ssrr = await req('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { spec: { namespace: 'default' } }, as('jane'));
    assert.equal(ssrr.status, 201);
    assert.ok(ssrr.body.status.resourceRules.some((r: { resources?: string[] }) => r.resources?.includes('selfsubjectaccessreviews')));
    assertStatus(await req('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { spec: {} }), 400, 'BadRequest', 'no namespace on request');
    const admin = await req('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { spec: { resourceAttributes: { verb: 'create', resource: 'pods', namespace: 'x' } } });
    assert.deepEqual(admin.body.status, { allowed: true });
    noPollution();
  });

  it('evaluates rules whose names look like prototype keys without touching a prototype', async () => {
    const created = await req('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'odd' },
      rules: [{ apiGroups: ['__proto__'], resources: ['constructor', '__proto__/prototype'], verbs: ['__proto__', 'get'], resourceNames: ['prototype'] }, { nonResourceURLs: ['/__proto__*'], verbs: ['get'] }],
    });
    assert.equal(created.status, 201, created.text);
    const bound = await req('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'odd' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'odd' },
      subjects: [{ kind: 'User', name: '__proto__', apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'Group', name: 'constructor', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    assert.equal(bound.status, 201, bound.text);
    const user = as('__proto__');
    assert.equal((await req('GET', '/__proto__/x', undefined, user)).status, 404); // allowed, then not found
    assert.equal((await req('GET', '/apis/__proto__/v1/constructor/prototype', undefined, as('x', 'constructor'))).status, 404);
    assert.equal((await req('GET', '/apis/__proto__/v1/constructor/other', undefined, as('x', 'constructor'))).status, 403);
    noPollution();
    // Namespaced roles cannot name URLs; resource rules need groups.
    assertStatus(await req('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { metadata: { name: 'urls' }, rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }, { resources: ['pods'], verbs: ['get'] }] }), 422, 'Invalid',
      'Role.rbac.authorization.k8s.io "urls" is invalid: [rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs, rules[1].apiGroups: Required value: resource rules must supply at least one api group]');
  });

  it('records what the audit level asks for, a watch with ResponseStarted, and nothing of bodies below Request', async () => {
    await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'audited-cm' }, data: { a: '1' } });
    const w = await openWatch(`${env.b.url}/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1`);
    await w.ended;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let lines: Array<Record<string, any>> = [];
    for (let i = 0; i < 50; i++) {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      // Only whole lines: the last one may still be being written.
      lines = readFileSync(auditPath, 'utf8').split('\n').slice(0, -1).filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
      const watchDone = lines.some((l) => l.verb === 'watch' && l.objectRef?.resource === 'configmaps' && l.stage === 'ResponseComplete');
      if (watchDone && lines.some((l) => l.stage === 'ResponseComplete' && l.objectRef?.name === 'audited-cm')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seen = () => JSON.stringify(lines.map((l) => [l.stage, l.verb, l.objectRef?.resource, l.objectRef?.name])).slice(-2000);
    const created = lines.find((l) => l.stage === 'ResponseComplete' && l.verb === 'create' && l.objectRef?.name === 'audited-cm');
    assert.ok(created, seen());
    assert.deepEqual(Object.keys(created), ['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'sourceIPs', 'userAgent', 'objectRef', 'responseStatus', 'requestObject', 'responseObject', 'requestReceivedTimestamp', 'stageTimestamp', 'annotations']);
    assert.equal(created.level, 'RequestResponse');
    assert.deepEqual(created.requestObject.data, { a: '1' });
    assert.equal(created.responseObject.metadata.name, 'audited-cm');
    assert.match(created.stageTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const watchStages = lines.filter((l) => l.verb === 'watch' && l.objectRef?.resource === 'configmaps').map((l) => l.stage);
    assert.deepEqual(watchStages, ['RequestReceived', 'ResponseStarted', 'ResponseComplete'], seen());
    const forbidden = lines.find((l) => l.stage === 'ResponseComplete' && l.responseStatus?.code === 403 && l.impersonatedUser?.username === 'jane');
    assert.equal(forbidden?.responseStatus.status, 'Failure', seen());
    assert.equal(forbidden?.annotations['authorization.k8s.io/decision'], 'forbid');
  });
});

describe('AlwaysAllow (the default)', () => {
  const { req } = useBonsai();
  it('allows everyone, and an impersonated user, everything', async () => {
    const r: Resp = await req('GET', '/api/v1/namespaces/default/pods', undefined, as('jane'));
    assert.equal(r.status, 200);
    const review = await req('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { spec: { namespace: 'default' } }, as('jane'));
    assert.deepEqual(review.body.status, {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false,
    });
    // The default roles exist whatever the mode.
    assert.equal((await req('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:basic-user')).status, 200);
  });
});
