// The RBAC pieces on their own: rule matching, request attributes, impersonation checks of a requester who is
// not an admin, escalation arithmetic, the aggregation of ClusterRoles, and the mode flag.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ScaledClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { Authorization, parseAuthorizationModes } from '../../src/auth/authorization.js';
import { impersonate } from '../../src/auth/impersonation.js';
import { requestAttributes } from '../../src/api/request-info.js';
import { ruleAllows, toPolicyRule } from '../../src/auth/rbac/policy-rule.js';
import { compactRules, uncovered } from '../../src/auth/rbac/escalation.js';
import { aggregatedRules } from '../../src/auth/rbac/aggregation.js';
import { ApiError } from '../../src/machinery/errors.js';
import type { KObject } from '../../src/machinery/types.js';
import type { UserInfo } from '../../src/auth/types.js';

function cluster() {
  const store = new SqliteStore({ path: ':memory:' });
  const reg = new Registry(store, allResources, new ScaledClock(1), createLogger('silent'));
  bootstrap(reg);
  const authz = (reg.authorization = new Authorization(['RBAC'], store));
  const rbac = (plural: string, ns: string, obj: Record<string, unknown>) => reg.create(reg.find('rbac.authorization.k8s.io', 'v1', plural)!, ns, obj as KObject);
  return { reg, authz, rbac, committed: () => store.committed() };
}

const bob: UserInfo = { username: 'bob', groups: ['system:authenticated'] };
const headers = (h: Record<string, string[]>) => new Map(Object.entries(h));

function forbidden(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  assert.fail('expected an ApiError');
}

describe('RBAC rules', () => {
  it('match verbs, groups, subresources, names and paths as upstream', () => {
    const attrs = (url: string, method = 'GET') => requestAttributes(method, url, bob);
    const scale = toPolicyRule({ verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] });
    assert.ok(ruleAllows(attrs('/apis/apps/v1/namespaces/a/deployments/web/scale'), scale));
    assert.ok(!ruleAllows(attrs('/apis/apps/v1/namespaces/a/deployments/web'), scale));
    const named = toPolicyRule({ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cfg'] });
    assert.ok(ruleAllows(attrs('/api/v1/namespaces/a/configmaps/cfg'), named));
    assert.ok(!ruleAllows(attrs('/api/v1/namespaces/a/configmaps'), named));
    // A list or watch limited to one name by a field selector is a request for that name.
    assert.ok(ruleAllows(attrs('/api/v1/namespaces/a/configmaps?fieldSelector=metadata.name%3Dcfg&watch=1'), named));
    const paths = toPolicyRule({ verbs: ['get'], nonResourceURLs: ['/healthz/*', '/version'] });
    assert.ok(ruleAllows(attrs('/healthz/etcd'), paths));
    assert.ok(ruleAllows(attrs('/version'), paths));
    assert.ok(!ruleAllows(attrs('/version/x'), paths));
    assert.ok(!ruleAllows(attrs('/healthz', 'POST'), paths));
  });

  it('derives the attributes upstream derives', () => {
    const a = requestAttributes('GET', '/apis/example.com/v1/namespaces/foo', bob);
    assert.equal(a.namespace, 'foo');
    const proxy = requestAttributes('GET', '/api/v1/namespaces/ns/services/web/proxy/some/path', bob);
    assert.deepEqual([proxy.resource, proxy.name, proxy.subresource, proxy.verb], ['services', 'web', 'proxy', 'get']);
    const del = requestAttributes('DELETE', '/api/v1/namespaces/ns/pods', bob);
    assert.equal(del.verb, 'deletecollection');
    const path = requestAttributes('GET', '/foo%20bar?x=1', bob);
    assert.deepEqual([path.resourceRequest, path.path, path.verb], [false, '/foo bar', 'get']);
  });

  it('parses --authorization-mode as upstream takes it', () => {
    assert.deepEqual(parseAuthorizationModes('RBAC'), ['RBAC']);
    assert.deepEqual(parseAuthorizationModes('RBAC,AlwaysAllow'), ['RBAC', 'AlwaysAllow']);
    assert.throws(() => parseAuthorizationModes('Node,RBAC'), /authorization-mode "Node" is not a valid mode/);
    assert.throws(() => parseAuthorizationModes('RBAC,RBAC'), /more than once/);
  });
});

describe('impersonation by a user who is not an admin', () => {
  it('is forbidden until RBAC grants the impersonate verb on each part', async () => {
    const { authz, rbac, committed } = cluster();
    let e = forbidden(() => impersonate(bob, headers({ 'impersonate-user': ['jane'] }), authz));
    assert.equal(e.code, 403);
    assert.equal(e.message, 'users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope');
    e = forbidden(() => impersonate(bob, headers({ 'impersonate-user': ['system:serviceaccount:ns1:robot'] }), authz));
    assert.equal(e.message, 'serviceaccounts "robot" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"');

    await rbac('clusterroles', '', { metadata: { name: 'impersonator' }, rules: [{ apiGroups: [''], resources: ['users', 'serviceaccounts'], verbs: ['impersonate'] }] });
    await rbac('clusterrolebindings', '', { metadata: { name: 'bob-impersonates' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonator' }, subjects: [{ kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.k8s.io' }] });
    await committed(); // the authorizer follows committed changes
    assert.deepEqual(impersonate(bob, headers({ 'impersonate-user': ['jane'] }), authz), { username: 'jane', groups: ['system:authenticated'] });
    assert.deepEqual(impersonate(bob, headers({ 'impersonate-user': ['system:serviceaccount:ns1:robot'] }), authz), {
      username: 'system:serviceaccount:ns1:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'],
    });
    // Groups, extras and uids each need their own grant.
    e = forbidden(() => impersonate(bob, headers({ 'impersonate-user': ['jane'], 'impersonate-group': ['system:masters'] }), authz));
    assert.equal(e.message, 'groups "system:masters" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope');
    e = forbidden(() => impersonate(bob, headers({ 'impersonate-user': ['jane'], 'impersonate-extra-scopes': ['view'] }), authz));
    assert.equal(e.message, 'userextras.authentication.k8s.io "view" is forbidden: User "bob" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope');
    e = forbidden(() => impersonate(bob, headers({ 'impersonate-user': ['jane'], 'impersonate-uid': ['1234'] }), authz));
    assert.equal(e.message, 'uids.authentication.k8s.io "1234" is forbidden: User "bob" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope');
    // The anonymous user gets system:unauthenticated, not system:authenticated.
    assert.deepEqual(impersonate(bob, headers({ 'impersonate-user': ['system:anonymous'] }), authz).groups, ['system:unauthenticated']);
  });
});

