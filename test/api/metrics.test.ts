// The resource metrics API (metrics.k8s.io/v1beta1) over HTTP: discovery, object shapes and formats as
// metrics-server serves them, selectors, Table output, and the errors for missing objects and unsupported verbs.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { assertPageNotFound, assertStatus, useBonsai } from './http.js';
import { eventually } from '../helpers/kubectl.js';

const M = '/apis/metrics.k8s.io/v1beta1';
const MERGE = { contentType: 'application/merge-patch+json' };
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

const node = (name: string, stopped = false) => ({
  apiVersion: 'v1', kind: 'Node',
  metadata: { name, labels: { pool: stopped ? 'off' : 'a' }, annotations: stopped ? { 'bonsai.dev/stopped': 'true' } : {} },
  status: { capacity: { cpu: '2', memory: '4Gi', pods: '110' }, allocatable: { cpu: '2', memory: '4Gi', pods: '110' } },
});

type Container = Record<string, unknown>;
const pod = (name: string, nodeName: string, labels: Record<string, string>, containers: Container[], annotations: Record<string, string> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, labels, annotations }, spec: { nodeName, containers },
});

const decimal: Record<string, number> = { n: 1, u: 1e3, m: 1e6, '': 1e9 };
const binary: Record<string, number> = { '': 1, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 };
const nano = (q: string) => Number(q.match(/^\d+/)![0]) * decimal[q.replace(/^\d+/, '')];
const bytes = (q: string) => Number(q.match(/^\d+/)![0]) * binary[q.replace(/^\d+/, '')];

