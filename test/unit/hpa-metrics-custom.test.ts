// Pods and Object metrics in the HPA, read from the simulated custom metrics adapter (annotations
// custom-metrics.bonsai.dev/<metric>): the replica math (after upstream's replica calculator table tests), missing
// pods, status entries, and upstream's error texts; and the adapter's answers by name, by selector and for discovery.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ObjectMetricSource, PodsMetricSource } from '../../src/generated/k8s/autoscaling/v2.js';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { startBonsai, type Bonsai } from '../../src/main.js';
import { clientFor, type Client } from '../../src/client/client.js';
import type { KObject } from '../../src/machinery/types.js';
import { parseLabelSelector } from '../../src/machinery/labels.js';
import { CustomMetricError, objectProposal, podsProposal } from '../../src/controllers/hpa/custom-metric.js';
import { defaultCalcOptions } from '../../src/controllers/hpa/replica-calculator.js';
import { listCustomMetrics, metricByName, metricBySelector } from '../../src/metrics-apis/custom-metrics.js';

const running = (name: string): Pod => ({
  metadata: { name },
  status: { phase: 'Running', startTime: '2026-01-01T00:00:00Z', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
});
const o = { ...defaultCalcOptions, nowMs: Date.UTC(2026, 0, 1, 1) };
const sel = parseLabelSelector('app=web');

describe('HPA custom metrics', () => {
  let b: Bonsai;
  let client: Client;
  const pod = (name: string, value?: string, labels = { app: 'web' }) => client.create('v1/pods', 'default', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, labels, annotations: value === undefined ? {} : { 'custom-metrics.bonsai.dev/rps': value } },
    spec: { containers: [{ name: 'c', image: 'x' }] },
  });
  const setValue = (name: string, value: string) => client.guaranteedUpdate(client.resource('v1/pods')!, 'default', name, (c) => ({ ...c, metadata: { ...c.metadata, annotations: { 'custom-metrics.bonsai.dev/rps': value } } }));

  before(async () => {
    b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', cluster: { nodes: 0 }, addons: [] });
    client = clientFor(b.registry);
    pod('web-0', '20');
    pod('web-1', '10');
    pod('web-2', '30');
    pod('other', '1000', { app: 'other' });
    client.create('v1/services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'front', annotations: { 'custom-metrics.bonsai.dev/requests': '500' } }, spec: { ports: [{ port: 80 }] } });
  });
  after(async () => b.close());

  const podsSpec = (averageValue: string): PodsMetricSource => ({ metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue } });
  const webPods = () => ['web-0', 'web-1', 'web-2'].map(running);

  it('the adapter answers by selector and by name, 404 as an adapter', () => {
    assert.deepEqual(metricBySelector(b.registry, 'pods', 'default', sel, 'rps').map((v) => [v.describedObject.name, v.value]), [['web-0', '20'], ['web-1', '10'], ['web-2', '30']]);
    const one = metricByName(b.registry, 'services', 'default', 'front', 'requests');
    assert.deepEqual(one.describedObject, { kind: 'Service', namespace: 'default', name: 'front', apiVersion: '/v1' });
    assert.throws(() => metricByName(b.registry, 'services', 'default', 'nope', 'requests'), /^Error: the server could not find the metric requests for services nope$/);
    assert.throws(() => metricBySelector(b.registry, 'pods', 'default', sel, 'latency'), /^Error: the server could not find the metric latency for pods$/);
    assert.deepEqual(listCustomMetrics(b.registry).map((m) => `${m.groupResource}/${m.metric}`), ['pods/rps', 'services/requests']);
  });

  it('Pods metric: averages the pods values against the target (20 per pod, target 15 -> 4)', () => {
    const p = podsProposal(client, 'default', podsSpec('15'), 3, sel, webPods(), o);
    assert.equal(p.replicas, 4);
    assert.equal(p.metric, 'pods metric rps');
    assert.deepEqual(p.status, { type: 'Pods', pods: { metric: { name: 'rps' }, current: { averageValue: '20' } } });
  });

  it('Pods metric: within tolerance keeps the count; scale down', () => {
    assert.equal(podsProposal(client, 'default', podsSpec('19'), 3, sel, webPods(), o).replicas, 3);
    assert.equal(podsProposal(client, 'default', podsSpec('40'), 3, sel, webPods(), o).replicas, 2);
  });

  it('Pods metric: a pod without a value counts as at target on a scale-down, as idle on a scale-up', () => {
    pod('web-3');
    const four = [...webPods(), running('web-3')];
    // scale-down: 20 avg against 40 -> web-3 taken at 40: (60+40)/4=25 -> ratio .625 -> ceil(2.5)=3
    assert.equal(podsProposal(client, 'default', podsSpec('40'), 4, sel, four, o).replicas, 3);
    // scale-up: 20 avg against 10 -> web-3 taken as 0: 60/4=15 -> ratio 1.5 -> 6
    assert.equal(podsProposal(client, 'default', podsSpec('10'), 4, sel, four, o).replicas, 6);
    client.delete('v1/pods', 'default', 'web-3');
  });

  it('Pods metric: no pod has the metric -> upstream error texts', () => {
    assert.throws(() => podsProposal(client, 'default', { metric: { name: 'latency' }, target: { type: 'AverageValue', averageValue: '1' } }, 3, sel, webPods(), o), (e: unknown) => {
      assert.ok(e instanceof CustomMetricError);
      assert.equal(e.inner, 'unable to get metric latency: unable to fetch metrics from custom metrics API: the server could not find the metric latency for pods');
      assert.equal(e.message, `failed to get pods metric value: ${e.inner}`);
      return true;
    });
  });

  const objSpec = (target: ObjectMetricSource['target'], name = 'front'): ObjectMetricSource => ({ describedObject: { apiVersion: 'v1', kind: 'Service', name }, metric: { name: 'requests' }, target });

  it('Object metric, Value target: the usage ratio scales the ready pods', () => {
    const p = objectProposal(client, 'default', objSpec({ type: 'Value', value: '200' }), 3, 3, webPods(), 0.1);
    assert.equal(p.replicas, 8); // 500/200 = 2.5 * 3
    assert.equal(p.metric, 'Service metric requests');
    assert.deepEqual(p.status, { type: 'Object', object: { describedObject: { apiVersion: 'v1', kind: 'Service', name: 'front' }, metric: { name: 'requests' }, current: { value: '500' } } });
  });

  it('Object metric, AverageValue target: usage per status replica', () => {
    setValue('web-0', '20');
    const p = objectProposal(client, 'default', objSpec({ type: 'AverageValue', averageValue: '100' }), 2, 4, webPods(), 0.1);
    assert.equal(p.replicas, 5);
    assert.deepEqual(p.status.object?.current, { averageValue: '125' });
  });

  it('Object metric: a missing value or no target fails with upstream texts', () => {
    assert.throws(() => objectProposal(client, 'default', objSpec({ type: 'Value', value: '1' }, 'gone'), 3, 3, webPods(), 0.1), (e: unknown) => {
      assert.ok(e instanceof CustomMetricError);
      assert.equal(e.inner, 'unable to get metric requests: Service on default gone/unable to fetch metrics from custom metrics API: the server could not find the metric requests for services gone');
      assert.equal(e.message, `failed to get object metric value: ${e.inner}`);
      return true;
    });
    assert.throws(() => objectProposal(client, 'default', objSpec({ type: 'AverageValue', averageValue: '1' }, 'gone'), 3, 3, webPods(), 0.1),
      /^Error: failed to get object metric value: failed to get requests object metric: unable to get metric requests: /);
    assert.throws(() => objectProposal(client, 'default', objSpec({ type: 'Value' }), 3, 3, webPods(), 0.1),
      /^Error: failed to get object metric value: invalid object metric source: neither a value target nor an average value target was set$/);
  });
});
