// Issue 14 part 3, the paths that no longer grow with the square of the cluster: the default spreading selector by
// controller reference and a Service index, topology spreading counted through the pod label index (same verdicts
// and scores as the scan), the log store forgetting one pod, and the scheduler held back by its ConfigMap.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod } from '../../src/generated/k8s/core/v1.js';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ManualClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { clientFor, type Client } from '../../src/client/client.js';
import type { KObject } from '../../src/machinery/types.js';
import { defaultSelectorLookup } from '../../src/scheduler/default-selector.js';
import { SchedulerCache } from '../../src/scheduler/cache.js';
import { CycleState, findFeasible, prioritize, runPreFilters, type Lookups } from '../../src/scheduler/framework.js';
import { buildPodInfo } from '../../src/scheduler/pod-info.js';
import { defaultFilters, defaultScores } from '../../src/scheduler/plugins/index.js';
import { startScheduler } from '../../src/scheduler/index.js';
import { LogStore } from '../../src/kubelet/log-store.js';
import { labelIndexKey } from '../../src/machinery/labels.js';
import { mkPod } from './scheduler-fixtures.js';

type Json = Record<string, any>;

function env(): { store: SqliteStore; reg: Registry; client: Client; clock: ManualClock } {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const store = new SqliteStore({ path: ':memory:' });
  const reg = new Registry(store, allResources, clock, createLogger('silent'));
  bootstrap(reg);
  return { store, reg, client: clientFor(reg), clock };
}

const settle = async () => {
  for (let i = 0; i < 8; i++) await new Promise((r) => setImmediate(r));
};

const service = (name: string, ns: string, selector?: Record<string, string>): KObject =>
  ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns }, spec: { ports: [{ port: 80 }], ...(selector ? { selector } : {}) } });

const replicaSet = (name: string, ns: string, labels: Record<string, string>): KObject => ({
  apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name, namespace: ns },
  spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
});

describe('default spreading selector', () => {
  const e = env();
  after(() => e.store.close());
  for (const ns of ['a', 'b']) e.client.create('v1/namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  e.client.create('v1/services', 'a', service('web', 'a', { app: 'web', tier: 'fe' }));
  e.client.create('v1/services', 'a', service('app', 'a', { app: 'web' }));
  e.client.create('v1/services', 'a', service('headless', 'a'));
  e.client.create('v1/services', 'a', service('other', 'a', { app: 'db' }));
  e.client.create('v1/services', 'b', service('web', 'b', { app: 'web', tier: 'fe' }));
  void e.client.create('apps/v1/replicasets', 'a', replicaSet('web-1', 'a', { app: 'web', 'pod-template-hash': 'h1' }));
  const rs = e.client.get('apps/v1/replicasets', 'a', 'web-1')!;
  // Matches the pod's labels but does not control it: not counted (upstream follows the controller reference).
  e.client.create('apps/v1/replicasets', 'a', replicaSet('stray', 'a', { app: 'web' }));
  const lookup = defaultSelectorLookup(e.client);
  after(() => lookup.stop());
  const owned = (labels: Record<string, string>, ns = 'a'): Pod => ({
    metadata: { name: 'p', namespace: ns, labels, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: rs.metadata.uid ?? '', controller: true }] },
  }) as Pod;

  it('merges the selecting Services and adds the controlling ReplicaSet selector', () => {
    const sel = lookup.selectorFor(owned({ app: 'web', tier: 'fe', 'pod-template-hash': 'h1' }));
    assert.deepEqual(sel, [
      { key: 'app', op: 'Equals', values: ['web'] },
      { key: 'tier', op: 'Equals', values: ['fe'] },
      { key: 'app', op: 'Equals', values: ['web'] },
      { key: 'pod-template-hash', op: 'Equals', values: ['h1'] },
    ]);
  });

  it('leaves out Services that do not select the pod, and other namespaces', () => {
    assert.deepEqual(lookup.selectorFor(owned({ app: 'web', 'pod-template-hash': 'h1' })), [
      { key: 'app', op: 'Equals', values: ['web'] },
      { key: 'app', op: 'Equals', values: ['web'] },
      { key: 'pod-template-hash', op: 'Equals', values: ['h1'] },
    ]);
    const bare = { metadata: { name: 'q', namespace: 'b', labels: { app: 'web', tier: 'fe' } } } as Pod;
    assert.deepEqual(lookup.selectorFor(bare), [{ key: 'app', op: 'Equals', values: ['web'] }, { key: 'tier', op: 'Equals', values: ['fe'] }]);
    assert.equal(lookup.selectorFor({ metadata: { name: 'r', namespace: 'b', labels: { app: 'db' } } } as Pod), undefined);
  });

  it('follows Service changes through its index', async () => {
    e.client.create('v1/services', 'b', service('db', 'b', { app: 'db' }));
    await e.store.committed();
    await settle();
    assert.deepEqual(lookup.selectorFor({ metadata: { name: 'r', namespace: 'b', labels: { app: 'db' } } } as Pod), [{ key: 'app', op: 'Equals', values: ['db'] }]);
    await e.client.delete('v1/services', 'b', 'db');
    await e.store.committed();
    await settle();
    assert.equal(lookup.selectorFor({ metadata: { name: 'r', namespace: 'b', labels: { app: 'db' } } } as Pod), undefined);
  });

  it('ignores a controller reference whose uid does not match', () => {
    const p = owned({ app: 'x' });
    p.metadata!.ownerReferences![0].uid = 'someone-else';
    assert.equal(lookup.selectorFor(p), undefined);
  });
});