describe('metrics.k8s.io', () => {
  const { req } = useBonsai({ cluster: { nodes: 0 } });

  it('is listed in legacy and aggregated discovery with get and list only', async () => {
    const groups = await req('GET', '/apis');
    const g = groups.body.groups.find((x: { name: string }) => x.name === 'metrics.k8s.io');
    assert.deepEqual(g, { name: 'metrics.k8s.io', versions: [{ groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' }], preferredVersion: { groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' } });
    const group = await req('GET', '/apis/metrics.k8s.io');
    assert.equal(group.body.kind, 'APIGroup');

    const list = await req('GET', M);
    assert.equal(list.body.groupVersion, 'metrics.k8s.io/v1beta1');
    assert.deepEqual(list.body.resources, [
      { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
      { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
    ]);

    const agg = await req('GET', '/apis', undefined, { accept: AGGREGATED });
    const item = agg.body.items.find((x: { metadata: { name: string } }) => x.metadata.name === 'metrics.k8s.io');
    assert.equal(item.versions[0].version, 'v1beta1');
    assert.deepEqual(item.versions[0].resources.map((r: Record<string, unknown>) => [r.resource, r.scope, (r.responseKind as { kind: string }).kind, r.verbs]), [
      ['nodes', 'Cluster', 'NodeMetrics', ['get', 'list']],
      ['pods', 'Namespaced', 'PodMetrics', ['get', 'list']],
    ]);
  });

  describe('with running pods', () => {
    before(async () => {
      for (const n of [node('m1'), node('m-off', true)]) assert.equal((await req('POST', '/api/v1/nodes', n)).status, 201);
      assert.equal((await req('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } })).status, 201);
      const pods: Array<[string, ReturnType<typeof pod>]> = [
        ['default', pod('a', 'm1', { app: 'a', tier: 'x' }, [{ name: 'main', image: 'nginx' }], { 'bonsai.dev/cpu-usage': '250m', 'bonsai.dev/memory-usage': '100Mi' })],
        ['default', pod('b', 'm1', { app: 'b' }, [
          { name: 'main', image: 'nginx', resources: { requests: { cpu: '200m', memory: '256Mi' } } },
          { name: 'limited', image: 'nginx', resources: { limits: { cpu: '500m' } } },
        ], { 'bonsai.dev/cpu-usage.limited': '2' })],
        ['default', pod('off', 'm-off', { app: 'off' }, [{ name: 'main', image: 'nginx' }])],
        ['other', pod('c', 'm1', { app: 'c' }, [{ name: 'main', image: 'nginx' }], { 'bonsai.dev/cpu-usage': '1', 'bonsai.dev/memory-usage': '1Gi' })],
      ];
      for (const [i, [ns, p]] of pods.entries()) {
        assert.equal((await req('POST', `/api/v1/namespaces/${ns}/pods`, p)).status, 201);
        // Running as a kubelet would report it (a simulated kubelet, when there is one, reports the same).
        const status = { phase: 'Running', podIP: `10.244.9.${i + 2}`, conditions: [{ type: 'Ready', status: 'True' }] };
        assert.equal((await req('PATCH', `/api/v1/namespaces/${ns}/pods/${p.metadata.name}/status`, { status }, MERGE)).status, 200);
      }
      await eventually(async () => (await req('GET', `${M}/pods`)).body.items.length === 3, 10_000, 'metrics of the three running pods');
    });

    it('serves PodMetrics as metrics-server does: nanocores or milli, binary memory, timestamp and window', async () => {
      const a = await req('GET', `${M}/namespaces/default/pods/a`);
      assert.equal(a.status, 200, a.text);
      assert.equal(a.body.kind, 'PodMetrics');
      assert.equal(a.body.apiVersion, 'metrics.k8s.io/v1beta1');
      assert.deepEqual(Object.keys(a.body), ['kind', 'apiVersion', 'metadata', 'timestamp', 'window', 'containers']);
      assert.equal(a.body.metadata.name, 'a');
      assert.equal(a.body.metadata.namespace, 'default');
      assert.deepEqual(a.body.metadata.labels, { app: 'a', tier: 'x' });
      assert.match(a.body.metadata.creationTimestamp, TIME);
      assert.match(a.body.timestamp, TIME);
      assert.match(a.body.window, /^1[5-9](\.\d{1,3})?s$/);
      assert.deepEqual(a.body.containers, [{ name: 'main', usage: { cpu: '250m', memory: '100Mi' } }]);

      // Derived from requests (40% cpu, 60% memory in whole pages), and cpu held at the limit.
      const b = await req('GET', `${M}/namespaces/default/pods/b`);
      assert.deepEqual(b.body.containers, [
        { name: 'main', usage: { cpu: '80m', memory: '157288Ki' } },
        { name: 'limited', usage: { cpu: '500m', memory: '4Mi' } },
      ]);
      const c = await req('GET', `${M}/namespaces/other/pods/c`);
      assert.deepEqual(c.body.containers[0].usage, { cpu: '1', memory: '1Gi' });
    });

    it('lists pods across or within namespaces, sorted, filtered by label and field selectors', async () => {
      const all = await req('GET', `${M}/pods`);
      assert.equal(all.body.kind, 'PodMetricsList');
      assert.deepEqual(all.body.metadata, {});
      assert.deepEqual(all.body.items.map((i: { metadata: { namespace: string; name: string } }) => `${i.metadata.namespace}/${i.metadata.name}`), ['default/a', 'default/b', 'other/c']);
      assert.equal(all.body.items[0].kind, undefined, 'list items carry no type meta');
      const names = async (path: string) => (await req('GET', path)).body.items.map((i: { metadata: { name: string } }) => i.metadata.name);
      assert.deepEqual(await names(`${M}/namespaces/other/pods`), ['c']);
      assert.deepEqual(await names(`${M}/pods?labelSelector=${encodeURIComponent('tier=x')}`), ['a']);
      assert.deepEqual(await names(`${M}/namespaces/default/pods?labelSelector=${encodeURIComponent('app in (a,b)')}`), ['a', 'b']);
      assert.deepEqual(await names(`${M}/pods?fieldSelector=metadata.name%3Db`), ['b']);
      assert.deepEqual(await names(`${M}/pods?fieldSelector=metadata.namespace%3Dother`), ['c']);
      assertStatus(await req('GET', `${M}/pods?labelSelector=${encodeURIComponent('tier=(x')}`), 400, 'BadRequest');
    });

    it('sums a node from its system share and the pods running on it; silent kubelets report nothing', async () => {
      const list = await req('GET', `${M}/nodes`);
      assert.equal(list.body.kind, 'NodeMetricsList');
      assert.deepEqual(list.body.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['m1']);
      const m1 = await req('GET', `${M}/nodes/m1`);
      assert.equal(m1.body.kind, 'NodeMetrics');
      assert.deepEqual(Object.keys(m1.body), ['kind', 'apiVersion', 'metadata', 'timestamp', 'window', 'usage']);
      assert.equal(m1.body.metadata.labels.pool, 'a');
      const cap = (await req('GET', '/api/v1/nodes/m1')).body.status.capacity;
      const pods = (await req('GET', `${M}/pods`)).body.items as Array<{ containers: Array<{ usage: { cpu: string; memory: string } }> }>;
      const usage = pods.flatMap((p) => p.containers.map((c) => c.usage));
      const cpuCap = nano(String(cap.cpu));
      const memCap = bytes(String(cap.memory));
      // The system part: 100m and 1% of the cpu, 256Mi and 2% of the memory (in whole pages).
      assert.equal(nano(m1.body.usage.cpu), Math.round(1e8 + cpuCap * 0.01) + usage.reduce((n, u) => n + nano(u.cpu), 0));
      assert.equal(bytes(m1.body.usage.memory), Math.round((256 * 2 ** 20 + memCap * 0.02) / 4096) * 4096 + usage.reduce((n, u) => n + bytes(u.memory), 0));
      assert.deepEqual((await req('GET', `${M}/nodes?labelSelector=pool%3Doff`)).body.items, []);
      assert.deepEqual((await req('GET', `${M}/nodes?fieldSelector=metadata.name%3Dm1`)).body.items.length, 1);
    });

    it('answers NotFound as metrics-server does', async () => {
      assertStatus(await req('GET', `${M}/namespaces/default/pods/off`), 404, 'NotFound', 'podmetrics.metrics.k8s.io "default/off" not found');
      assertStatus(await req('GET', `${M}/namespaces/default/pods/nope`), 404, 'NotFound', 'pods "nope" not found');
      assertStatus(await req('GET', `${M}/nodes/m-off`), 404, 'NotFound', 'nodemetrics.metrics.k8s.io "m-off" not found');
      assertStatus(await req('GET', `${M}/nodes/nope`), 404, 'NotFound', 'node "nope" not found');
      assertStatus(await req('GET', `${M}/podz`), 404, 'NotFound');
      // A version metrics-server does not serve is no API at all.
      assertPageNotFound(await req('GET', '/apis/metrics.k8s.io/v1/nodes'));
      assertStatus(await req('GET', `${M}/namespaces/default/nodes`), 404, 'NotFound');
    });

    it('renders a Table of name, cpu, memory and window for kubectl get', async () => {
      const t = await req('GET', `${M}/namespaces/default/pods`, undefined, { accept: TABLE });
      assert.equal(t.body.kind, 'Table');
      assert.deepEqual(t.body.columnDefinitions.map((c: { name: string; format: string }) => [c.name, c.format]), [['Name', 'name'], ['cpu', 'quantity'], ['memory', 'quantity'], ['Window', 'duration']]);
      const b = t.body.rows.find((r: { cells: string[] }) => r.cells[0] === 'b');
      assert.deepEqual(b.cells.slice(0, 3), ['b', '580m', `${157288 + 4096}Ki`]);
      assert.equal(b.object.kind, 'PartialObjectMetadata');
      const empty = await req('GET', `${M}/namespaces/kube-public/pods`, undefined, { accept: TABLE });
      assert.deepEqual([empty.body.columnDefinitions, empty.body.rows], [[], []]);
    });

    it('allows only get and list', async () => {
      assertStatus(await req('POST', `${M}/namespaces/default/pods`, { metadata: { name: 'x' } }), 405, 'MethodNotAllowed');
      assertStatus(await req('DELETE', `${M}/nodes/m1`), 405, 'MethodNotAllowed');
      assertStatus(await req('GET', `${M}/pods?watch=true`), 405, 'MethodNotAllowed', 'watch is not supported on resources of kind "pods.metrics.k8s.io"');
    });
  });
});
