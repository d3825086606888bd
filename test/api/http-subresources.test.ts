// HTTP semantics of the status and scale subresources, discovery (legacy and aggregated), OpenAPI v3,
// /version and /healthz. kube-apiserver is the reference.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertStatus, useBonsai } from './http.js';

const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';
const MERGE = { contentType: 'application/merge-patch+json' };
const deploy = (name: string, replicas = 1) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels: { app: name } },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

describe('HTTP semantics: subresources, discovery, OpenAPI', () => {
  // The API server alone, as upstream's apiserver tests run it: no workload controller rewrites these objects' status.
  const { req } = useBonsai({ controllers: ['*', '-deployment', '-replicaset', '-statefulset', '-daemonset', '-horizontal-pod-autoscaler'] });

  describe('status subresource', () => {
    it('isolates spec and status writes and bumps generation only on spec changes', async () => {
      const c = await req('POST', DEPLOYS, { ...deploy('iso'), status: { replicas: 7 } });
      assert.equal(c.status, 201, c.text);
      assert.equal(c.body.metadata.generation, 1);
      assert.equal(c.body.status?.replicas, undefined, 'status is dropped on create');

      // PUT /status: the status is written, spec changes are ignored, generation stays.
      const s1 = await req('PUT', `${DEPLOYS}/iso/status`, { ...c.body, spec: { ...c.body.spec, replicas: 9 }, status: { observedGeneration: 1, replicas: 1, readyReplicas: 1 } });
      assert.equal(s1.status, 200, s1.text);
      assert.equal(s1.body.spec.replicas, 1);
      assert.deepEqual(s1.body.status, { observedGeneration: 1, replicas: 1, readyReplicas: 1 });
      assert.equal(s1.body.metadata.generation, 1);
      assert.notEqual(s1.body.metadata.resourceVersion, c.body.metadata.resourceVersion);

      // PUT on the main resource: status changes are ignored.
      const m1 = await req('PUT', `${DEPLOYS}/iso`, { ...s1.body, status: { observedGeneration: 99, replicas: 42 } });
      assert.equal(m1.status, 200, m1.text);
      assert.deepEqual(m1.body.status, { observedGeneration: 1, replicas: 1, readyReplicas: 1 });
      assert.equal(m1.body.metadata.generation, 1);

      // Label and annotation changes do not bump generation.
      const l = await req('PATCH', `${DEPLOYS}/iso`, { metadata: { labels: { extra: 'yes' }, annotations: { note: 'x' } } }, MERGE);
      assert.equal(l.status, 200);
      assert.equal(l.body.metadata.generation, 1);
      assert.equal(l.body.metadata.labels.extra, 'yes');

      // A spec change bumps generation; observedGeneration stays what the status writer set.
      const sp = await req('PATCH', `${DEPLOYS}/iso`, { spec: { replicas: 3 } }, MERGE);
      assert.equal(sp.status, 200);
      assert.equal(sp.body.metadata.generation, 2);
      assert.equal(sp.body.status.observedGeneration, 1);

      // PATCH /status: spec in the patch is ignored, status is merged, generation stays.
      const ps = await req('PATCH', `${DEPLOYS}/iso/status`, { spec: { replicas: 8 }, status: { observedGeneration: 2, replicas: 3 } }, MERGE);
      assert.equal(ps.status, 200, ps.text);
      assert.equal(ps.body.spec.replicas, 3);
      assert.equal(ps.body.metadata.generation, 2);
      assert.deepEqual(ps.body.status, { observedGeneration: 2, replicas: 3, readyReplicas: 1 });
      // Metadata changes through /status are ignored as well (upstream resets them for status updates).
      const g = await req('GET', `${DEPLOYS}/iso/status`);
      assert.equal(g.status, 200);
      assert.equal(g.body.kind, 'Deployment');
      assert.equal(g.body.metadata.resourceVersion, ps.body.metadata.resourceVersion);
    });

    it('answers a stale status update with 409 Conflict', async () => {
      const cur = (await req('GET', `${DEPLOYS}/iso`)).body;
      await req('PATCH', `${DEPLOYS}/iso/status`, { status: { replicas: 4 } }, MERGE);
      const r = await req('PUT', `${DEPLOYS}/iso/status`, { ...cur, status: { replicas: 5 } });
      assertStatus(r, 409, 'Conflict', 'Operation cannot be fulfilled on deployments.apps "iso": the object has been modified; please apply your changes to the latest version and try again');
      assertStatus(await req('GET', `${DEPLOYS}/missing/status`), 404, 'NotFound', 'deployments.apps "missing" not found');
    });
  });

  describe('scale subresource', () => {
    it('reads a Deployment as an autoscaling/v1 Scale', async () => {
      const c = await req('POST', DEPLOYS, deploy('sc', 2));
      const r = await req('GET', `${DEPLOYS}/sc/scale`);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.kind, 'Scale');
      assert.equal(r.body.apiVersion, 'autoscaling/v1');
      assert.equal(r.body.metadata.name, 'sc');
      assert.equal(r.body.metadata.namespace, 'default');
      assert.equal(r.body.metadata.uid, c.body.metadata.uid);
      assert.equal(r.body.metadata.resourceVersion, c.body.metadata.resourceVersion);
      assert.deepEqual(r.body.spec, { replicas: 2 });
      assert.equal(r.body.status.selector, 'app=sc');
      assert.equal(r.body.status.replicas, 0);
    });

    it('scales with a merge patch', async () => {
      const r = await req('PATCH', `${DEPLOYS}/sc/scale`, { spec: { replicas: 5 } }, MERGE);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.kind, 'Scale');
      assert.equal(r.body.spec.replicas, 5);
      const d = (await req('GET', `${DEPLOYS}/sc`)).body;
      assert.equal(d.spec.replicas, 5);
      assert.equal(d.metadata.generation, 2);
      assert.equal(r.body.metadata.resourceVersion, d.metadata.resourceVersion);
      const sm = await req('PATCH', `${DEPLOYS}/sc/scale`, { spec: { replicas: 4 } }, { contentType: 'application/strategic-merge-patch+json' });
      assert.equal(sm.status, 200, sm.text);
      assert.equal(sm.body.spec.replicas, 4);
    });

    it('scales with a PUT and rejects a stale resourceVersion with 409', async () => {
      const cur = (await req('GET', `${DEPLOYS}/sc/scale`)).body;
      const ok = await req('PUT', `${DEPLOYS}/sc/scale`, { ...cur, spec: { replicas: 6 } });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.spec.replicas, 6);
      const stale = await req('PUT', `${DEPLOYS}/sc/scale`, { ...cur, spec: { replicas: 7 } });
      assertStatus(stale, 409, 'Conflict', 'Operation cannot be fulfilled on deployments.apps "sc": the object has been modified; please apply your changes to the latest version and try again');
      assert.equal((await req('GET', `${DEPLOYS}/sc`)).body.spec.replicas, 6);
      // A dry run writes nothing: the Deployment keeps its resourceVersion (other components' writes meanwhile, a
      // lease's renewal say, move the store's revision, so that is not the check).
      const before = (await req('GET', `${DEPLOYS}/sc`)).body;
      const dry = await req('PATCH', `${DEPLOYS}/sc/scale?dryRun=All`, { spec: { replicas: 1 } }, MERGE);
      assert.equal(dry.status, 200);
      assert.equal(dry.body.spec.replicas, 1);
      const after = (await req('GET', `${DEPLOYS}/sc`)).body;
      assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
      assert.equal(after.spec.replicas, 6);
      assertStatus(await req('GET', `${DEPLOYS}/nope/scale`), 404, 'NotFound', 'deployments.apps "nope" not found');
    });
  });

  describe('discovery', () => {
    it('serves the legacy /api and /apis documents', async () => {
      const api = await req('GET', '/api');
      assert.equal(api.status, 200);
      assert.equal(api.body.kind, 'APIVersions');
      assert.deepEqual(api.body.versions, ['v1']);
      assert.equal(api.body.serverAddressByClientCIDRs[0].clientCIDR, '0.0.0.0/0');
      const apis = await req('GET', '/apis');
      assert.equal(apis.body.kind, 'APIGroupList');
      assert.equal(apis.body.apiVersion, 'v1');
      const apps = apis.body.groups.find((g: { name: string }) => g.name === 'apps');
      assert.deepEqual(apps.versions, [{ groupVersion: 'apps/v1', version: 'v1' }]);
      assert.deepEqual(apps.preferredVersion, { groupVersion: 'apps/v1', version: 'v1' });
      const as = apis.body.groups.find((g: { name: string }) => g.name === 'autoscaling');
      assert.deepEqual(as.versions.map((v: { version: string }) => v.version).sort(), ['v1', 'v2']);
      assert.equal(as.preferredVersion.version, 'v2');
      for (const g of ['batch', 'policy', 'events.k8s.io', 'rbac.authorization.k8s.io']) assert.ok(apis.body.groups.some((x: { name: string }) => x.name === g), g);
      const group = await req('GET', '/apis/apps');
      assert.equal(group.body.kind, 'APIGroup');
      assert.equal(group.body.name, 'apps');
    });

    it('serves APIResourceLists with subresource kinds', async () => {
      const v1 = await req('GET', '/api/v1');
      assert.equal(v1.status, 200);
      assert.equal(v1.body.kind, 'APIResourceList');
      assert.equal(v1.body.groupVersion, 'v1');
      const res = (n: string) => v1.body.resources.find((r: { name: string }) => r.name === n);
      const pods = res('pods');
      assert.equal(pods.kind, 'Pod');
      assert.equal(pods.namespaced, true);
      assert.equal(pods.singularName, 'pod');
      assert.deepEqual(pods.shortNames, ['po']);
      assert.ok(pods.categories.includes('all'));
      for (const v of ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']) assert.ok(pods.verbs.includes(v), v);
      const ev = res('pods/eviction');
      assert.deepEqual({ group: ev.group, version: ev.version, kind: ev.kind, verbs: ev.verbs }, { group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
      assert.equal(res('pods/status').kind, 'Pod');
      assert.equal(res('namespaces').namespaced, false);

      const apps = await req('GET', '/apis/apps/v1');
      assert.equal(apps.body.groupVersion, 'apps/v1');
      const scale = apps.body.resources.find((r: { name: string }) => r.name === 'deployments/scale');
      assert.deepEqual({ group: scale.group, version: scale.version, kind: scale.kind }, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
      assert.deepEqual([...scale.verbs].sort(), ['get', 'patch', 'update']);
      assert.equal(apps.body.resources.find((r: { name: string }) => r.name === 'deployments').kind, 'Deployment');
      assertStatus(await req('GET', '/apis/apps/v2'), 404, 'NotFound');
      assertStatus(await req('POST', '/api/v1', {}), 405, 'MethodNotAllowed');
    });

    it('serves aggregated discovery for the v2 Accept', async () => {
      const apis = await req('GET', '/apis', undefined, { accept: AGGREGATED });
      assert.equal(apis.status, 200);
      assert.equal(apis.headers.get('content-type'), 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
      assert.equal(apis.body.kind, 'APIGroupDiscoveryList');
      assert.equal(apis.body.apiVersion, 'apidiscovery.k8s.io/v2');
      const apps = apis.body.items.find((g: { metadata: { name: string } }) => g.metadata.name === 'apps');
      const deployments = apps.versions[0].resources.find((r: { resource: string }) => r.resource === 'deployments');
      assert.deepEqual(deployments.responseKind, { group: 'apps', version: 'v1', kind: 'Deployment' });
      assert.equal(deployments.scope, 'Namespaced');
      assert.equal(deployments.singularResource, 'deployment');
      const scale = deployments.subresources.find((s: { subresource: string }) => s.subresource === 'scale');
      assert.deepEqual(scale.responseKind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
      const autoscaling = apis.body.items.find((g: { metadata: { name: string } }) => g.metadata.name === 'autoscaling');
      assert.equal(autoscaling.versions[0].version, 'v2', 'the preferred version comes first');

      const api = await req('GET', '/api', undefined, { accept: AGGREGATED });
      assert.equal(api.headers.get('content-type'), 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
      const core = api.body.items[0];
      assert.equal(core.metadata.name, '');
      const pods = core.versions[0].resources.find((r: { resource: string }) => r.resource === 'pods');
      const eviction = pods.subresources.find((s: { subresource: string }) => s.subresource === 'eviction');
      assert.deepEqual(eviction.responseKind, { group: 'policy', version: 'v1', kind: 'Eviction' });
      assert.deepEqual(eviction.verbs, ['create']);
      for (const item of [...apis.body.items, ...api.body.items]) {
        for (const v of item.versions) for (const r of v.resources) assert.ok(r.responseKind?.kind, `${item.metadata.name}/${v.version} ${r.resource} has a responseKind`);
      }

      const beta = await req('GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' });
      assert.equal(beta.headers.get('content-type'), 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
      const legacy = await req('GET', '/apis', undefined, { accept: 'application/json' });
      assert.match(legacy.headers.get('content-type') ?? '', /^application\/json(;|$)/);
      assert.doesNotMatch(legacy.headers.get('content-type') ?? '', /apidiscovery/);
      assert.equal(legacy.body.kind, 'APIGroupList');
    });
  });

  describe('OpenAPI v3, version and health', () => {
    it('lists group documents with hashes and serves them', async () => {
      const idx = await req('GET', '/openapi/v3');
      assert.equal(idx.status, 200);
      for (const p of ['api/v1', 'apis/apps/v1', 'apis/autoscaling/v2', 'apis/batch/v1']) {
        assert.match(idx.body.paths[p]?.serverRelativeURL ?? '', new RegExp(`^/openapi/v3/${p.replace(/\//g, '\\/')}\\?hash=[0-9A-Za-z]+$`), p);
      }
      const url = idx.body.paths['apis/apps/v1'].serverRelativeURL as string;
      const doc = await req('GET', url);
      assert.equal(doc.status, 200);
      assert.match(doc.headers.get('content-type') ?? '', /^application\/json/);
      assert.match(doc.body.openapi, /^3\./);
      assert.ok(doc.body.components.schemas['io.k8s.api.apps.v1.Deployment']);
      const patchOp = doc.body.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
      assert.deepEqual(patchOp['x-kubernetes-group-version-kind'], { group: 'apps', version: 'v1', kind: 'Deployment' });
      assert.ok(JSON.stringify(patchOp.parameters).includes('fieldValidation'), 'kubectl needs fieldValidation in the PATCH parameters');
      assert.equal(doc.headers.get('etag'), `"${url.split('hash=')[1]}"`);
      assert.match(doc.headers.get('cache-control') ?? '', /immutable/);
      const core = await req('GET', idx.body.paths['api/v1'].serverRelativeURL);
      assert.ok(core.body.components.schemas['io.k8s.api.core.v1.Pod']);
      const missing = await req('GET', '/openapi/v3/apis/nope.example.com/v1');
      assert.equal(missing.status, 404);
    });

    it('serves /version and health endpoints', async () => {
      const v = await req('GET', '/version?timeout=5s');
      assert.equal(v.status, 200);
      for (const k of ['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform']) assert.equal(typeof v.body[k], 'string', k);
      assert.match(v.body.gitVersion, /^v1\.\d+\.\d+/);
      assert.equal(v.body.gitVersion, `v${v.body.major}.${v.body.minor}.0`);
      for (const p of ['/healthz', '/livez', '/readyz']) {
        const h = await req('GET', p);
        assert.equal(h.status, 200, p);
        assert.equal(h.text, 'ok');
      }
    });
  });

  describe('pods/binding and pods/eviction', () => {
    const PODS = '/api/v1/namespaces/default/pods';
    const pod = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

    it('binds a pod once, with the PodScheduled condition', async () => {
      assert.equal((await req('POST', PODS, pod('bind-me'))).status, 201);
      const bind = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bind-me' }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-1' } };
      const r = await req('POST', `${PODS}/bind-me/binding`, bind);
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.status, 'Success');
      const p = (await req('GET', `${PODS}/bind-me`)).body;
      assert.equal(p.spec.nodeName, 'node-1');
      assert.equal(p.status.conditions.find((c: { type: string }) => c.type === 'PodScheduled')?.status, 'True');
      assertStatus(await req('POST', `${PODS}/bind-me/binding`, { ...bind, target: { kind: 'Node', name: 'node-2' } }), 409, 'Conflict', /^Operation cannot be fulfilled on pods\/binding "bind-me": pod bind-me is already assigned to node "node-1"$/);
    });

    it('refuses to bind a pod that still has scheduling gates, and binds it once they are removed', async () => {
      const gated = { ...pod('gated'), spec: { ...pod('gated').spec, schedulerName: 'nobody', schedulingGates: [{ name: 'example.com/wait' }] } };
      assert.equal((await req('POST', PODS, gated)).status, 201);
      const bind = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'gated' }, target: { kind: 'Node', name: 'node-1' } };
      assertStatus(await req('POST', `${PODS}/gated/binding`, bind), 409, 'Conflict', /^Operation cannot be fulfilled on pods\/binding "gated": pod gated has non-empty \.spec\.schedulingGates$/);
      assert.equal((await req('GET', `${PODS}/gated`)).body.spec.nodeName, undefined);
      const cur = (await req('GET', `${PODS}/gated`)).body;
      const ungated = await req('PUT', `${PODS}/gated`, { ...cur, spec: { ...cur.spec, schedulingGates: [] } });
      assert.equal(ungated.status, 200, ungated.text);
      assert.equal((await req('POST', `${PODS}/gated/binding`, bind)).status, 201);
      assert.equal((await req('GET', `${PODS}/gated`)).body.spec.nodeName, 'node-1');
    });

    it('evicts unless a disruption budget forbids it (429)', async () => {
      assert.equal((await req('POST', PODS, pod('evict-free'))).status, 201);
      const ev = (name: string) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } });
      assert.equal((await req('POST', `${PODS}/evict-free/eviction`, ev('evict-free'))).status, 201);
      assert.equal((await req('GET', `${PODS}/evict-free`)).status, 404);

      // A running, ready pod protected by a budget that allows no disruption.
      assert.equal((await req('POST', PODS, pod('guarded', { app: 'guarded' }))).status, 201);
      // A merge patch (as a kubelet's status patch): a controller's write to the pod in between does not make it 409.
      const st = await req('PATCH', `${PODS}/guarded/status`, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, MERGE);
      assert.equal(st.status, 200, st.text);
      const pdb = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'guard' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } } };
      assert.equal((await req('POST', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', pdb)).status, 201);
      // The disruption controller fills the budget's status.
      let s: Record<string, unknown> | undefined;
      for (let i = 0; i < 100 && s?.observedGeneration !== 1; i++) {
        s = (await req('GET', '/apis/policy/v1/namespaces/default/poddisruptionbudgets/guard')).body.status;
        if (s?.observedGeneration !== 1) await new Promise((r) => setTimeout(r, 20));
      }
      assert.deepEqual({ currentHealthy: s?.currentHealthy, desiredHealthy: s?.desiredHealthy, disruptionsAllowed: s?.disruptionsAllowed }, { currentHealthy: 1, desiredHealthy: 1, disruptionsAllowed: 0 });
      const blocked = assertStatus(await req('POST', `${PODS}/guarded/eviction`, ev('guarded')), 429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.");
      assert.equal(blocked.details.causes[0].reason, 'DisruptionBudget');
      assert.match(blocked.details.causes[0].message, /The disruption budget guard needs 1 healthy pods and has 1 currently/);
      assert.equal((await req('GET', `${PODS}/guarded`)).status, 200);
    });
  });
});
