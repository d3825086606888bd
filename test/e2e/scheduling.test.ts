// The default scheduler through real kubectl: resources, selectors, taints, affinity, spreading, gates, preemption.
import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;

interface NodeSpec {
  labels?: Record<string, string>;
  capacity?: Record<string, string>;
  taints?: Json[];
}

const pod = (name: string, spec: Json = {}, labels: Record<string, string> = {}, requests: Record<string, string> = { cpu: '100m' }): Json => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, labels },
  spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests, limits: requests } }], ...spec },
});

describe('default scheduler', () => {
  const env = useKubectlServer({ args: [...noAddons, '--nodes', '0'] });
  let created: string[] = [];
  let namespaces: string[] = [];

  afterEach(async () => {
    for (const ns of namespaces) await env.k.run(['delete', 'pods', '--all', '-n', ns, '--grace-period=0', '--force']);
    if (created.length) await env.k.run(['delete', 'nodes', ...created, '--wait=false']);
    created = [];
    namespaces = [];
  });

  const ns = async (name: string) => {
    await env.k.ok(['create', 'namespace', name]);
    namespaces.push(name);
    return name;
  };

  const apply = (namespace: string, ...objs: Json[]) => env.k.ok(['apply', '-n', namespace, '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objs }) });

  /** Creates Ready nodes (kubelets keep them Ready when they run; otherwise the status is patched here). */
  const nodes = async (specs: Record<string, NodeSpec>) => {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const items = Object.entries(specs).map(([name, s]) => {
      const capacity = { cpu: '4', memory: '8Gi', pods: '110', ...s.capacity };
      return {
        apiVersion: 'v1', kind: 'Node',
        metadata: { name, labels: { 'kubernetes.io/hostname': name, ...s.labels } },
        spec: s.taints ? { taints: s.taints } : {},
        status: { capacity, allocatable: capacity, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now }] },
      };
    });
    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
    created.push(...Object.keys(specs));
    for (const name of Object.keys(specs)) {
      await eventually(async () => {
        const out = await env.k.ok(['get', 'node', name, '--no-headers']);
        if (/\sReady\s/.test(out)) return true;
        await env.k.run(['patch', 'node', name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] } })]);
        return false;
      }, 20_000, `node ${name} Ready`);
    }
  };

  /** pod name -> NODE column of `get pods -o wide` ('<none>' while pending). */
  const placement = async (namespace: string): Promise<Record<string, string>> => {
    const out = await env.k.ok(['get', 'pods', '-n', namespace, '-o', 'wide', '--no-headers']);
    const m: Record<string, string> = {};
    for (const line of out.trim().split('\n').filter(Boolean)) {
      const cols = line.trim().split(/\s+/);
      m[cols[0]] = cols[6];
    }
    return m;
  };
  const statusOf = async (namespace: string, name: string) => (await env.k.ok(['get', 'pod', name, '-n', namespace, '--no-headers'])).trim().split(/\s+/)[2];
  const eventsFor = async (namespace: string, name: string): Promise<Json[]> =>
    (JSON.parse(await env.k.ok(['get', 'events', '-n', namespace, '-o', 'json'])).items as Json[]).filter((e) => e.involvedObject?.name === name);
  const failedScheduling = (namespace: string, name: string, what: RegExp) =>
    eventually(async () => (await eventsFor(namespace, name)).find((e) => e.reason === 'FailedScheduling' && what.test(e.message)), 20_000, `FailedScheduling ${what} on ${name}`);

  it('places GPU pods on the GPU node until its GPUs run out, then waits for one to free', async () => {
    const n = await ns('gpu');
    await nodes({ 'gpu-node': { capacity: { 'nvidia.com/gpu': '8', cpu: '16', memory: '64Gi' } }, 'cpu-node': {} });
    const gpuPod = (i: number) => pod(`train-${i}`, {}, { app: 'train' }, { cpu: '100m', 'nvidia.com/gpu': '1' });
    await apply(n, ...[0, 1, 2, 3, 4, 5, 6, 7].map(gpuPod));
    await eventually(async () => Object.values(await placement(n)).filter((x) => x === 'gpu-node').length === 8, 20_000, '8 pods on gpu-node');
    await apply(n, gpuPod(8));
    const ev = await failedScheduling(n, 'train-8', /Insufficient nvidia\.com\/gpu/);
    assert.match(ev.message, /^0\/2 nodes are available: 2 Insufficient nvidia\.com\/gpu\. preemption: 0\/2 nodes are available: 2 No preemption victims found for incoming pod\.\.$/);
    assert.equal(ev.source.component, 'default-scheduler');
    assert.equal(await statusOf(n, 'train-8'), 'Pending');
    const cond = await env.k.ok(['get', 'pod', 'train-8', '-n', n, '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].reason}']);
    assert.equal(cond, 'Unschedulable');
    const describe = await env.k.ok(['describe', 'pod', 'train-8', '-n', n]);
    assert.match(describe, /Warning\s+FailedScheduling\s+.*default-scheduler\s+0\/2 nodes are available/);
    await env.k.ok(['delete', 'pod', 'train-3', '-n', n, '--grace-period=0', '--force']);
    await eventually(async () => (await placement(n))['train-8'] === 'gpu-node', 20_000, 'train-8 scheduled after a GPU freed');
    const scheduled = (await eventsFor(n, 'train-8')).find((e) => e.reason === 'Scheduled');
    assert.equal(scheduled?.message, `Successfully assigned ${n}/train-8 to gpu-node`);
  });

  it('honours nodeSelector and required node affinity', async () => {
    const n = await ns('selectors');
    await nodes({ ssd: { labels: { disktype: 'ssd' } }, hdd: { labels: { disktype: 'hdd' } } });
    await apply(n,
      pod('by-selector', { nodeSelector: { disktype: 'ssd' } }),
      pod('by-affinity', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'disktype', operator: 'In', values: ['hdd'] }] }] } } } }),
      pod('by-name-field', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['ssd'] }] }] } } } }),
      pod('nowhere', { nodeSelector: { disktype: 'nvme' } }));
    await eventually(async () => {
      const p = await placement(n);
      return p['by-selector'] === 'ssd' && p['by-affinity'] === 'hdd' && p['by-name-field'] === 'ssd';
    }, 20_000, 'pods on their selected nodes');
    const ev = await failedScheduling(n, 'nowhere', /affinity/);
    assert.equal(ev.message, "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling..");
    assert.equal((await placement(n)).nowhere, '<none>');
  });

  it('keeps pods off a NoSchedule taint unless they tolerate it', async () => {
    const n = await ns('taints');
    await nodes({ tainted: { taints: [{ key: 'dedicated', value: 'ml', effect: 'NoSchedule' }] } });
    await apply(n, pod('plain'), pod('tolerant', { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'ml', effect: 'NoSchedule' }] }));
    await eventually(async () => (await placement(n)).tolerant === 'tainted', 20_000, 'tolerant pod on tainted node');
    const ev = await failedScheduling(n, 'plain', /untolerated taint/);
    assert.match(ev.message, /^0\/1 nodes are available: 1 node\(s\) had untolerated taint \{dedicated: ml\}\./);
    assert.equal(await statusOf(n, 'plain'), 'Pending');
  });

  it('spreads anti-affine replicas one per host and leaves the extra one pending', async () => {
    const n = await ns('anti');
    await nodes({ h1: {}, h2: {}, h3: {} });
    const anti = { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'kubernetes.io/hostname' }] } } };
    await apply(n, ...[0, 1, 2, 3].map((i) => pod(`db-${i}`, anti, { app: 'db' })));
    let p: Record<string, string> = {};
    await eventually(async () => {
      p = await placement(n);
      return Object.values(p).filter((x) => x !== '<none>').length === 3;
    }, 20_000, 'three replicas placed');
    const placed = Object.values(p).filter((x) => x !== '<none>').sort();
    assert.deepEqual(placed, ['h1', 'h2', 'h3']);
    const pending = Object.keys(p).find((k) => p[k] === '<none>')!;
    const ev = await failedScheduling(n, pending, /anti-affinity/);
    assert.match(ev.message, /^0\/3 nodes are available: 3 node\(s\) didn't match pod anti-affinity rules\./);
    assert.equal(await statusOf(n, pending), 'Pending');
  });

  it('spreads pods evenly across zones with a DoNotSchedule constraint', async () => {
    const n = await ns('spread');
    await nodes({ 'za-1': { labels: { 'topology.kubernetes.io/zone': 'a' } }, 'za-2': { labels: { 'topology.kubernetes.io/zone': 'a' } }, 'zb-1': { labels: { 'topology.kubernetes.io/zone': 'b' } }, 'zc-1': { labels: { 'topology.kubernetes.io/zone': 'c' } } });
    const spread = { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } }] };
    await apply(n, ...[0, 1, 2, 3, 4, 5].map((i) => pod(`web-${i}`, spread, { app: 'web' })));
    let p: Record<string, string> = {};
    await eventually(async () => {
      p = await placement(n);
      return Object.values(p).filter((x) => x !== '<none>').length === 6;
    }, 20_000, 'six pods placed');
    const zones: Record<string, number> = {};
    for (const node of Object.values(p)) zones[node[1]] = (zones[node[1]] ?? 0) + 1;
    assert.deepEqual(zones, { a: 2, b: 2, c: 2 });
  });

  it('holds a gated pod as SchedulingGated until its gates are removed', async () => {
    const n = await ns('gates');
    await nodes({ g1: {} });
    await apply(n, pod('gated', { schedulingGates: [{ name: 'example.com/quota' }] }));
    await eventually(async () => (await statusOf(n, 'gated')) === 'SchedulingGated', 20_000, 'SchedulingGated status');
    const cond = JSON.parse(await env.k.ok(['get', 'pod', 'gated', '-n', n, '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")]}']));
    assert.equal(cond.status, 'False');
    assert.equal(cond.reason, 'SchedulingGated');
    assert.equal(cond.message, 'Scheduling is blocked due to non-empty scheduling gates');
    assert.equal((await placement(n)).gated, '<none>');
    await env.k.ok(['patch', 'pod', 'gated', '-n', n, '--type=json', '-p', '[{"op":"remove","path":"/spec/schedulingGates"}]']);
    await eventually(async () => (await placement(n)).gated === 'g1', 20_000, 'gated pod scheduled once ungated');
    await eventually(async () => (await statusOf(n, 'gated')) !== 'SchedulingGated', 10_000, 'status no longer SchedulingGated');
    const bound = JSON.parse(await env.k.ok(['get', 'pod', 'gated', '-n', n, '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")]}']));
    assert.deepEqual([bound.status, bound.reason, bound.message], ['True', undefined, undefined]);
  });

  it('preempts a lower-priority pod for a higher-priority one on a full node', async () => {
    const n = await ns('preempt');
    await nodes({ small: { capacity: { cpu: '2' } } });
    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'urgent' }, value: 1000 }) });
    // A finalizer holds the victim while terminating, so its DisruptionTarget condition can be read; it keeps running
    // (and counted on the node, as it is not yet Failed) while the preemptor's nomination is read, until the test
    // deletes it for good.
    const low = pod('low', { terminationGracePeriodSeconds: 600 }, {}, { cpu: '1500m' });
    // Its preStop hook keeps the container running through the grace period.
    low.spec.containers[0].lifecycle = { preStop: { sleep: { seconds: 600 } } };
    low.metadata.finalizers = ['example.com/hold'];
    await apply(n, low);
    await eventually(async () => (await placement(n)).low === 'small', 20_000, 'low-priority pod placed');
    const lowUid = await env.k.ok(['get', 'pod', 'low', '-n', n, '-o', 'jsonpath={.metadata.uid}']);
    await apply(n, pod('high', { priorityClassName: 'urgent' }, {}, { cpu: '1500m' }));
    const highUid = await eventually(async () => env.k.ok(['get', 'pod', 'high', '-n', n, '-o', 'jsonpath={.metadata.uid}']), 10_000, 'high uid');
    const preempted = await eventually(async () => (await eventsFor(n, 'low')).find((e) => e.reason === 'Preempted'), 20_000, 'Preempted event');
    assert.equal(preempted.message, `Preempted by pod ${highUid} on node small`);
    assert.equal(preempted.involvedObject.uid, lowUid);
    // The victim terminates gracefully, marked as a disruption target; the preemptor waits nominated to the node.
    const victim = JSON.parse(await env.k.ok(['get', 'pod', 'low', '-n', n, '-o', 'json'])) as Json;
    assert.ok(victim.metadata.deletionTimestamp, 'victim is being deleted');
    const dt = (victim.status.conditions as Json[]).find((c) => c.type === 'DisruptionTarget');
    assert.deepEqual([dt?.status, dt?.reason, dt?.message], ['True', 'PreemptionByScheduler', 'default-scheduler: preempting to accommodate a higher priority pod']);
    const wide = await env.k.ok(['get', 'pod', 'high', '-n', n, '-o', 'wide', '--no-headers']);
    assert.match(wide, /^high\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+<none>\s+small\s/);
    await env.k.ok(['patch', 'pod', 'low', '-n', n, '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    await env.k.ok(['delete', 'pod', 'low', '-n', n, '--force', '--grace-period=0', '--ignore-not-found']);
    await eventually(async () => (await placement(n)).high === 'small', 30_000, 'high-priority pod bound');
    assert.equal((await placement(n)).low, undefined);
  });

  it('leaves pods of another scheduler alone', async () => {
    const n = await ns('other');
    await nodes({ o1: {} });
    await apply(n, pod('mine'), pod('theirs', { schedulerName: 'other' }));
    await eventually(async () => (await placement(n)).mine === 'o1', 20_000, 'default-scheduler pod placed');
    assert.equal(await statusOf(n, 'theirs'), 'Pending');
    assert.equal((await placement(n)).theirs, '<none>');
    assert.deepEqual(await eventsFor(n, 'theirs'), []);
  });
});
