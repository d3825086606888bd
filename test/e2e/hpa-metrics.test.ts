// HPA beyond CPU with kubectl: a Pods metric (pods annotated custom-metrics.bonsai.dev/<metric>) scaling a
// Deployment, an Object metric read from a Service's annotation, an External metric from the ConfigMap
// bonsai-external-metrics, `kubectl describe hpa` and `kubectl get hpa` printing them as upstream, the failure
// condition of a missing external metric, and the metrics adapter's APIs through `kubectl get --raw`, discovery,
// api-resources and APIServices. Clock at 20x: one 15 s sync period is 0.75 s.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer } from '../helpers/cluster.js';

type Json = Record<string, any>;

const deployment = (name: string, replicas: number, annotations: Record<string, string> = {}) => JSON.stringify({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name }, annotations }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});
const hpa = (name: string, min: number, max: number, metrics: Json[], behavior?: Json) => JSON.stringify({
  apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, minReplicas: min, maxReplicas: max, metrics, ...(behavior ? { behavior } : {}) },
});
const fastDown = { scaleDown: { stabilizationWindowSeconds: 0 } };

describe('HPA on Pods, Object and External metrics', () => {
  const env = useKubectlServer({ args: ['--clock-speed', '20'] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const apply = (doc: string) => env.k.ok(['apply', '-f', '-'], { input: doc });
  const replicas = async (name: string) => (await getJson('deployment', name)).spec.replicas as number;
  const condition = (h: Json, type: string) => (h.status?.conditions ?? []).find((c: Json) => c.type === type) as Json | undefined;
  const events = async (name: string) => ((await getJson('events', '--field-selector', `involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=${name}`)).items as Json[])
    .map((e) => `${e.type} ${e.reason} ${e.message}`);

  it('scales a Deployment on a Pods metric read from the pods annotations', async () => {
    await apply(deployment('web', 2, { 'custom-metrics.bonsai.dev/rps': '30' }));
    await env.k.ok(['rollout', 'status', 'deployment/web', '--timeout=30s']);
    const raw = JSON.parse(await env.k.ok(['get', '--raw', '/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/rps?labelSelector=app%3Dweb'])) as Json;
    assert.equal(raw.kind, 'MetricValueList');
    assert.equal(raw.apiVersion, 'custom.metrics.k8s.io/v1beta2');
    assert.equal(raw.items.length, 2);
    assert.deepEqual([raw.items[0].describedObject.kind, raw.items[0].describedObject.apiVersion, raw.items[0].metric, raw.items[0].value], ['Pod', '/v1', { name: 'rps' }, '30']);

    await apply(hpa('web', 1, 5, [{ type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '10' } } }]));
    await eventually(async () => (await replicas('web')) === 5, 30_000, 'scaled out to 5 on rps');
    assert.ok((await events('web')).includes('Normal SuccessfulRescale New size: 4; reason: pods metric rps above target'), (await events('web')).join('\n'));
    const h = await eventually(async () => {
      const x = await getJson('hpa', 'web');
      return x.status.currentReplicas === 5 && x.status.currentMetrics?.[0]?.pods && x;
    }, 20_000, 'HPA status at 5 replicas');
    assert.deepEqual(h.status.currentMetrics[0], { type: 'Pods', pods: { metric: { name: 'rps' }, current: { averageValue: '30' } } });
    assert.equal(condition(h, 'ScalingActive')?.message, 'the HPA was able to successfully calculate a replica count from pods metric rps');
    assert.match(await env.k.ok(['get', 'hpa', 'web']), /^web\s+Deployment\/web\s+30\/10\s+1\s+5\s+5\s+\S+$/m);
    assert.match(await env.k.ok(['describe', 'hpa', 'web']), /"rps" on pods:\s+30 \/ 10\n/);
  });

  it('scales on an Object metric from a Service annotation, out and back in', async () => {
    await env.k.ok(['create', 'service', 'clusterip', 'front', '--tcp=80:80']);
    await env.k.ok(['annotate', 'service', 'front', 'custom-metrics.bonsai.dev/requests-per-second=300']);
    await apply(deployment('api', 1));
    await env.k.ok(['rollout', 'status', 'deployment/api', '--timeout=30s']);
    const one = JSON.parse(await env.k.ok(['get', '--raw', '/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/services/front/requests-per-second'])) as Json;
    assert.deepEqual(one.items.map((i: Json) => [i.describedObject.kind, i.describedObject.name, i.metricName, i.value]), [['Service', 'front', 'requests-per-second', '300']]);

    const metric = { type: 'Object', object: { describedObject: { apiVersion: 'v1', kind: 'Service', name: 'front' }, metric: { name: 'requests-per-second' }, target: { type: 'Value', value: '100' } } };
    await apply(hpa('api', 1, 3, [metric], fastDown));
    await eventually(async () => (await replicas('api')) === 3, 30_000, 'scaled out to 3 on the Service metric');
    await env.k.ok(['rollout', 'status', 'deployment/api', '--timeout=30s']);
    const described = await eventually(async () => {
      const d = await env.k.ok(['describe', 'hpa', 'api']);
      return /"requests-per-second" on Service\/front \(target value\):\s+300 \/ 100\n/.test(d) && d;
    }, 20_000, 'describe showing the object metric');
    assert.match(described, /ScalingActive\s+True\s+ValidMetricFound\s+the HPA was able to successfully calculate a replica count from Service metric requests-per-second/);

    // 100 of 100 per ... 3 ready pods at ratio 1/3 -> 1.
    await env.k.ok(['annotate', 'service', 'front', 'custom-metrics.bonsai.dev/requests-per-second=30', '--overwrite']);
    await eventually(async () => (await replicas('api')) === 1, 30_000, 'scaled back in to 1');
    assert.ok((await events('api')).includes('Normal SuccessfulRescale New size: 1; reason: All metrics below target'));
  });

  it('scales on an External metric from the bonsai-external-metrics ConfigMap, and reports a missing one', async () => {
    await env.k.ok(['create', 'configmap', 'bonsai-external-metrics', '--from-literal=queue_length=30']);
    await apply(deployment('worker', 1));
    const raw = JSON.parse(await env.k.ok(['get', '--raw', '/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_length'])) as Json;
    assert.equal(raw.kind, 'ExternalMetricValueList');
    assert.deepEqual(raw.items.map((i: Json) => [i.metricName, i.value]), [['queue_length', '30']]);
    assert.match(await env.k.fails(['get', '--raw', '/apis/external.metrics.k8s.io/v1beta1/namespaces/default/nothing']), /the server could not find the metric nothing for namespaces/);

    const metric = { type: 'External', external: { metric: { name: 'queue_length' }, target: { type: 'AverageValue', averageValue: '10' } } };
    await apply(hpa('worker', 1, 10, [metric], fastDown));
    await eventually(async () => (await replicas('worker')) === 3, 30_000, 'scaled out to 3 on the queue');
    assert.ok((await events('worker')).includes('Normal SuccessfulRescale New size: 3; reason: external metric queue_length(nil) above target'), (await events('worker')).join('\n'));
    const h = await eventually(async () => {
      const x = await getJson('hpa', 'worker');
      return x.status.currentReplicas === 3 && x.status.currentMetrics?.[0]?.external?.current?.averageValue === '10' && x;
    }, 20_000, 'HPA status at 3 replicas');
    assert.deepEqual(h.status.currentMetrics[0].external.metric, { name: 'queue_length' });
    assert.match(await env.k.ok(['get', 'hpa', 'worker']), /^worker\s+Deployment\/worker\s+10\/10 \(avg\)\s+1\s+10\s+3\s+\S+$/m);
    assert.match(await env.k.ok(['describe', 'hpa', 'worker']), /"queue_length" \(target average value\):\s+10 \/ 10\n/);

    await env.k.ok(['patch', 'configmap', 'bonsai-external-metrics', '--type=merge', '-p', '{"data":{"queue_length":"5"}}']);
    await eventually(async () => (await replicas('worker')) === 1, 30_000, 'scaled back in to 1');

    // A metric no source has: the condition and event upstream sets.
    await apply(hpa('ghost', 1, 3, [{ type: 'External', external: { metric: { name: 'missing' }, target: { type: 'Value', value: '1' } } }]));
    await apply(deployment('ghost', 1));
    const ghost = await eventually(async () => {
      const x = await getJson('hpa', 'ghost');
      return condition(x, 'ScalingActive')?.status === 'False' && x;
    }, 20_000, 'ScalingActive False on the missing metric');
    assert.equal(condition(ghost, 'ScalingActive')?.reason, 'FailedGetExternalMetric');
    assert.equal(condition(ghost, 'ScalingActive')?.message, 'the HPA was unable to compute the replica count: unable to get external metric default/missing/nil: unable to fetch metrics from external metrics API: the server could not find the metric missing for namespaces');
    const ev = await eventually(async () => {
      const e = await events('ghost');
      return e.some((x) => x.startsWith('Warning FailedComputeMetricsReplicas')) && e;
    }, 20_000, 'FailedComputeMetricsReplicas event');
    assert.ok(ev.includes('Warning FailedGetExternalMetric unable to get external metric default/missing/nil: unable to fetch metrics from external metrics API: the server could not find the metric missing for namespaces'), ev.join('\n'));
    assert.ok(ev.includes('Warning FailedComputeMetricsReplicas invalid metrics (1 invalid out of 1), first error is: failed to get missing external metric value: failed to get external metric missing: unable to get external metric default/missing/nil: unable to fetch metrics from external metrics API: the server could not find the metric missing for namespaces'), ev.join('\n'));
  });

  it('serves both APIs in discovery, api-resources and as available APIServices', async () => {
    // The adapter's list of metrics is a scan it reuses for a few seconds: poll until it names both.
    const custom = await eventually(async () => {
      const list = JSON.parse(await env.k.ok(['get', '--raw', '/apis/custom.metrics.k8s.io/v1beta2'])) as Json;
      const names = (list.resources as Json[]).map((r) => r.name);
      return names.includes('pods/rps') && names.includes('services/requests-per-second') && list;
    }, 15_000, 'discovery lists pods/rps and services/requests-per-second');
    assert.deepEqual((custom.resources as Json[]).find((r) => r.name === 'pods/rps'), { name: 'pods/rps', singularName: '', namespaced: true, kind: 'MetricValueList', verbs: ['get'] });
    const external = JSON.parse(await env.k.ok(['get', '--raw', '/apis/external.metrics.k8s.io/v1beta1'])) as Json;
    assert.deepEqual(external.resources, [{ name: 'queue_length', singularName: '', namespaced: true, kind: 'ExternalMetricValueList', verbs: ['get'] }]);
    const groups = JSON.parse(await env.k.ok(['get', '--raw', '/apis'])) as Json;
    const custGroup = (groups.groups as Json[]).find((g) => g.name === 'custom.metrics.k8s.io');
    assert.deepEqual(custGroup?.preferredVersion, { groupVersion: 'custom.metrics.k8s.io/v1beta2', version: 'v1beta2' });
    const apiResources = await env.k.ok(['api-resources', '--api-group=external.metrics.k8s.io']);
    assert.match(apiResources, /^queue_length\s+external\.metrics\.k8s\.io\/v1beta1\s+true\s+ExternalMetricValueList$/m);
    const all = await env.k.run(['api-resources']);
    assert.equal(all.code, 0, all.stderr);
    assert.equal(all.stderr, '');
    const services = await env.k.ok(['get', 'apiservices']);
    for (const name of ['v1beta2\\.custom\\.metrics\\.k8s\\.io', 'v1beta1\\.custom\\.metrics\\.k8s\\.io', 'v1beta1\\.external\\.metrics\\.k8s\\.io']) {
      assert.match(services, new RegExp(`^${name}\\s+custom-metrics/custom-metrics-apiserver\\s+True\\s+\\S+$`, 'm'));
    }
  });
});
