// kubectl top against the metrics.k8s.io API, and the Endpoints / EndpointSlice controllers behind Services.
// Pods are bound to Nodes the test creates, so no scheduler is needed. The endpoints pods live on a node whose
// simulated kubelet is stopped, so the statuses the test writes stay as written; the `top` pods live on a node
// with a kubelet (the test's status write only matters when there is none). Assertions read the pod IPs the API
// reports at that moment.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;

const node = (name: string, zone: string, stopped = false) => JSON.stringify({
  apiVersion: 'v1', kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone }, annotations: stopped ? { 'bonsai.dev/stopped': 'true' } : {} },
  status: { capacity: { cpu: '4', memory: '8Gi', pods: '110' }, allocatable: { cpu: '4', memory: '8Gi', pods: '110' } },
});

const pod = (name: string, nodeName: string, opts: { annotations?: Record<string, string>; finalizers?: string[]; labels?: Record<string, string> } = {}) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, labels: opts.labels ?? { app: 'web' }, annotations: opts.annotations ?? {}, finalizers: opts.finalizers },
  spec: {
    nodeName,
    containers: [
      { name: 'app', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }], resources: { requests: { cpu: '100m', memory: '64Mi' } } },
      { name: 'sidecar', image: 'busybox', resources: { requests: { cpu: '50m', memory: '32Mi' } } },
    ],
  },
});

const service = (name: string, selector?: Record<string, string>) => JSON.stringify({
  apiVersion: 'v1', kind: 'Service', metadata: { name, labels: { tier: 'front' } },
  spec: { ...(selector ? { selector } : {}), ports: [{ name: 'http', port: 80, targetPort: 'http' }, { name: 'admin', port: 9000, targetPort: 9001 }] },
});

