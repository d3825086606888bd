// Issue 22 item 7: every path Bonsai serves outside /api and /apis goes through authentication and authorization,
// except the public ones (the dashboard's bundle, /healthz, /livez, /readyz, /version, which upstream's
// system:public-info-viewer grants everyone). Under RBAC an anonymous request gets 403 on each; paths reading objects
// are allowed by the resource rules they reveal, the others by non-resource URL rules a ClusterRole grants.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertStatus, client, etcdTestMode, sleep, useBonsai } from './http.js';

/** Full route paths the server registered, from Fastify's route tree (children are printed relative to parents). */
function registeredPaths(tree: string): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:[│ ] {3})*)[├└]── (\S+) \([A-Z, ]+\)$/.exec(line);
    if (!m) continue;
    const depth = [...m[1]].length / 4;
    stack.length = depth;
    stack.push(m[2]);
    out.push(stack.join(''));
  }
  return out;
}

const publicPaths = new Set(['/healthz', '/livez', '/readyz', '/version', '/ui', '/ui/:file']);

describe('Bonsai paths under RBAC', () => {
  const { env, req } = useBonsai({ authorizationMode: 'RBAC' });
  const anon = client(() => env.b.url);
  const as = (user: string) => ({ headers: { 'Impersonate-User': user } });

  it('refuses anonymous requests on every Bonsai path, including the history bounds', async () => {
    const H = '/bonsai/v1/history';
    const cases: Array<[string, string, string]> = [
      ['GET', H, 'forbidden: User "system:anonymous" cannot get path "/bonsai/v1/history"'],
      ['GET', `${H}/`, 'forbidden: User "system:anonymous" cannot get path "/bonsai/v1/history/"'],
      ['GET', `${H}/state`, 'nodes is forbidden: User "system:anonymous" cannot list resource "nodes" in API group "" at the cluster scope'],
      ['GET', `${H}/changes?resources=pods`, 'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" at the cluster scope'],
      ['GET', '/bonsai/v1/scheduling/namespaces/default/pods/web', 'pods "web" is forbidden: User "system:anonymous" cannot get resource "pods" in API group "" in the namespace "default"'],
      ['GET', '/bonsai/v1/clock', 'forbidden: User "system:anonymous" cannot get path "/bonsai/v1/clock"'],
      ['POST', '/bonsai/v1/clock', 'forbidden: User "system:anonymous" cannot post path "/bonsai/v1/clock"'],
      ['GET', '/bonsai/v1/nothing-here', 'forbidden: User "system:anonymous" cannot get path "/bonsai/v1/nothing-here"'],
    ];
    for (const [method, path, message] of cases) {
      assertStatus(await anon(method, path, method === 'POST' ? { action: 'pause' } : undefined), 403, 'Forbidden', message);
    }
    assert.equal((await req('GET', '/bonsai/v1/clock')).body.paused, false);
  });

  it('leaves no registered path outside /api and /apis unauthorized, but the public ones', async () => {
    const paths = registeredPaths(env.b.app.printRoutes({ commonPrefix: false }));
    for (const p of ['/bonsai/v1/history/state', '/bonsai/v1/clock', '/metrics', '/ui/:file']) assert.ok(paths.includes(p), `${p} not in ${paths.join(' ')}`);
    const open: string[] = [];
    for (const p of paths) {
      if (p.startsWith('/api') || publicPaths.has(p)) continue;
      const path = p.replace(/:\w+/g, 'x').replace(/\*$/, 'x');
      const r = await anon('GET', path);
      if (r.status !== 403 && r.status !== 405) open.push(`${path}: ${r.status}`);
    }
    assert.deepEqual(open, []);
    for (const p of ['/healthz', '/version', '/ui/']) assert.equal((await anon('GET', p)).status, 200, p);
  });

  it('lets a ClusterRole grant the non-resource paths, the others by the resources they read', async () => {
    assertStatus(await req('GET', '/bonsai/v1/history', undefined, as('dana')), 403, 'Forbidden');
    // As `kubectl create clusterrole bonsai-dashboard --verb=get --non-resource-url=/bonsai/v1/history --non-resource-url=/bonsai/v1/clock`.
    assert.equal((await req('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'bonsai-dashboard' }, rules: [{ nonResourceURLs: ['/bonsai/v1/history', '/bonsai/v1/clock'], verbs: ['get'] }, { apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
    })).status, 201);
    assert.equal((await req('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'dana-dashboard' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'bonsai-dashboard' },
      subjects: [{ kind: 'User', name: 'dana', apiGroup: 'rbac.authorization.k8s.io' }],
    })).status, 201);
    // Time travel is the SQLite store's: on etcd its paths, once authorized, answer 404 (no change log).
    const history = etcdTestMode ? 404 : 200;
    for (let i = 0; (await req('GET', '/bonsai/v1/history', undefined, as('dana'))).status !== history; i++) {
      assert.ok(i < 200, 'the binding did not apply');
      await sleep(25);
    }
    assert.equal((await req('GET', '/bonsai/v1/clock', undefined, as('dana'))).status, 200);
    assert.equal((await req('GET', '/bonsai/v1/history/changes?resources=pods', undefined, as('dana'))).status, history);
    assertStatus(await req('GET', '/bonsai/v1/history/changes?resources=secrets', undefined, as('dana')), 403, 'Forbidden');
    // Changing the clock takes post on the path and update on nodes, neither of which the role grants.
    assertStatus(await req('POST', '/bonsai/v1/clock', { action: 'pause' }, as('dana')), 403, 'Forbidden', 'forbidden: User "dana" cannot post path "/bonsai/v1/clock"');
  });
});
