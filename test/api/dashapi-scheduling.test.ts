// Scheduling explanations (GET /bonsai/v1/scheduling/namespaces/{ns}/pods/{name}) against an in-process Bonsai
// with the default nodes (3 workers and a tainted GPU node): what the scheduler decided, per node, kept in memory.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertStatus, useBonsai } from './http.js';
import { eventually } from '../helpers/kubectl.js';
import { DecisionLog, explain, type Decision } from '../../src/scheduler/decisions.js';

type Json = Record<string, any>;
const PODS = '/api/v1/namespaces/default/pods';
const EXPLAIN = (ns: string, name: string) => `/bonsai/v1/scheduling/namespaces/${ns}/pods/${name}`;
const pod = (name: string, resources: Json, tolerations: Json[] = []): Json => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { tolerations, containers: [{ name: 'c', image: 'nginx', resources }] },
});
const as = (user: string, ...groups: string[]) => ({ headers: { 'Impersonate-User': user, ...(groups.length ? { 'Impersonate-Group': groups.join(', ') } : {}) } });

describe('scheduling explanations', () => {
  const { req } = useBonsai({ cluster: {} });

  const explanation = (name: string, result: string) =>
    eventually(async () => {
      const r = await req('GET', EXPLAIN('default', name));
      return r.status === 200 && r.body.result === result ? (r.body as Json) : undefined;
    }, 10_000, `the ${result} decision on ${name}`);

  it('lists every node with its filter verdict for a pending GPU-hungry pod', async () => {
    assert.equal((await req('POST', PODS, pod('hungry', { limits: { 'nvidia.com/gpu': '64' } }))).status, 201);
    const e = await explanation('hungry', 'Unschedulable');
    const nodes = await req('GET', '/api/v1/nodes');
    const names = (nodes.body.items as Json[]).map((n) => n.metadata.name).sort();
    assert.equal(names.length, 5);
    assert.deepEqual(e.nodes.map((n: Json) => n.node), names);
    for (const n of e.nodes) {
      assert.equal(n.feasible, false, n.node);
      // The control-plane node refuses by its taint first, as kube-scheduler's filters run in that order.
      const [plugin, reason] = n.node === 'bonsai-control-plane'
        ? ['TaintToleration', 'node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }'] : ['NodeResourcesFit', 'Insufficient nvidia.com/gpu'];
      assert.equal(n.filter.plugin, plugin, n.node);
      assert.deepEqual(n.filter.reasons, [reason], n.node);
      assert.equal(n.scores, undefined);
    }
    assert.equal(e.namespace, 'default');
    assert.equal(e.name, 'hungry');
    const stored = await req('GET', `${PODS}/hungry`);
    assert.equal(e.uid, stored.body.metadata.uid);
    assert.ok(e.attempts >= 1);
    assert.match(e.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(e.node, undefined);
    assert.match(e.message, /^0\/5 nodes are available: 1 node\(s\) had untolerated taint \{node-role\.kubernetes\.io\/control-plane: \}, 4 Insufficient nvidia\.com\/gpu\. preemption: /);
    // The FailedScheduling event carries the same summary (upstream's FitError wording).
    const ev = await eventually(async () => {
      const list = await req('GET', '/api/v1/namespaces/default/events');
      return (list.body.items as Json[]).find((x) => x.involvedObject?.name === 'hungry' && x.reason === 'FailedScheduling');
    }, 10_000, 'the FailedScheduling event');
    assert.equal(ev.message, e.message);
  });

  it('names the taint when a pod does not tolerate it', async () => {
    // No GPU asked (so no toleration is added for it): the GPU and control-plane nodes refuse by their taints, the
    // workers by CPU.
    assert.equal((await req('POST', PODS, pod('needs-cpu', { requests: { cpu: '1000' } }))).status, 201);
    const e = await explanation('needs-cpu', 'Unschedulable');
    const byNode = new Map<string, Json>(e.nodes.map((n: Json) => [n.node, n]));
    const gpu = [...byNode.keys()].find((n) => n.includes('gpu'))!;
    const cp = 'bonsai-control-plane';
    assert.deepEqual(byNode.get(gpu)!.filter, { plugin: 'TaintToleration', reasons: ['node(s) had untolerated taint {nvidia.com/gpu: present}'] });
    assert.deepEqual(byNode.get(cp)!.filter, { plugin: 'TaintToleration', reasons: ['node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }'] });
    for (const [name, n] of byNode) if (name !== gpu && name !== cp) assert.deepEqual(n.filter, { plugin: 'NodeResourcesFit', reasons: ['Insufficient cpu'] });
    assert.match(e.message, /^0\/5 nodes are available: 1 node\(s\) had untolerated taint \{node-role\.kubernetes\.io\/control-plane: \}, 1 node\(s\) had untolerated taint \{nvidia\.com\/gpu: present\}, 3 Insufficient cpu\./);
  });

  it('gives a bound pod the score of each plugin on each feasible node, the chosen node highest', async () => {
    // A worker already busy makes the resource scores differ between workers.
    assert.equal((await req('POST', PODS, { ...pod('busy', { requests: { cpu: '1500m', memory: '2Gi' } }) })).status, 201);
    await explanation('busy', 'Scheduled');
    assert.equal((await req('POST', PODS, pod('web', { requests: { cpu: '500m', memory: '256Mi' } }))).status, 201);
    const e = await explanation('web', 'Scheduled');
    const bound = await eventually(async () => (await req('GET', `${PODS}/web`)).body.spec?.nodeName as string | undefined, 10_000, 'the binding');
    assert.equal(e.node, bound);
    assert.equal(e.message, `Successfully assigned default/web to ${bound}`);
    const feasible = (e.nodes as Json[]).filter((n) => n.feasible);
    assert.equal(feasible.length, 3, 'the three workers');
    const plugins = Object.keys(e.weights);
    assert.ok(plugins.includes('NodeResourcesFit') && plugins.includes('TaintToleration'), plugins.join());
    for (const n of feasible) {
      assert.deepEqual(Object.keys(n.scores).sort(), [...plugins].sort(), n.node);
      const sum = Object.values(n.scores as Record<string, number>).reduce((a, b) => a + b, 0);
      assert.equal(n.total, sum, `${n.node}: the total is the sum of the weighted scores`);
      for (const [p, v] of Object.entries(n.scores as Record<string, number>)) assert.ok(v >= 0 && v <= 100 * e.weights[p], `${n.node} ${p} ${v}`);
    }
    const chosen = feasible.find((n) => n.node === bound)!;
    for (const n of feasible) assert.ok(chosen.total >= n.total, `${bound} (${chosen.total}) scored below ${n.node} (${n.total})`);
    const busyNode = (await req('GET', `${PODS}/busy`)).body.spec.nodeName;
    if (busyNode !== bound) assert.ok(chosen.total > feasible.find((n) => n.node === busyNode)!.total, 'the busy worker scores lower');
    const rejected = (e.nodes as Json[]).filter((n) => !n.feasible);
    assert.deepEqual(rejected.map((n) => `${n.node}:${n.filter.plugin}`).sort(), ['bonsai-control-plane:TaintToleration', 'bonsai-gpu-1:TaintToleration'], 'the tainted nodes');
  });

  it('answers 404 when no decision is kept, and only to those who may get the pod', async () => {
    const none = assertStatus(await req('GET', EXPLAIN('default', 'nobody')), 404, 'NotFound', 'no scheduling decision is kept for pod "nobody" in namespace "default"');
    assert.deepEqual(none.details, { name: 'nobody', kind: 'pods' });
    assertStatus(await req('GET', EXPLAIN('default', '__proto__')), 404, 'NotFound');
    // AlwaysAllow here: the RBAC case is in dashapi-history.test.ts, which runs with RBAC.
    assert.equal((await req('GET', EXPLAIN('default', 'web'), undefined, as('jane'))).status, 200);
  });
});

describe('DecisionLog bounds', () => {
  const decision = (name: string, nodes: number): Decision => ({
    namespace: 'ns', name, uid: name, attempts: 1, result: 'Unschedulable', timeMs: 0, message: '',
    trace: { numAllNodes: nodes, feasible: Array.from({ length: nodes }, (_, i) => ({ name: `n${i}` })) },
  });

  it('keeps the last decision per pod, at most maxPods, oldest out first', () => {
    const log = new DecisionLog(3, 1000);
    for (const n of ['a', 'b', 'c']) log.record(decision(n, 1));
    log.record({ ...decision('a', 1), attempts: 2 });
    log.record(decision('d', 1));
    assert.equal(log.size, 3);
    assert.equal(log.get('ns', 'b'), undefined, 'b was the oldest after a was decided again');
    assert.equal(log.get('ns', 'a')?.attempts, 2);
    assert.ok(log.get('ns', 'c') && log.get('ns', 'd'));
  });

  it('bounds the node entries kept over all decisions', () => {
    const log = new DecisionLog(100, 50);
    for (let i = 0; i < 10; i++) log.record(decision(`p${i}`, 20));
    assert.equal(log.size, 2, 'two decisions of 21 entries fit in 50');
    assert.ok(log.get('ns', 'p9') && log.get('ns', 'p8'));
    // A single decision larger than the budget is still kept (the newest one always is).
    log.record(decision('huge', 500));
    assert.equal(log.size, 1);
    assert.equal(explain(log.get('ns', 'huge')!).nodes.length, 500);
  });
});