describe('kubectl top and service endpoints', () => {
  const env = useKubectlServer({ args: [...noAddons, '--nodes', '0'] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const podIP = async (name: string) => (await env.k.ok(['get', 'pod', name, '-o', 'jsonpath={.status.podIP}'])).trim();
  let ipCounter = 10;
  const run = async (name: string, ready: boolean) => {
    const ip = `10.244.1.${ipCounter++}`;
    const status = {
      phase: 'Running', podIP: ip, podIPs: [{ ip }], hostIP: '172.18.0.10',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }],
    };
    await env.k.ok(['patch', 'pod', name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
  };
  const slices = async (svc: string) => (await getJson('endpointslices', '-l', `kubernetes.io/service-name=${svc}`)).items as Json[];
  const sliceEndpoint = (items: Json[], ip: string) => items.flatMap((s) => s.endpoints ?? []).find((e: Json) => e.addresses.includes(ip));

  it('publishes ready pods in Endpoints and an owned EndpointSlice, with named target ports resolved', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: node('ep-node', 'zone-a', true) });
    for (const n of ['web-1', 'web-2']) await env.k.ok(['apply', '-f', '-'], { input: pod(n, 'ep-node') });
    await env.k.ok(['apply', '-f', '-'], { input: service('web', { app: 'web' }) });
    await run('web-1', true);
    await run('web-2', true);
    const svc = await getJson('service', 'web');

    const items = await eventually(async () => {
      const ips = [await podIP('web-1'), await podIP('web-2')];
      const s = await slices('web');
      return ips.every((ip) => sliceEndpoint(s, ip)?.conditions.ready === true) && s;
    }, 10_000, 'both pods ready in the EndpointSlice');
    assert.equal(items.length, 1);
    const slice = items[0];
    assert.match(slice.metadata.name, /^web-[a-z0-9]{5}$/);
    assert.equal(slice.metadata.generateName, 'web-');
    assert.equal(slice.addressType, 'IPv4');
    assert.deepEqual(slice.metadata.labels, { 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io', 'kubernetes.io/service-name': 'web', tier: 'front' });
    assert.deepEqual(slice.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    assert.deepEqual(slice.ports.map((p: Json) => [p.name, p.port, p.protocol]).sort(), [['admin', 9001, 'TCP'], ['http', 8080, 'TCP']]);
    const ep1 = sliceEndpoint(items, await podIP('web-1'));
    assert.deepEqual(ep1.conditions, { ready: true, serving: true, terminating: false });
    assert.equal(ep1.nodeName, 'ep-node');
    assert.equal(ep1.zone, 'zone-a');
    assert.equal(ep1.targetRef.kind, 'Pod');
    assert.equal(ep1.targetRef.name, 'web-1');

    const table = await env.k.ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web']);
    assert.match(table, /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE$/m);
    assert.match(table, new RegExp(`^${slice.metadata.name}\\s+IPv4\\s+(8080,9001|9001,8080)\\s+\\S*${(await podIP('web-1')).replace(/\./g, '\\.')}`, 'm'));

    const eps = await getJson('endpoints', 'web');
    assert.equal(eps.metadata.labels.tier, 'front');
    assert.equal(eps.subsets.length, 1);
    assert.deepEqual(eps.subsets[0].addresses.map((a: Json) => a.ip).sort(), [await podIP('web-1'), await podIP('web-2')].sort());
    assert.deepEqual(eps.subsets[0].ports.map((p: Json) => p.port).sort((a: number, b: number) => a - b), [8080, 9001]);

    const described = await env.k.ok(['describe', 'service', 'web']);
    for (const n of ['web-1', 'web-2']) assert.match(described, new RegExp(`Endpoints:\\s+.*${(await podIP(n)).replace(/\./g, '\\.')}:8080`));
  });

  it('moves a pod that goes not ready to notReadyAddresses and marks it ready=false in the slice', async () => {
    await run('web-2', false);
    const ip = await podIP('web-2');
    await eventually(async () => {
      const eps = await getJson('endpoints', 'web');
      return (eps.subsets ?? []).some((s: Json) => (s.notReadyAddresses ?? []).some((a: Json) => a.ip === ip))
        && !(eps.subsets ?? []).some((s: Json) => (s.addresses ?? []).some((a: Json) => a.ip === ip));
    }, 10_000, 'web-2 among the not ready addresses');
    const ep = await eventually(async () => {
      const e = sliceEndpoint(await slices('web'), ip);
      return e?.conditions.ready === false && e;
    }, 10_000, 'web-2 not ready in the slice');
    assert.deepEqual(ep.conditions, { ready: false, serving: false, terminating: false });
  });

  it('keeps a terminating pod in the slice (terminating, not ready) and out of Endpoints', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: pod('web-3', 'ep-node', { finalizers: ['example.com/hold'] }) });
    await run('web-3', true);
    const ip = await podIP('web-3');
    await eventually(async () => sliceEndpoint(await slices('web'), ip)?.conditions.ready === true, 10_000, 'web-3 ready');
    await env.k.ok(['delete', 'pod', 'web-3', '--wait=false']);
    const ep = await eventually(async () => {
      const e = sliceEndpoint(await slices('web'), ip);
      return e?.conditions.terminating === true && e;
    }, 10_000, 'web-3 terminating in the slice');
    assert.equal(ep.conditions.ready, false);
    await eventually(async () => {
      const eps = await getJson('endpoints', 'web');
      return !JSON.stringify(eps.subsets ?? []).includes(`"${ip}"`);
    }, 10_000, 'web-3 gone from Endpoints');
    await env.k.ok(['patch', 'pod', 'web-3', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
  });

  it('leaves services without a selector and the kubernetes endpoints alone', async () => {
    const before = await getJson('endpoints', 'kubernetes');
    await env.k.ok(['apply', '-f', '-'], { input: service('manual') });
    await env.k.ok(['apply', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'manual' }, subsets: [{ addresses: [{ ip: '192.168.0.9' }], ports: [{ name: 'http', port: 8080 }] }] }),
    });
    // A later change to a selected service is processed after the manual one: once it shows, the queue has passed.
    await env.k.ok(['label', 'service', 'web', 'marker=1']);
    await eventually(async () => (await getJson('endpoints', 'web')).metadata.labels.marker === '1', 10_000, 'web endpoints relabelled');
    const manual = await getJson('endpoints', 'manual');
    assert.deepEqual(manual.subsets[0].addresses, [{ ip: '192.168.0.9' }]);
    assert.equal(manual.metadata.annotations?.['endpoints.kubernetes.io/last-change-trigger-time'], undefined);
    assert.deepEqual(await slices('manual'), []);
    const after = await getJson('endpoints', 'kubernetes');
    assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
  });

  it('kubectl top node and top pod print the usage, with annotated figures as given', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: node('top-node', 'zone-b') });
    await env.k.ok(['apply', '-f', '-'], { input: pod('busy-1', 'top-node', { labels: { app: 'busy' }, annotations: { 'bonsai.dev/cpu-usage': '250m' } }) });
    await env.k.ok(['apply', '-f', '-'], { input: pod('busy-2', 'top-node', { labels: { app: 'busy' } }) });
    // Without a kubelet for top-node the test's status is what runs the pods; with one, the kubelet's status wins.
    for (const n of ['busy-1', 'busy-2']) await run(n, true).catch(() => undefined);
    const pods = await eventually(async () => {
      const out = await env.k.ok(['top', 'pod', '-l', 'app=busy']);
      return /^busy-1\s+/m.test(out) && /^busy-2\s+/m.test(out) && out;
    }, 15_000, 'pod metrics');
    assert.match(pods, /^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*$/m);
    // busy-1's annotation applies to both containers: 250m each.
    assert.match(pods, /^busy-1\s+500m\s+\d+Mi\s*$/m);
    // busy-2 uses 40% of its cpu requests (40m + 20m) and 60% of its memory requests (38.4Mi + 19.2Mi).
    assert.match(pods, /^busy-2\s+60m\s+57Mi\s*$/m);
    assert.doesNotMatch(pods, /^web-/m, 'the label selector applies');

    const containers = await env.k.ok(['top', 'pod', 'busy-1', '--containers']);
    assert.match(containers, /^POD\s+NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*$/m);
    assert.match(containers, /^busy-1\s+app\s+250m\s+38Mi\s*$/m);
    assert.match(containers, /^busy-1\s+sidecar\s+250m\s+19Mi\s*$/m);

    const nodes = await env.k.ok(['top', 'node']);
    assert.match(nodes, /^NAME\s+CPU\(cores\)\s+CPU\(%\)\s+MEMORY\(bytes\)\s+MEMORY\(%\)\s*$/m);
    const row = nodes.match(/^top-node\s+(\d+)m\s+(\d+)%\s+(\d+)Mi\s+(\d+)%\s*$/m);
    assert.ok(row, nodes);
    const cpu = String((await getJson('node', 'top-node')).status.allocatable.cpu);
    const allocMilli = cpu.endsWith('m') ? Number(cpu.slice(0, -1)) : Number(cpu) * 1000;
    const milli = Number(row[1]);
    // The system's part of the node (100m and 1% of its cpu) plus busy-1 and busy-2.
    assert.ok(milli >= 500 + 60 + 100 + 0.01 * allocMilli - 1, nodes);
    assert.equal(Number(row[2]), Math.floor((milli * 100) / allocMilli));
    // The stopped node's kubelet answers no scrape.
    assert.match(nodes, /^ep-node\s+<unknown>/m);

    const raw = JSON.parse(await env.k.ok(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/busy-1'])) as Json;
    assert.equal(raw.kind, 'PodMetrics');
    assert.deepEqual(raw.containers.map((c: Json) => [c.name, c.usage.cpu]), [['app', '250m'], ['sidecar', '250m']]);
    const listed = await env.k.ok(['get', 'podmetrics', 'busy-1']);
    assert.match(listed, /^busy-1\s+500m\s+\d+Ki\s+\d+(\.\d+)?s$/m);
    const missing = await env.k.fails(['top', 'pod', 'nope']);
    assert.match(missing, /NotFound.*pods "nope" not found/);
  });

  it('stamps new Endpoints with the Service creation as the last change trigger time', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: service('web-alias', { app: 'web' }) });
    const svc = await getJson('service', 'web-alias');
    const eps = await eventually(async () => (await env.k.run(['get', 'endpoints', 'web-alias', '-o', 'json'])).stdout, 10_000, 'web-alias endpoints');
    assert.equal(JSON.parse(eps).metadata.annotations['endpoints.kubernetes.io/last-change-trigger-time'], svc.metadata.creationTimestamp);
    await env.k.ok(['delete', 'service', 'web-alias']);
  });

  it('deleting the Service removes its Endpoints and, through the owner reference, its slices', async () => {
    await env.k.ok(['delete', 'service', 'web']);
    await eventually(async () => (await slices('web')).length === 0, 10_000, 'slices garbage collected');
    await eventually(async () => (await env.k.run(['get', 'endpoints', 'web'])).code !== 0, 10_000, 'endpoints deleted');
  });
});
