// External metrics in the HPA: the replica math of Value and AverageValue targets (modelled on upstream's replica
// calculator table tests), the sum over the returned values, tolerance, the status entry, and upstream's error
// texts when the metric is missing or returns nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ExternalMetricSource } from '../../src/generated/k8s/autoscaling/v2.js';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { startBonsai, type Bonsai } from '../../src/main.js';
import { clientFor, type Client } from '../../src/client/client.js';
import { perPodReplicas, readyPodCount, valueReplicas } from '../../src/controllers/hpa/metric-calculator.js';
import { ExternalMetricError, externalProposal } from '../../src/controllers/hpa/external-metric.js';
import { goLabelSelector } from '../../src/controllers/hpa/go-format.js';
import type { ExternalMetricValue } from '../../src/metrics-apis/sources.js';

const pod = (name: string, phase = 'Running', ready = true): Pod => ({
  metadata: { name },
  status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const pods = (n: number, unready = 0): Pod[] => [
  ...Array.from({ length: n }, (_, i) => pod(`p${i}`)),
  ...Array.from({ length: unready }, (_, i) => pod(`u${i}`, 'Running', false)),
];

describe('HPA external metrics: replica math', () => {
  it('Value target: scales the ready pods by the usage ratio', () => {
    // upstream TestReplicaCalcScaleUpCMExternal: 3 replicas, 8.6 against 4.4 -> 6
    assert.equal(valueReplicas(3, 4400, 8600, pods(3), 0.1), 6);
    // scale down: 8.6 against 14.334 -> 2
    assert.equal(valueReplicas(3, 14334, 8600, pods(3), 0.1), 2);
  });

  it('Value target: counts only ready pods, and keeps the count within tolerance', () => {
    assert.equal(valueReplicas(3, 4400, 8600, pods(2, 1), 0.1), 4); // ceil(1.954 * 2)
    assert.equal(valueReplicas(3, 8888, 8600, pods(3), 0.1), 3);
  });

  it('Value target: from zero replicas the ratio is rounded up; no pods is an error', () => {
    assert.equal(valueReplicas(0, 1000, 3500, [], 0.1), 4);
    assert.throws(() => valueReplicas(2, 1000, 3500, [], 0.1), /^Error: unable to calculate ready pods: no pods returned by selector while calculating replica count$/);
  });

  it('AverageValue target: usage per replica, within tolerance keeps the status replicas', () => {
    // upstream TestReplicaCalcScaleUpCMExternalPerPod: 8.6 total, 2.2 per pod -> 4, reporting 2.867 per pod
    assert.deepEqual(perPodReplicas(3, 2200, 8600, 0.1), { replicas: 4, average: 2867 });
    assert.deepEqual(perPodReplicas(3, 2900, 8600, 0.1), { replicas: 3, average: 2867 });
    assert.deepEqual(perPodReplicas(5, 3000, 8600, 0.1), { replicas: 3, average: 1720 });
  });

  it('counts running ready pods only', () => {
    assert.equal(readyPodCount([pod('a'), pod('b', 'Pending', false), pod('c', 'Running', false), pod('d', 'Succeeded', true)]), 1);
  });

  it('prints the metric selector as Go does', () => {
    assert.equal(goLabelSelector(undefined), 'nil');
    assert.equal(goLabelSelector({ matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['x', 'y'] }] }),
      '&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[x y],},},}');
  });
});

describe('HPA external metrics: reading the sources', () => {
  let b: Bonsai;
  let client: Client;
  const served = new Map<string, ExternalMetricValue[]>();
  let asked = '';
  before(async () => {
    b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', cluster: { nodes: 0 }, addons: [] });
    client = clientFor(b.registry);
    client.services.addExternalMetrics({
      metricNames: () => [...served.keys()],
      values: (_ns, name, sel) => {
        asked = sel;
        return served.get(name);
      },
    });
  });
  after(async () => b.close());

  const spec = (target: ExternalMetricSource['target'], selector?: ExternalMetricSource['metric']['selector']): ExternalMetricSource => ({ metric: { name: 'queue', selector }, target });
  const v = (value: string): ExternalMetricValue => ({ metricName: 'queue', timestamp: '2026-01-01T00:00:00Z', value });

  it('sums every returned value against a Value target and reports the sum', () => {
    served.set('queue', [v('4'), v('2500m'), v('2')]);
    const p = externalProposal(client, 'default', spec({ type: 'Value', value: '2' }, { matchLabels: { q: 'a' } }), 2, 2, pods(2), 0.1);
    assert.equal(p.replicas, 9); // 8.5 / 2 * 2 ready
    assert.equal(asked, 'q=a');
    assert.deepEqual(p.status, { type: 'External', external: { metric: { name: 'queue', selector: { matchLabels: { q: 'a' } } }, current: { value: '8500m' } } });
    assert.equal(p.metric, 'external metric queue(&LabelSelector{MatchLabels:map[string]string{q: a,},MatchExpressions:[]LabelSelectorRequirement{},})');
  });

  it('reports the average per status replica for an AverageValue target', () => {
    served.set('queue', [v('30')]);
    const p = externalProposal(client, 'default', spec({ type: 'AverageValue', averageValue: '5' }), 2, 3, pods(3), 0.1);
    assert.equal(p.replicas, 6);
    assert.deepEqual(p.status.external?.current, { averageValue: '10' });
  });

  it('a metric no source serves fails as the adapter answers', () => {
    served.delete('queue');
    assert.throws(() => externalProposal(client, 'default', spec({ type: 'Value', value: '2' }), 2, 2, pods(2), 0.1), (e: unknown) => {
      assert.ok(e instanceof ExternalMetricError);
      assert.equal(e.inner, 'unable to get external metric default/queue/nil: unable to fetch metrics from external metrics API: the server could not find the metric queue for namespaces');
      assert.equal(e.message, `failed to get external metric queue: ${e.inner}`);
      return true;
    });
  });

  it('no values is an error; so is a spec without a target', () => {
    served.set('queue', []);
    assert.throws(() => externalProposal(client, 'ns1', spec({ type: 'AverageValue', averageValue: '2' }), 2, 2, pods(2), 0.1),
      /^Error: failed to get queue external metric: unable to get external metric ns1\/queue\/nil: no metrics returned from external metrics API$/);
    assert.throws(() => externalProposal(client, 'ns1', spec({ type: 'Value' }), 2, 2, pods(2), 0.1),
      /^Error: invalid external metric source: neither a value target nor an average value target was set$/);
  });
});