describe('topology spreading through the pod index', () => {
  const cache = new SchedulerCache();
  const zones = ['z1', 'z2', 'z3'];
  for (let i = 0; i < 12; i++) {
    const name = `n${i}`;
    cache.setNode({ metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zones[i % 3] } }, status: { allocatable: { cpu: '8', memory: '16Gi', pods: '110' } } });
  }
  // Uneven placements of two apps in two namespaces, one of them terminating.
  let k = 0;
  for (const [app, ns, count] of [['web', 'default', 17], ['db', 'default', 5], ['web', 'other', 9]] as const) {
    for (let i = 0; i < count; i++) {
      const base = mkPod(`${app}-${ns}-${i}`, { ns, labels: { app, tier: i % 2 ? 'a' : 'b' } });
      const p: Pod = {
        ...base,
        metadata: { ...base.metadata, resourceVersion: String(++k), ...(i === 3 ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
        spec: { ...base.spec!, nodeName: `n${(k * 7) % 5}` },
      };
      cache.syncAssigned(`${ns}/${p.metadata!.name}`, p);
    }
  }
  const nodes = cache.nodeList();
  const webSelector = [{ key: 'app', op: 'Equals' as const, values: ['web'] }];
  const withIndex: Lookups = { nsLabels: () => undefined, defaultSelector: () => webSelector, index: cache.index };
  const scan: Lookups = { ...withIndex, index: undefined };

  const outcome = (pod: Pod, lookups: Lookups) => {
    const s = new CycleState(buildPodInfo(pod), nodes, lookups);
    const rejected = runPreFilters(defaultFilters, s);
    const r = findFeasible(defaultFilters, s, nodes, 0);
    const spread = defaultScores.filter((p) => p.name === 'PodTopologySpread');
    return { rejected, feasible: r.feasible.map((n) => n.name), failures: [...r.failures.keys()], scores: prioritize(spread, s, r.feasible) };
  };

  it('the label key of a selector is an Equals or single-valued In requirement', () => {
    assert.equal(labelIndexKey([{ key: 'a', op: 'Exists', values: [] }, { key: 'b', op: 'In', values: ['x'] }]), 'b=x');
    assert.equal(labelIndexKey([{ key: 'a', op: 'In', values: ['x', 'y'] }]), undefined);
  });

  it('system default spreading scores as the scan does', () => {
    const a = outcome(mkPod('new-web', { labels: { app: 'web' } }), withIndex);
    const b = outcome(mkPod('new-web', { labels: { app: 'web' } }), scan);
    assert.deepEqual(a, b);
    assert.ok(new Set(a.scores).size > 1, `the scores differ between nodes (${a.scores})`);
  });

  it('DoNotSchedule and ScheduleAnyway constraints decide as the scan does', () => {
    const spec: Json = {
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } },
        { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] } },
        { maxSkew: 2, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'db' } } },
        { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] } },
      ],
    };
    const a = outcome(mkPod('c', { labels: { app: 'web', tier: 'a' }, spec }), withIndex);
    const b = outcome(mkPod('c', { labels: { app: 'web', tier: 'a' }, spec }), scan);
    assert.deepEqual(a, b);
    assert.ok(a.failures.length > 0 && a.feasible.length > 0, `some nodes pass and some fail (${a.failures})`);
  });
});

