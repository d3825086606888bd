// Time travel over the change log (GET /bonsai/v1/history, /history/state, /history/changes) against an in-process
// Bonsai with nodes and RBAC: states before and after a Deployment, paging through changes and replaying them,
// compaction moving `oldest` without changing the states still reachable, and `list` checks per resource.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertStatus, rootCaPublished, sqliteOnly, useBonsai } from './http.js';
import { eventually } from '../helpers/kubectl.js';

type Json = Record<string, any>;
const H = '/bonsai/v1/history';
const as = (user: string, ...groups: string[]) => ({ headers: { 'Impersonate-User': user, ...(groups.length ? { 'Impersonate-Group': groups.join(', ') } : {}) } });
const deployment = (name: string, replicas: number): Json => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});
const ids = (objs: Json[]) => objs.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}@${o.metadata.resourceVersion}`).sort();

describe('time travel over the change log', { skip: sqliteOnly('time travel reads the change log the SQLite store keeps; etcd compaction keeps none') }, () => {
  const { env, req } = useBonsai({ cluster: {}, authorizationMode: 'RBAC' });
  const bounds = async () => (await req('GET', H)).body as { oldest: number; newest: number };
  const state = async (rv: number, resources: string) => {
    const r = await req('GET', `${H}/state?revision=${rv}&resources=${resources}`);
    assert.equal(r.status, 200, r.text.slice(0, 300));
    return r.body as { revision: number; time: string; objects: Record<string, Json[]> };
  };
  let before = 0;
  let after = 0;

  it('has no pods before a Deployment existed and its pods after', async () => {
    await eventually(async () => (await req('GET', '/api/v1/nodes')).body.items.length === 5, 10_000, 'the nodes');
    before = (await bounds()).newest;
    assert.equal((await req('POST', '/apis/apps/v1/namespaces/default/deployments', deployment('web', 3))).status, 201);
    await eventually(async () => {
      const pods = (await req('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body.items as Json[];
      return pods.length === 3 && pods.every((p) => p.spec.nodeName);
    }, 15_000, 'three bound pods');
    after = (await bounds()).newest;
    assert.ok(after > before);

    const then = await state(before, 'nodes,pods,deployments,replicasets');
    assert.equal(then.revision, before);
    assert.match(then.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(Object.keys(then.objects), ['nodes', 'pods', 'deployments', 'replicasets']);
    assert.equal(then.objects.nodes.length, 5);
    assert.equal(then.objects.pods.filter((p) => p.metadata.labels?.app === 'web').length, 0);
    // kube-system's own workloads (CoreDNS) are there all along: count the default namespace's.
    const inDefault = (list: Json[]) => list.filter((o) => o.metadata.namespace === 'default');
    assert.equal(inDefault(then.objects.deployments).length, 0);

    const now = await state(after, 'nodes,pods,deployments,replicasets');
    const pods = now.objects.pods.filter((p) => p.metadata.labels?.app === 'web');
    assert.equal(pods.length, 3);
    assert.equal(pods[0].kind, 'Pod');
    assert.deepEqual(inDefault(now.objects.deployments).map((d) => d.metadata.name), ['web']);
    assert.equal(inDefault(now.objects.replicasets).length, 1);
    // At the newest revision the log agrees with the live API.
    const live = (await req('GET', '/api/v1/pods')).body;
    assert.deepEqual(ids((await state(Number(live.metadata.resourceVersion), 'pods')).objects.pods), ids(live.items));
    // The default resources are the workload kinds and nodes.
    const all = (await req('GET', `${H}/state?revision=${after}`)).body;
    assert.deepEqual(Object.keys(all.objects), ['nodes', 'pods', 'deployments', 'replicasets', 'statefulsets', 'daemonsets', 'jobs', 'cronjobs']);
  });

  it('pages through the changes in between, which replay the earlier state into the later one', async () => {
    const resources = 'pods,deployments.apps,replicasets';
    const pages: Json[] = [];
    let cont = '';
    for (let i = 0; i < 200; i++) {
      const r = await req('GET', `${H}/changes?from=${before}&to=${after}&resources=${resources}&limit=2${cont ? `&continue=${cont}` : ''}`);
      assert.equal(r.status, 200, r.text.slice(0, 300));
      assert.ok(r.body.changes.length <= 2);
      pages.push(r.body);
      if (!r.body.continue) break;
      cont = r.body.continue;
    }
    assert.ok(pages.length > 3, `several pages (${pages.length})`);
    const paged = pages.flatMap((p) => p.changes as Json[]);
    const whole = (await req('GET', `${H}/changes?from=${before}&to=${after}&resources=${resources}`)).body;
    assert.equal(whole.continue, undefined);
    assert.deepEqual(paged.map((c) => c.revision), whole.changes.map((c: Json) => c.revision));
    const revs = paged.map((c) => c.revision as number);
    assert.ok(revs.every((rv, i) => rv > before && rv <= after && (i === 0 || rv > revs[i - 1])), 'in order, within (from, to]');
    assert.ok(paged.some((c) => c.type === 'ADDED' && c.resource === 'deployments.apps' && c.object.metadata.name === 'web'));
    assert.equal(paged.filter((c) => c.type === 'ADDED' && c.resource === 'pods').length, 3);

    // Replay: the state at `before` plus the changes gives the state at `after`.
    const start = await state(before, 'pods,deployments,replicasets');
    const replayed = new Map<string, Map<string, Json>>();
    for (const [k, objs] of Object.entries(start.objects)) replayed.set(k, new Map(objs.map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o])));
    const key = (r: string) => (r === 'deployments.apps' ? 'deployments' : r);
    for (const c of paged) {
      const m = replayed.get(key(c.resource))!;
      const k = `${c.object.metadata.namespace}/${c.object.metadata.name}`;
      if (c.type === 'DELETED') m.delete(k);
      else m.set(k, c.object);
    }
    const end = await state(after, 'pods,deployments,replicasets');
    for (const [k, objs] of Object.entries(end.objects)) assert.deepEqual(ids([...replayed.get(k)!.values()]), ids(objs), k);
  });

  it('moves oldest on compaction and keeps every state from there rebuildable', async () => {
    const CMS = '/api/v1/namespaces/default/configmaps';
    const cm = (name: string, v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v } });
    // The namespace's kube-root-ca.crt, published once the cluster CA exists (generated off the main thread at start).
    await rootCaPublished(env.b, 'default');
    assert.equal((await req('POST', CMS, cm('stay', '1'))).status, 201);
    assert.equal((await req('POST', CMS, cm('gone', '1'))).status, 201);
    assert.equal((await req('DELETE', `${CMS}/gone`)).status, 200);
    assert.equal((await req('POST', CMS, cm('later', '1'))).status, 201);
    const mid = (await bounds()).newest;
    for (let i = 2; i < 12; i++) assert.equal((await req('PUT', `${CMS}/stay`, { ...cm('stay', String(i)), metadata: { name: 'stay' } })).status, 200);
    assert.equal((await req('DELETE', `${CMS}/later`)).status, 200);
    const resources = 'configmaps,pods,deployments,replicasets,nodes';
    const atMid = await state(mid, resources);
    // With the namespace's kube-root-ca.crt.
    assert.deepEqual(atMid.objects.configmaps.filter((c) => c.metadata.namespace === 'default').map((c) => [c.metadata.name, c.data.v ?? Object.keys(c.data)]), [['kube-root-ca.crt', ['ca.crt']], ['later', '1'], ['stay', '1']]);

    const b0 = await bounds();
    // The cluster writes in the background (leases, kube-system): retain counted from the store's revision right now.
    const target = env.b.store.compact(env.b.store.revision() - mid);
    assert.equal(target, mid);
    const b1 = await bounds();
    assert.equal(b1.oldest, mid);
    assert.ok(b1.oldest > b0.oldest, `oldest moved from ${b0.oldest} to ${b1.oldest}`);
    assert.deepEqual(await state(mid, resources), atMid, 'the state at the compaction revision is unchanged');
    assertStatus(await req('GET', `${H}/state?revision=${mid - 1}&resources=pods`), 410, 'Expired', `too old resource version: ${mid - 1} (${mid + 1})`);
    assertStatus(await req('GET', `${H}/changes?from=${before}&resources=pods`), 410, 'Expired');
    assert.equal((await req('GET', `${H}/changes?from=${mid}&resources=configmaps`)).body.changes.length, 11);
  });

  it('needs list on every resource asked for', async () => {
    assertStatus(await req('GET', `${H}/state?resources=pods`, undefined, as('jane')), 403, 'Forbidden',
      'pods is forbidden: User "jane" cannot list resource "pods" in API group "" at the cluster scope');
    await req('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'pod-lister' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] });
    await req('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'jane-pods' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'pod-lister' },
      subjects: [{ kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    await eventually(async () => (await req('GET', `${H}/state?resources=pods`, undefined, as('jane'))).status === 200, 5000, 'the binding to apply');
    assert.equal((await req('GET', `${H}/changes?resources=pods`, undefined, as('jane'))).status, 200);
    assertStatus(await req('GET', `${H}/state?resources=pods,deployments`, undefined, as('jane')), 403, 'Forbidden',
      'deployments.apps is forbidden: User "jane" cannot list resource "deployments" in API group "apps" at the cluster scope');
    // The scheduling explanation needs get on the pod.
    const pod = (await req('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).body.items[0].metadata.name;
    assertStatus(await req('GET', `/bonsai/v1/scheduling/namespaces/default/pods/${pod}`, undefined, as('jane')), 403, 'Forbidden',
      `pods "${pod}" is forbidden: User "jane" cannot get resource "pods" in API group "" in the namespace "default"`);
    assert.equal((await req('GET', `/bonsai/v1/scheduling/namespaces/default/pods/${pod}`)).status, 200);
    // The bounds map to no resource: a non-resource URL, granted by a ClusterRole as upstream grants /metrics.
    assertStatus(await req('GET', H, undefined, as('jane')), 403, 'Forbidden', 'forbidden: User "jane" cannot get path "/bonsai/v1/history"');
    await req('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'history-reader' }, rules: [{ nonResourceURLs: [H], verbs: ['get'] }] });
    await req('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'jane-history' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'history-reader' },
      subjects: [{ kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    await eventually(async () => (await req('GET', H, undefined, as('jane'))).status === 200, 5000, 'the history binding to apply');
  });
});
