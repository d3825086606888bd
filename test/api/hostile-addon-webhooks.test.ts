// Hostile JobSets, LeaderWorkerSets, ScaledObjects and VPAs for the add-ons' in-process validating webhooks
// (vjobset.kb.io, vleaderworkerset.kb.io, vscaledobject.kb.io, vpa.k8s.io): keys named __proto__/constructor/prototype, huge and repeated rule names, absurd numbers and
// percentages, thousands of rules and replicated jobs, hostile updates. Every write is answered without a 5xx, the
// webhooks refuse with a 4xx or admit, and the prototypes stay clean.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useBonsai } from './http.js';
import { eventually } from '../helpers/kubectl.js';

const NS = 'default';
const jobsets = `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${NS}/jobsets`;
const sets = `/apis/leaderworkerset.x-k8s.io/v1/namespaces/${NS}/leaderworkersets`;
const evilMap = { ['__proto__']: 'x', constructor: 'y', prototype: 'z', toString: 'w' };
const huge = 'a'.repeat(200_000);

const snapshot = () => JSON.stringify([Object.prototype, Array.prototype, Function.prototype].map((p) => Reflect.ownKeys(p).map(String).sort()));

const rjob = (name: string, extra: Record<string, unknown> = {}) => ({
  name, ...extra,
  template: { spec: { template: { metadata: { labels: evilMap, annotations: evilMap }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } } },
});

const jobSet = (name: string, spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name }, spec });
const lws = (name: string, spec: Record<string, unknown>, tmpl: Record<string, unknown> = {}) => JSON.stringify({
  apiVersion: 'leaderworkerset.x-k8s.io/v1', kind: 'LeaderWorkerSet', metadata: { name, annotations: { 'leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology': huge.slice(0, 1000) } },
  spec: { ...spec, leaderWorkerTemplate: { workerTemplate: { spec: { containers: [{ name: 'c', image: 'busybox' }] } }, ...tmpl } },
});