describe('log store', () => {
  it('forgets one pod without touching the others', () => {
    const logs = new LogStore(new ManualClock(0));
    logs.start('uid-a', 'app', 0, [{ atMs: 0, text: 'a' }]);
    logs.start('uid-a', 'side', 0, [{ atMs: 0, text: 'a2' }]);
    logs.start('uid-ab', 'app', 0, [{ atMs: 0, text: 'b' }]);
    logs.drop('uid-a');
    assert.equal(logs.has('uid-a', 'app', false), false);
    assert.equal(logs.has('uid-a', 'side', false), false);
    assert.deepEqual(logs.lines('uid-ab', 'app', false).map((l) => l.text), ['b']);
    logs.drop('uid-a');
    logs.start('uid-a', 'app', 5, []);
    assert.equal(logs.has('uid-a', 'app', false), true);
  });
});

describe('scheduler held back by kube-system/bonsai-scheduler', () => {
  it('binds nothing while data.paused is "true", and schedules the queued pods once the ConfigMap goes', async () => {
    const e = env();
    const now = new Date(e.clock.nowMs()).toISOString().replace(/\.\d+Z$/, 'Z');
    e.client.create('v1/nodes', '', {
      apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1' } },
      status: { capacity: { cpu: '4', memory: '8Gi', pods: '110' }, allocatable: { cpu: '4', memory: '8Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: now, lastTransitionTime: now }] },
    });
    e.client.create('v1/configmaps', 'kube-system', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bonsai-scheduler', namespace: 'kube-system' }, data: { paused: 'true' } });
    await e.store.committed();
    const sched = startScheduler(e.client, e.clock, createLogger('silent'));
    try {
      for (let i = 0; i < 3; i++) e.client.create('v1/pods', 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}` }, spec: { containers: [{ name: 'c', image: 'x' }] } });
      for (let i = 0; i < 5; i++) {
        await e.store.committed();
        await settle();
      }
      const bound = () => (e.client.list('v1/pods', 'default')).filter((p) => p.spec?.nodeName).length;
      assert.equal(bound(), 0, 'nothing bound while held back');
      await e.client.delete('v1/configmaps', 'kube-system', 'bonsai-scheduler');
      for (let i = 0; i < 20 && bound() < 3; i++) {
        await e.store.committed();
        await settle();
      }
      assert.equal(bound(), 3, 'all three bound after the release');
    } finally {
      sched.stop();
      e.store.close();
    }
  });
});

describe('inter-pod anti-affinity through kept counts', () => {
  const cache = new SchedulerCache();
  const setNode = (i: number, zone: string) => cache.setNode({
    metadata: { name: `n${i}`, labels: { 'kubernetes.io/hostname': `n${i}`, 'topology.kubernetes.io/zone': zone } },
    status: { allocatable: { cpu: '8', memory: '16Gi', pods: '110' } },
  });
  for (let i = 0; i < 9; i++) setNode(i, `z${i % 3}`);
  const anti = (labels: Record<string, string>, topologyKey: string, namespaces?: string[]): Json => ({
    affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: labels }, topologyKey, ...(namespaces ? { namespaces } : {}) }] } },
  });
  let rv = 0;
  const assign = (name: string, node: string, o: { ns?: string; labels?: Record<string, string>; spec?: Json }) => {
    const base = mkPod(name, { ns: o.ns, labels: o.labels, spec: o.spec });
    const p: Pod = { ...base, metadata: { ...base.metadata, resourceVersion: String(++rv) }, spec: { ...base.spec!, nodeName: node } };
    cache.syncAssigned(`${p.metadata!.namespace}/${name}`, p);
  };
  // Existing pods: a group repelling color=green per host, one per zone for app=db, one in another namespace.
  assign('g0', 'n0', { labels: { color: 'green' }, spec: anti({ color: 'green' }, 'kubernetes.io/hostname') });
  assign('g1', 'n4', { labels: { color: 'green' }, spec: anti({ color: 'green' }, 'kubernetes.io/hostname') });
  assign('d0', 'n2', { labels: { app: 'db' }, spec: anti({ app: 'db' }, 'topology.kubernetes.io/zone') });
  assign('o0', 'n7', { ns: 'other', labels: { color: 'green' }, spec: anti({ color: 'green' }, 'kubernetes.io/hostname', ['default', 'other']) });
  assign('plain', 'n5', { labels: { color: 'green' } });

  const withIndex: Lookups = { nsLabels: () => undefined, defaultSelector: () => undefined, index: cache.index };
  const scan: Lookups = { ...withIndex, index: undefined };
  const incoming = [
    mkPod('x1', { labels: { color: 'green' }, spec: anti({ color: 'green' }, 'kubernetes.io/hostname') }),
    mkPod('x2', { labels: { app: 'db' }, spec: anti({ app: 'db' }, 'topology.kubernetes.io/zone') }),
    mkPod('x3', { labels: { color: 'green' } }),
    mkPod('x4', { labels: { app: 'web' }, spec: anti({ color: 'green' }, 'topology.kubernetes.io/zone') }),
  ];
  const verdicts = (pod: Pod, lookups: Lookups) => {
    const nodes = cache.nodeList();
    const s = new CycleState(buildPodInfo(pod), nodes, lookups);
    runPreFilters(defaultFilters, s);
    const r = findFeasible(defaultFilters, s, nodes, 0);
    return { feasible: r.feasible.map((n) => n.name), failures: [...r.failures].map(([n, f]) => `${n}:${f.reasons.join()}`) };
  };
  const same = (what: string) => {
    for (const p of incoming) assert.deepEqual(verdicts(p, withIndex), verdicts(p, scan), `${what}: ${p.metadata!.name}`);
  };

  it('filters as the scan does, and rejects where it should', () => {
    same('initially');
    const v = verdicts(incoming[0], withIndex);
    assert.ok(!v.feasible.includes('n0') && !v.feasible.includes('n4') && !v.feasible.includes('n5') && !v.feasible.includes('n7'), JSON.stringify(v));
    assert.ok(v.feasible.includes('n1'));
  });

  it('keeps up with binds, removals and node label changes', () => {
    assign('g2', 'n1', { labels: { color: 'green' }, spec: anti({ color: 'green' }, 'kubernetes.io/hostname') });
    same('after a bind');
    cache.syncAssigned('default/g0', undefined);
    same('after a removal');
    assert.ok(verdicts(incoming[0], withIndex).feasible.includes('n0'));
    setNode(2, 'z1');
    same('after a zone change');
    cache.removeNode('n4');
    same('after a node went');
    setNode(4, 'z0');
    same('after it came back');
  });
});