describe('escalation arithmetic', () => {
  it('finds the uncovered parts and compacts them as upstream lists them', () => {
    const owned = [toPolicyRule({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', '*/status'] })];
    const wanted = [toPolicyRule({ verbs: ['get', 'list', 'delete'], apiGroups: [''], resources: ['pods', 'nodes/status'] })];
    const missing = uncovered(owned, wanted);
    assert.deepEqual(compactRules(missing).map((r) => [r.resources, r.verbs]), [[['pods'], ['delete']], [['nodes/status'], ['delete']]]);
    assert.deepEqual(uncovered([toPolicyRule({ verbs: ['*'], nonResourceURLs: ['/logs/*'] })], [toPolicyRule({ verbs: ['get'], nonResourceURLs: ['/logs/a'] })]), []);
  });
});

describe('ClusterRole aggregation', () => {
  it('gathers the rules of the selected roles by name, each once, never its own', () => {
    const role = (name: string, labels: Record<string, string>, rules: unknown[]): KObject => ({ metadata: { name, labels }, rules });
    const agg: KObject = { metadata: { name: 'agg', labels: { pick: 'true' } }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { pick: 'true' } }] }, rules: [{ verbs: ['x'] }] };
    const rules = aggregatedRules(agg, [agg, role('b', { pick: 'true' }, [{ verbs: ['get'] }, { verbs: ['list'] }]), role('a', { pick: 'true' }, [{ verbs: ['list'] }]), role('c', {}, [{ verbs: ['delete'] }])]);
    assert.deepEqual(rules, [{ verbs: ['list'] }, { verbs: ['get'] }]);
  });
});
