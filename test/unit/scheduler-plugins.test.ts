// Filter and score plugins of the default scheduler, as pure functions over nodes and pods.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { CycleState, findFeasible, numFeasibleNodesToFind, prioritize, runFilters, runPreFilters, selectHost, type Lookups } from '../../src/scheduler/framework.js';
import { NodeInfo } from '../../src/scheduler/node-info.js';
import { buildPodInfo } from '../../src/scheduler/pod-info.js';
import { defaultFilters, defaultScores } from '../../src/scheduler/plugins/index.js';
import { fitErrorMessage } from '../../src/scheduler/failure.js';
import { SchedulerCache } from '../../src/scheduler/cache.js';
import { lookups, mkNode, mkPod, place } from './scheduler-fixtures.js';

function filterAll(pod: Pod, nodes: NodeInfo[]) {
  const s = new CycleState(buildPodInfo(pod), nodes, lookups);
  runPreFilters(defaultFilters, s);
  return { s, r: findFeasible(defaultFilters, s, nodes, 0) };
}

describe('scheduler filters', () => {
  it('NodeResourcesFit lists every insufficient resource, extended ones included', () => {
    const n = mkNode('a', { alloc: { cpu: '1', memory: '1Gi', 'nvidia.com/gpu': '1', pods: '1' } });
    place(n, mkPod('x', { requests: { cpu: '500m', 'nvidia.com/gpu': '1' } }));
    const { r } = filterAll(mkPod('p', { requests: { cpu: '600m', memory: '2Gi', 'nvidia.com/gpu': '1' } }), [n]);
    assert.deepEqual(r.failures.get('a')?.reasons, ['Too many pods', 'Insufficient cpu', 'Insufficient memory', 'Insufficient nvidia.com/gpu']);
    assert.equal(r.failures.get('a')?.code, 'Unschedulable');
  });

  it('TaintToleration names the first untolerated taint; NodeUnschedulable honours its toleration', () => {
    const tainted = mkNode('t', { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] });
    const cordoned = mkNode('c', { unschedulable: true });
    const { r } = filterAll(mkPod('p'), [tainted, cordoned]);
    assert.deepEqual(r.failures.get('t')?.reasons, ['node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }']);
    assert.deepEqual(r.failures.get('c')?.reasons, ['node(s) were unschedulable']);
    const tolerant = mkPod('q', { spec: { tolerations: [{ operator: 'Exists' }] } });
    assert.equal(filterAll(tolerant, [tainted, cordoned]).r.feasible.length, 2);
  });

  it('NodeAffinity combines nodeSelector and required terms, matchFields on metadata.name', () => {
    const a = mkNode('a', { labels: { disk: 'ssd', gen: '5' } });
    const b = mkNode('b', { labels: { disk: 'hdd', gen: '3' } });
    const gt = mkPod('p', { spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['4'] }] }] } } } } });
    assert.deepEqual(filterAll(gt, [a, b]).r.feasible.map((n) => n.name), ['a']);
    const byName = mkPod('q', { spec: { nodeSelector: { disk: 'hdd' }, affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }] }] } } } } });
    const r = filterAll(byName, [a, b]).r;
    assert.equal(r.feasible.length, 0);
    assert.equal(fitErrorMessage(2, r.failures.values()), "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.");
  });

  it('InterPodAffinity checks the pod\'s anti-affinity, existing pods\' anti-affinity and required affinity', () => {
    const [h1, h2, h3] = ['h1', 'h2', 'h3'].map((h) => mkNode(h, { labels: { zone: h === 'h3' ? 'z2' : 'z1' } }));
    const anti = (app: string) => ({ podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app } }, topologyKey: 'kubernetes.io/hostname' }] } });
    place(h1, mkPod('db-0', { labels: { app: 'db' } }));
    place(h2, mkPod('guard', { labels: { app: 'guard' }, spec: { affinity: anti('web') } }));
    const web = mkPod('web', { labels: { app: 'web' }, spec: { affinity: anti('db') } });
    const { r } = filterAll(web, [h1, h2, h3]);
    assert.deepEqual(r.feasible.map((n) => n.name), ['h3']);
    assert.deepEqual(r.failures.get('h1')?.reasons, ["node(s) didn't match pod anti-affinity rules"]);
    assert.deepEqual(r.failures.get('h2')?.reasons, ["node(s) didn't satisfy existing pods anti-affinity rules"]);
    const nearDb = mkPod('cache', { spec: { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'zone' }] } } } });
    const r2 = filterAll(nearDb, [h1, h2, h3]).r;
    assert.deepEqual(r2.feasible.map((n) => n.name), ['h1', 'h2']);
    assert.deepEqual(r2.failures.get('h3')?.reasons, ["node(s) didn't match pod affinity rules"]);
    // The first pod of a self-affine group may go anywhere.
    const first = mkPod('first', { labels: { app: 'new' }, spec: { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'new' } }, topologyKey: 'zone' }] } } } });
    assert.equal(filterAll(first, [h1, h2, h3]).r.feasible.length, 3);
  });

  it('InterPodAffinity gives the same verdicts through the pod index as by scanning every pod', () => {
    const cache = new SchedulerCache();
    for (const h of ['h1', 'h2', 'h3', 'h4']) cache.setNode({ metadata: { name: h, labels: { 'kubernetes.io/hostname': h, zone: h < 'h3' ? 'z1' : 'z2' } }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } });
    const anti = (sel: Record<string, any>, key = 'kubernetes.io/hostname') => ({ podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: sel, topologyKey: key }] } });
    const bind = (p: Pod, node: string) => cache.syncAssigned(`default/${p.metadata!.name}`, { ...p, metadata: { ...p.metadata, resourceVersion: '1' }, spec: { ...p.spec!, nodeName: node } });
    bind(mkPod('db-0', { labels: { app: 'db' }, spec: { affinity: anti({ matchLabels: { app: 'db' } }) } }), 'h1');
    bind(mkPod('x', { labels: { tier: 'x' }, spec: { affinity: anti({ matchExpressions: [{ key: 'app', operator: 'Exists' }] }, 'zone') } }), 'h4');
    bind(mkPod('other-ns', { ns: 'other', labels: { app: 'db' } }), 'h2');
    const incoming = [
      mkPod('db-1', { labels: { app: 'db' }, spec: { affinity: anti({ matchLabels: { app: 'db' } }) } }),
      mkPod('plain', { labels: { app: 'web' } }),
      mkPod('near', { spec: { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'zone' }] } } } }),
    ];
    const verdicts = (p: Pod, withIndex: boolean) => {
      const s = new CycleState(buildPodInfo(p), cache.nodeList(), { ...lookups, index: withIndex ? cache.index : undefined });
      runPreFilters(defaultFilters, s);
      return cache.nodeList().map((n) => runFilters(defaultFilters, s, n)?.reasons[0] ?? 'fits');
    };
    for (const p of incoming) assert.deepEqual(verdicts(p, true), verdicts(p, false), p.metadata!.name);
    assert.deepEqual(verdicts(incoming[0], true), ["node(s) didn't match pod anti-affinity rules", 'fits', "node(s) didn't satisfy existing pods anti-affinity rules", "node(s) didn't satisfy existing pods anti-affinity rules"]);
    assert.deepEqual(verdicts(incoming[2], true), ['fits', 'fits', "node(s) didn't match pod affinity rules", "node(s) didn't match pod affinity rules"]);
  });

  it('PodTopologySpread enforces maxSkew and minDomains, and names nodes missing the key', () => {
    const a = mkNode('a', { labels: { zone: 'a' } });
    const b = mkNode('b', { labels: { zone: 'b' } });
    const bare = mkNode('bare');
    place(a, mkPod('w0', { labels: { app: 'w' } }));
    const spread = (minDomains?: number) => mkPod('w', { labels: { app: 'w' }, spec: { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'w' } }, minDomains }] } });
    const r = filterAll(spread(), [a, b, bare]).r;
    assert.deepEqual(r.feasible.map((n) => n.name), ['b']);
    assert.deepEqual(r.failures.get('a')?.reasons, ["node(s) didn't match pod topology spread constraints"]);
    assert.deepEqual(r.failures.get('bare')?.reasons, ["node(s) didn't match pod topology spread constraints (missing required label)"]);
    assert.equal(r.failures.get('bare')?.code, 'UnschedulableAndUnresolvable');
    // With fewer domains than minDomains the global minimum counts as 0.
    place(b, mkPod('w1', { labels: { app: 'w' } }));
    assert.deepEqual(filterAll(spread(3), [a, b]).r.feasible.map((n) => n.name), []);
    assert.deepEqual(filterAll(spread(), [a, b]).r.feasible.map((n) => n.name), ['a', 'b']);
  });
  it('findFeasible leaves out a filter that skips this pod, from the node after the last one it looked at', () => {
    const nodes = [mkNode('a'), mkNode('b'), mkNode('c')];
    const seen: string[] = [];
    const counting = (skip: boolean) => ({ name: 'Counting', skips: () => skip, filter: (_s: CycleState, n: NodeInfo) => void seen.push(n.name) });
    const s = new CycleState(buildPodInfo(mkPod('p')), nodes, lookups);
    assert.equal(findFeasible([counting(true)], s, nodes, 1).feasible.length, 3);
    assert.deepEqual(seen, []);
    const r = findFeasible([counting(false)], s, nodes, 4);
    assert.deepEqual(seen, ['b', 'c', 'a']);
    assert.deepEqual(r.feasible.map((n) => n.name), ['b', 'c', 'a']);
    // Every default filter but the per-node ones skips a plain pod; one with a node selector keeps NodeAffinity.
    runPreFilters(defaultFilters, s);
    assert.deepEqual(defaultFilters.filter((f) => !f.skips?.(s)).map((f) => f.name), ['NodeUnschedulable', 'TaintToleration', 'NodeResourcesFit']);
    const sel = new CycleState(buildPodInfo({ ...mkPod('q'), spec: { ...mkPod('q').spec!, nodeSelector: { zone: 'a' } } }), nodes, lookups);
    runPreFilters(defaultFilters, sel);
    assert.ok(defaultFilters.some((f) => f.name === 'NodeAffinity' && !f.skips?.(sel)));
  });
});

