// Objects as kube-apiserver returns them: the empty status every kind serialises, what DELETE answers, Secret
// stringData, the namespaces that may not be deleted, resourceVersion "0", and the v1 Endpoints deprecation warning.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertStatus, openWatch, useBonsai } from './http.js';

const NS = '/api/v1/namespaces/default';
const tmpl = (app: string, restartPolicy = 'Always') => ({ metadata: { labels: { app } }, spec: { restartPolicy, containers: [{ name: 'c', image: 'nginx' }] } });
const sel = (app: string) => ({ matchLabels: { app } });
const ENDPOINTS_WARNING = '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"';

describe('object fidelity', () => {
  // No workload controller: what is checked is what the API itself writes.
  const { env, req } = useBonsai({ controllers: [] });

  it('serialises every kind\'s status on create as upstream does (zero counters that are not omitempty)', async () => {
    const cases: Array<[string, Record<string, unknown>, unknown]> = [
      ['/apis/apps/v1/namespaces/default/deployments', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { selector: sel('d'), template: tmpl('d') } }, {}],
      ['/apis/apps/v1/namespaces/default/replicasets', { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs' }, spec: { selector: sel('rs'), template: tmpl('rs') } }, { replicas: 0 }],
      ['/apis/apps/v1/namespaces/default/statefulsets', { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'ss' }, spec: { selector: sel('ss'), template: tmpl('ss') } }, { replicas: 0, availableReplicas: 0 }],
      ['/apis/apps/v1/namespaces/default/daemonsets', { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds' }, spec: { selector: sel('ds'), template: tmpl('ds') } },
        { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }],
      ['/apis/batch/v1/namespaces/default/jobs', { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: tmpl('j', 'Never') } }, {}],
      ['/apis/batch/v1/namespaces/default/cronjobs', { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'cj' }, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: tmpl('cj', 'Never') } } } }, {}],
      [`${NS}/replicationcontrollers`, { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc' }, spec: { selector: { app: 'rc' }, template: tmpl('rc') } }, { replicas: 0 }],
      ['/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h2' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, maxReplicas: 3 } },
        { desiredReplicas: 0, currentMetrics: null }],
      ['/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers', { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h1' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, maxReplicas: 3 } },
        { currentReplicas: 0, desiredReplicas: 0 }],
      ['/apis/policy/v1/namespaces/default/poddisruptionbudgets', { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'pdb' }, spec: { minAvailable: 1, selector: sel('d') } },
        { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }],
      ['/apis/networking.k8s.io/v1/namespaces/default/ingresses', { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'ing' }, spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } } } }, { loadBalancer: {} }],
      [`${NS}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }] } }, { loadBalancer: {} }],
      [`${NS}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: '5' } } }, {}],
      ['/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n-empty' } }, {
        daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
        nodeInfo: { machineID: '', systemUUID: '', bootID: '', kernelVersion: '', osImage: '', containerRuntimeVersion: '', kubeletVersion: '', kubeProxyVersion: '', operatingSystem: '', architecture: '' },
      }],
    ];
    for (const [path, body, status] of cases) {
      const c = await req('POST', path, body);
      assert.equal(c.status, 201, `${path}: ${c.text}`);
      assert.deepEqual(c.body.status, status, `${body.kind} ${path}`);
      // (A node's simulated kubelet reports its status at once.)
      if (body.kind !== 'Node') assert.deepEqual((await req('GET', `${path}/${(body.metadata as { name: string }).name}`)).body.status, status, `${body.kind} read back`);
    }
    // Kinds whose strategies or defaults write a status keep it.
    assert.deepEqual((await req('POST', `${NS}/persistentvolumeclaims`, { metadata: { name: 'pvc' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } })).body.status, { phase: 'Pending' });
    assert.deepEqual((await req('POST', '/api/v1/namespaces', { metadata: { name: 'fresh' } })).body.status, { phase: 'Active' });
  });

  it('fills the zero counters a status write leaves out, and restores the empty status a write drops', async () => {
    const rs = '/apis/apps/v1/namespaces/default/replicasets/rs';
    const cur = (await req('GET', rs)).body;
    const w = await req('PUT', `${rs}/status`, { ...cur, status: { observedGeneration: 1, readyReplicas: 0 } });
    assert.equal(w.status, 200, w.text);
    assert.deepEqual(w.body.status, { observedGeneration: 1, readyReplicas: 0, replicas: 0 });
    const n = await req('PATCH', `${rs}/status`, { status: null }, { contentType: 'application/merge-patch+json' });
    assert.deepEqual(n.body.status, { replicas: 0 });
  });

  describe('DELETE', () => {
    it('answers a Success Status naming the resource, for kinds upstream does not return', async () => {
      const c = await req('POST', `${NS}/configmaps`, { metadata: { name: 'gone' }, data: { a: '1' } });
      const d = await req('DELETE', `${NS}/configmaps/gone`);
      assert.equal(d.status, 200);
      assert.deepEqual(d.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'gone', kind: 'configmaps', uid: c.body.metadata.uid } });
      const dep = await req('DELETE', '/apis/apps/v1/namespaces/default/deployments/d');
      assert.deepEqual(dep.body.details, { name: 'd', group: 'apps', kind: 'deployments', uid: dep.body.details.uid });
      assert.equal(dep.body.status, 'Success');
      // A dry run answers the same, and deletes nothing.
      await req('POST', `${NS}/configmaps`, { metadata: { name: 'kept' } });
      const dry = await req('DELETE', `${NS}/configmaps/kept?dryRun=All`);
      assert.equal(dry.body.kind, 'Status');
      assert.equal((await req('GET', `${NS}/configmaps/kept`)).status, 200);
    });

    it('answers with the object for the kinds upstream returns (ReturnDeletedObject)', async () => {
      const made: Array<[string, Record<string, unknown>]> = [
        [`${NS}/services`, { metadata: { name: 'svc-del' }, spec: { ports: [{ port: 80 }] } }],
        [`${NS}/serviceaccounts`, { metadata: { name: 'sa-del' } }],
        [`${NS}/resourcequotas`, { metadata: { name: 'q-del' }, spec: { hard: { pods: '1' } } }],
        [`${NS}/persistentvolumeclaims`, { metadata: { name: 'pvc-del' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
        ['/api/v1/persistentvolumes', { metadata: { name: 'pv-del' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp' } } }],
        ['/apis/storage.k8s.io/v1/storageclasses', { metadata: { name: 'sc-del' }, provisioner: 'example.com/x' }],
        [`${NS}/pods`, { metadata: { name: 'pod-del' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }],
      ];
      for (const [path, body] of made) {
        const name = (body.metadata as { name: string }).name;
        assert.equal((await req('POST', path, body)).status, 201, path);
        const d = await req('DELETE', `${path}/${name}`);
        assert.equal(d.status, 200, d.text);
        assert.equal(d.body.metadata?.name, name, `${path} returns the deleted object`);
      }
    });

    it('answers with the object while finalizers keep it, 202 when the client asked for cascading deletion', async () => {
      await req('POST', `${NS}/configmaps`, { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
      const d = await req('DELETE', `${NS}/configmaps/held`, { kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: false });
      assert.equal(d.status, 202, d.text);
      assert.ok(d.body.metadata.deletionTimestamp);
      const again = await req('DELETE', `${NS}/configmaps/held`);
      assert.equal(again.status, 200);
      assert.equal(again.body.metadata.name, 'held');
      await req('PATCH', `${NS}/configmaps/held`, { metadata: { finalizers: null } }, { contentType: 'application/merge-patch+json' });
    });

    it('answers deletecollection with the list as it was listed', async () => {
      for (const n of ['dc-1', 'dc-2']) await req('POST', `${NS}/configmaps`, { metadata: { name: n, labels: { batch: 'dc' } } });
      const d = await req('DELETE', `${NS}/configmaps?labelSelector=batch%3Ddc`);
      assert.equal(d.status, 200, d.text);
      assert.equal(d.body.kind, 'ConfigMapList');
      assert.deepEqual(d.body.items.map((i: { metadata: { name: string; deletionTimestamp?: string } }) => [i.metadata.name, i.metadata.deletionTimestamp]), [['dc-1', undefined], ['dc-2', undefined]]);
      assert.equal((await req('GET', `${NS}/configmaps?labelSelector=batch%3Ddc`)).body.items.length, 0);
    });

    it('refuses to delete default, kube-system and kube-public (NamespaceLifecycle)', async () => {
      for (const ns of ['default', 'kube-system', 'kube-public']) {
        const s = assertStatus(await req('DELETE', `/api/v1/namespaces/${ns}`), 403, 'Forbidden', `namespaces "${ns}" is forbidden: this namespace may not be deleted`);
        assert.deepEqual(s.details, { name: ns, kind: 'namespaces' });
        assert.equal((await req('GET', `/api/v1/namespaces/${ns}`)).body.status.phase, 'Active');
      }
    });
  });

  it('merges Secret stringData into data on create, update and patch, and never stores it', async () => {
    const c = await req('POST', `${NS}/secrets`, { metadata: { name: 'sd' }, data: { a: 'eA==', b: 'eQ==' }, stringData: { b: 'hello', c: 'wörld' } });
    assert.equal(c.status, 201, c.text);
    assert.deepEqual(c.body.data, { a: 'eA==', b: 'aGVsbG8=', c: 'd8O2cmxk' });
    assert.equal(c.body.stringData, undefined);
    const u = await req('PUT', `${NS}/secrets/sd`, { ...c.body, stringData: { a: 'new' } });
    assert.deepEqual(u.body.data, { a: 'bmV3', b: 'aGVsbG8=', c: 'd8O2cmxk' });
    const p = await req('PATCH', `${NS}/secrets/sd`, { stringData: { d: '' } }, { contentType: 'application/strategic-merge-patch+json' });
    assert.equal(p.body.data.d, '');
    const stored = (await req('GET', `${NS}/secrets/sd`)).body;
    assert.equal(stored.stringData, undefined);
    assert.deepEqual(Object.keys(stored.data), ['a', 'b', 'c', 'd']);
    // A key that looks like a prototype is an ordinary key.
    const proto = await req('POST', `${NS}/secrets`, { metadata: { name: 'sd-proto' }, stringData: JSON.parse('{"__proto__":"x"}') });
    assert.equal(proto.status, 201, proto.text);
    assert.deepEqual(Object.entries(proto.body.data), [['__proto__', 'eA==']]);
  });

  it('treats an update with resourceVersion "0" (or none) as unconditional and refuses one that is no number', async () => {
    const c = await req('POST', `${NS}/configmaps`, { metadata: { name: 'rv' }, data: { v: '0' } });
    const put = (rv: string | undefined, v: string) => req('PUT', `${NS}/configmaps/rv`, { metadata: { name: 'rv', resourceVersion: rv }, data: { v } });
    const zero = await put('0', '1');
    assert.equal(zero.status, 200, zero.text);
    assert.ok(Number(zero.body.metadata.resourceVersion) > Number(c.body.metadata.resourceVersion));
    assert.equal((await put(undefined, '2')).status, 200);
    assertStatus(await put(c.body.metadata.resourceVersion, '3'), 409, 'Conflict');
    assertStatus(await put('abc', '4'), 400, 'BadRequest', 'strconv.ParseUint: parsing "abc": invalid syntax');
    assertStatus(await put('-1', '4'), 400, 'BadRequest', 'strconv.ParseUint: parsing "-1": invalid syntax');
    assertStatus(await put('18446744073709551616', '4'), 400, 'BadRequest', 'strconv.ParseUint: parsing "18446744073709551616": value out of range');
    const cur = (await req('GET', `${NS}/configmaps/rv`)).body;
    assert.equal((await put(`0${cur.metadata.resourceVersion}`, '5')).status, 200, 'compared as a number');
  });

  it('warns on every v1 Endpoints request that the API is deprecated', async () => {
    const EP = `${NS}/endpoints`;
    const c = await req('POST', EP, { metadata: { name: 'ep' }, subsets: [] });
    assert.equal(c.status, 201, c.text);
    const responses = [
      c,
      await req('GET', `${EP}/ep`),
      await req('GET', EP),
      await req('GET', '/api/v1/endpoints'),
      await req('PUT', `${EP}/ep`, { ...c.body, metadata: { ...c.body.metadata, labels: { a: 'b' } } }),
      await req('PATCH', `${EP}/ep`, { metadata: { labels: { a: 'c' } } }, { contentType: 'application/merge-patch+json' }),
      await req('GET', `${EP}/missing`),
      await req('DELETE', `${EP}/ep`),
    ];
    for (const r of responses) assert.equal(r.headers.get('warning'), ENDPOINTS_WARNING, `${r.status} ${r.text.slice(0, 80)}`);
    const strict = await req('POST', `${EP}?fieldValidation=Warn`, { metadata: { name: 'ep2' }, bogus: 1 });
    assert.equal(strict.headers.get('warning'), `${ENDPOINTS_WARNING}, 299 - "unknown field \\"bogus\\""`);
    const w = await openWatch(`${env.b.url}${EP}?watch=true&timeoutSeconds=1`);
    assert.equal(w.status, 200);
    assert.equal(w.headers.get('warning'), ENDPOINTS_WARNING, 'watches too');
    w.close();
    assert.equal((await req('GET', `${NS}/configmaps`)).headers.get('warning'), null, 'other resources carry no warning');
  });
});