describe('hostile objects for the add-on webhooks', () => {
  const { env, req } = useBonsai({ addons: ['jobset', 'lws', 'keda', 'vpa'], cluster: { nodes: 0 } });
  const before0 = snapshot();

  const send = async (method: string, path: string, raw: string, contentType?: string): Promise<number> => {
    const r = await req(method, path, undefined, { raw, ...(contentType ? { contentType } : {}) });
    assert.ok(r.status < 500, `${method} ${path}: ${r.status} ${r.text.slice(0, 300)}`);
    return r.status;
  };

  it('JobSets: hostile rules, names, numbers and updates', async () => {
    await env.b.addonsReady;
    await eventually(async () => (await req('GET', jobsets)).status === 200, 20_000, 'JobSets served');
    const manyRules = Array.from({ length: 5000 }, (_, i) => ({ name: i % 2 ? 'same' : `r${i}`, action: 'FailJobSet', onJobFailureReasons: ['__proto__', 'constructor'], targetReplicatedJobs: ['prototype'] }));
    const cases: Array<[string, Record<string, unknown>]> = [
      ['rules-huge', { failurePolicy: { rules: [{ name: huge, action: 'RestartJobSet' }, { name: '__proto__', action: 'FailJobSet' }] }, replicatedJobs: [rjob('w')] }],
      ['rules-many', { failurePolicy: { rules: manyRules }, replicatedJobs: [rjob('w')] }],
      ['numbers', { replicatedJobs: [rjob('w', { replicas: 2 ** 31 - 1, groupName: '__proto__' })], coordinator: { replicatedJob: 'w', jobIndex: -5, podIndex: 2 ** 31 - 1 }, network: { subdomain: huge.slice(0, 5000) } }],
      ['depends', { replicatedJobs: Array.from({ length: 2000 }, (_, i) => rjob(`j${i}`, { dependsOn: [{ name: 'constructor', status: 'Ready' }] })), successPolicy: { operator: 'All', targetReplicatedJobs: ['__proto__'] } }],
      ['managed', { managedBy: `${huge.slice(0, 300)}/${'%'.repeat(300)}`, replicatedJobs: [rjob('w')] }],
    ];
    for (const [name, spec] of cases) {
      const status = await send('POST', jobsets, jobSet(name, spec));
      assert.ok(status === 201 || status === 422 || status === 413, `${name}: ${status}`);
    }
    assert.equal(await send('POST', jobsets, jobSet('ok', { replicatedJobs: [rjob('w')] })), 201);
    await send('PATCH', `${jobsets}/ok`, JSON.stringify({ spec: { replicatedJobs: [rjob('w', { replicas: 3 })], managedBy: '__proto__' } }), 'application/merge-patch+json');
    await send('PATCH', `${jobsets}/ok`, JSON.stringify({ spec: { suspend: true, replicatedJobs: [{ ...rjob('w'), template: { spec: { template: { metadata: { labels: evilMap }, spec: { nodeSelector: evilMap, containers: [{ name: 'c', image: 'busybox' }] } } } } }] } }), 'application/merge-patch+json');
  });

  it('LeaderWorkerSets: hostile sizes, percentages, sub-groups and updates', async () => {
    await eventually(async () => (await req('GET', sets)).status === 200, 20_000, 'LeaderWorkerSets served');
    const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
      ['big', { replicas: 2 ** 31 - 1 }, { size: 2 ** 31 - 1 }],
      ['pct', { replicas: 3, rolloutStrategy: { type: 'RollingUpdate', rollingUpdateConfiguration: { maxUnavailable: `${'9'.repeat(5000)}%`, maxSurge: huge.slice(0, 10000), partition: 0 } } }, {}],
      ['sub', { replicas: 1 }, { size: 7, subGroupPolicy: { subGroupSize: 2 ** 31 - 1, subGroupPolicyType: 'LeaderExcluded' } }],
      ['__proto__', { replicas: 1 }, {}],
    ];
    for (const [name, spec, tmpl] of cases) {
      const status = await send('POST', sets, lws(name, spec, tmpl));
      assert.ok(status === 201 || status === 403 || status === 422, `${name}: ${status}`);
    }
    assert.equal(await send('POST', sets, lws('ok', { replicas: 1 }, { size: 4, subGroupPolicy: { subGroupSize: 2 } })), 201);
    await send('PATCH', `${sets}/ok`, JSON.stringify({ spec: { leaderWorkerTemplate: { subGroupPolicy: null } } }), 'application/merge-patch+json');
    await send('PATCH', `${sets}/ok`, JSON.stringify({ spec: { leaderWorkerTemplate: { subGroupPolicy: { subGroupSize: 2 ** 31 - 1 } } } }), 'application/merge-patch+json');
  });

  it('ScaledObjects and VPAs: hostile targets, triggers, policies and quantities', async () => {
    const sos = `/apis/keda.sh/v1alpha1/namespaces/${NS}/scaledobjects`;
    const vpas = `/apis/autoscaling.k8s.io/v1/namespaces/${NS}/verticalpodautoscalers`;
    await eventually(async () => (await req('GET', sos)).status === 200 && (await req('GET', vpas)).status === 200, 20_000, 'ScaledObjects and VPAs served');
    const so = (name: string, spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', metadata: { name, annotations: evilMap }, spec });
    const soCases: Array<[string, Record<string, unknown>]> = [
      ['proto', { scaleTargetRef: { name: '__proto__', kind: 'constructor', apiVersion: 'prototype' }, triggers: [{ type: 'cpu', metricType: 'Utilization', metadata: { value: '50', containerName: '__proto__' } }] }],
      ['proto-2', { scaleTargetRef: { name: '__proto__', kind: 'constructor', apiVersion: 'prototype' }, triggers: [{ type: 'cron', metadata: evilMap }] }],
      ['hpa-huge', { scaleTargetRef: { name: 'x' }, advanced: { horizontalPodAutoscalerConfig: { name: huge.slice(0, 5000) } }, triggers: [{ type: 'cron', metadata: evilMap }] }],
      ['fallback', { scaleTargetRef: { name: 'y' }, minReplicaCount: 1, fallback: { failureThreshold: -(2 ** 31), replicas: 2 ** 31 - 1 }, triggers: Array.from({ length: 500 }, () => ({ type: 'memory', metadata: evilMap })) }],
    ];
    for (const [name, spec] of soCases) {
      const status = await send('POST', sos, so(name, spec));
      assert.ok(status === 201 || status === 403 || status === 422, `${name}: ${status}`);
    }
    const vpa = (name: string, spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'autoscaling.k8s.io/v1', kind: 'VerticalPodAutoscaler', metadata: { name }, spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: '__proto__' }, ...spec } });
    const policy = { containerName: '__proto__', minAllowed: { ...evilMap, cpu: '0.0000000001', memory: '1e400' }, maxAllowed: { constructor: '-1', cpu: '1e-400' } };
    const vpaCases: Array<[string, Record<string, unknown>]> = [
      ['policies', { resourcePolicy: { containerPolicies: Array.from({ length: 3000 }, () => policy) } }],
      ['numbers', { updatePolicy: { updateMode: 'Recreate', minReplicas: -(2 ** 31) }, recommenders: Array.from({ length: 1000 }, () => ({ name: '__proto__' })) }],
      ['modes', { updatePolicy: { updateMode: '__proto__' }, resourcePolicy: { containerPolicies: [{ containerName: 'c', mode: 'constructor', controlledValues: 'prototype' }] } }],
    ];
    for (const [name, spec] of vpaCases) {
      const status = await send('POST', vpas, vpa(name, spec));
      assert.ok(status === 201 || status === 400 || status === 422, `${name}: ${status}`);
    }
  });

  it('leaves the prototypes clean and the API answering', async () => {
    assert.equal(snapshot(), before0);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((await req('GET', '/api/v1/namespaces')).status, 200);
  });
});