describe('scheduler scoring', () => {
  it('prefers the least allocated node and avoids PreferNoSchedule taints', () => {
    const busy = mkNode('busy');
    place(busy, mkPod('x', { requests: { cpu: '3', memory: '6Gi' } }));
    const idle = mkNode('idle');
    const soft = mkNode('soft', { taints: [{ key: 'k', value: 'v', effect: 'PreferNoSchedule' }] });
    const p = mkPod('p', { requests: { cpu: '100m', memory: '128Mi' } });
    const s = new CycleState(buildPodInfo(p), [busy, idle, soft], lookups);
    runPreFilters(defaultFilters, s);
    const totals = prioritize(defaultScores, s, [busy, idle, soft]);
    assert.ok(totals[1] > totals[0], 'idle beats busy');
    assert.ok(totals[1] > totals[2], 'untainted beats PreferNoSchedule');
    assert.equal(selectHost([busy, idle, soft], totals).name, 'idle');
  });

  it('preferred node affinity and pod affinity pull the pod', () => {
    const a = mkNode('a', { labels: { zone: 'a' } });
    const b = mkNode('b', { labels: { zone: 'b', fast: 'yes' } });
    place(a, mkPod('db', { labels: { app: 'db' } }));
    const prefFast = mkPod('p', { spec: { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, preference: { matchExpressions: [{ key: 'fast', operator: 'Exists' }] } }] } } } });
    const s1 = new CycleState(buildPodInfo(prefFast), [a, b], lookups);
    assert.equal(selectHost([a, b], prioritize(defaultScores, s1, [a, b])).name, 'b');
    const nearDb = mkPod('q', { spec: { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'zone' } }] } } } });
    const s2 = new CycleState(buildPodInfo(nearDb), [a, b], lookups);
    assert.equal(selectHost([a, b], prioritize(defaultScores, s2, [a, b])).name, 'a');
  });

  it('system default spreading scores pods selected by a service away from their siblings', () => {
    const a = mkNode('a', { labels: { 'topology.kubernetes.io/zone': 'z1' } });
    const b = mkNode('b', { labels: { 'topology.kubernetes.io/zone': 'z2' } });
    place(a, mkPod('web-0', { labels: { app: 'web' } }));
    const withService: Lookups = { nsLabels: () => undefined, defaultSelector: () => [{ key: 'app', op: 'Equals', values: ['web'] }] };
    const s = new CycleState(buildPodInfo(mkPod('web-1', { labels: { app: 'web' } })), [a, b], withService);
    const totals = prioritize(defaultScores.filter((p) => p.name === 'PodTopologySpread'), s, [a, b]);
    assert.ok(totals[1] > totals[0], `spread favours the empty node (${totals})`);
  });

  it('percentageOfNodesToScore follows the adaptive rule', () => {
    assert.equal(numFeasibleNodesToFind(50), 50);
    assert.equal(numFeasibleNodesToFind(150), 100);
    assert.equal(numFeasibleNodesToFind(1000), 420);
    assert.equal(numFeasibleNodesToFind(5000), 500);
    assert.equal(numFeasibleNodesToFind(10_000), 500);
  });

  it('stops filtering once enough feasible nodes are found', () => {
    const nodes = Array.from({ length: 300 }, (_, i) => mkNode(`n${i}`));
    const s = new CycleState(buildPodInfo(mkPod('p')), nodes, lookups);
    runPreFilters(defaultFilters, s);
    const r = findFeasible(defaultFilters, s, nodes, 250);
    assert.equal(r.feasible.length, numFeasibleNodesToFind(300));
    assert.equal(r.feasible[0].name, 'n250');
    assert.equal(runFilters(defaultFilters, s, nodes[0]), undefined);
  });
});
