// KEDA (keda.sh/v1alpha1) with real kubectl. A ScaledObject with a metrics-api trigger on an HTTP endpoint this test
// serves scales a Deployment 0 -> 1 -> N -> 0 as the served value changes (clock at 10x: a 5 s pollingInterval is
// 0.5 s, a 20 s cooldown 2 s); a ScaledJob creates one Job per queued item up to its max; an unknown trigger type
// shows upstream's error in Ready; the printer columns and the external metrics API answer. A cron trigger scales
// up inside its window on a second server at --clock-speed 60.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer } from '../helpers/cluster.js';
import { useQueueEndpoint } from '../helpers/queue-endpoint.js';

type Json = Record<string, any>;

const deployment = (name: string) => JSON.stringify({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: {
    replicas: 0, selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'nginx', resources: { requests: { cpu: '100m' } } }] } },
  },
});

const scaledObject = (name: string, target: string, spec: Json) => JSON.stringify({
  apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', metadata: { name }, spec: { scaleTargetRef: { name: target }, ...spec },
});

describe('KEDA add-on', () => {
  const env = useKubectlServer({ args: ['--addons', 'keda', '--clock-speed', '10'] });
  const q = useQueueEndpoint();
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const cond = (o: Json, type: string) => (o.status?.conditions ?? []).find((c: Json) => c.type === type);
  const apply = (manifest: string) => env.k.ok(['apply', '-f', '-'], { input: manifest });
  const replicas = async (name: string) => (await getJson('deployment', name)).spec.replicas as number;
  const events = async (kind: string, name: string) => ((await getJson('events', '--field-selector', `involvedObject.kind=${kind},involvedObject.name=${name}`)).items as Json[])
    .map((e) => `${e.type} ${e.reason} ${e.message}`);
  const served = () => eventually(async () => (await env.k.run(['get', 'scaledobjects'])).code === 0 && (await env.k.run(['get', 'scaledjobs'])).code === 0, 120_000, 'the KEDA CRDs installed');

  it('a metrics-api trigger scales a Deployment 0 -> 1 -> N -> 0 as the served value changes', async () => {
    await served();
    q.set(0);
    await apply(deployment('web'));
    await apply(scaledObject('web', 'web', {
      minReplicaCount: 0, maxReplicaCount: 5, pollingInterval: 5, cooldownPeriod: 20,
      triggers: [{ type: 'metrics-api', metadata: { url: q.url(), valueLocation: 'queue.depth', targetValue: '2', activationTargetValue: '0' } }],
    }));
    const ready = await eventually(async () => {
      const so = await getJson('scaledobject', 'web');
      return cond(so, 'Ready')?.status === 'True' && cond(so, 'Active')?.status === 'False' && so;
    }, 20_000, 'ScaledObject Ready and not Active');
    assert.equal(cond(ready, 'Ready').reason, 'ScaledObjectReady');
    assert.equal(cond(ready, 'Ready').message, 'ScaledObject is defined correctly and is ready for scaling');
    assert.equal(cond(ready, 'Active').reason, 'ScalerNotActive');
    assert.equal(ready.status.scaleTargetKind, 'apps/v1.Deployment');
    assert.deepEqual(ready.status.scaleTargetGVKR, { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' });
    assert.equal(ready.status.originalReplicaCount, 0);
    assert.equal(ready.status.hpaName, 'keda-hpa-web');
    assert.deepEqual(ready.status.externalMetricNames, ['s0-metric-api-queue-depth']);
    assert.equal(ready.metadata.labels['scaledobject.keda.sh/name'], 'web');
    const hpa = await getJson('hpa', 'keda-hpa-web');
    assert.equal(hpa.spec.minReplicas, 1);
    assert.equal(hpa.spec.maxReplicas, 5);
    assert.deepEqual(hpa.spec.metrics, [{ type: 'External', external: { metric: { name: 's0-metric-api-queue-depth', selector: { matchLabels: { 'scaledobject.keda.sh/name': 'web' } } }, target: { type: 'AverageValue', averageValue: '2' } } }]);
    assert.equal(hpa.metadata.labels['app.kubernetes.io/managed-by'], 'keda-operator');
    assert.equal(hpa.metadata.ownerReferences[0].kind, 'ScaledObject');
    const table = await env.k.ok(['get', 'scaledobjects']);
    assert.match(table, /^NAME\s+SCALETARGETKIND\s+SCALETARGETNAME\s+MIN\s+MAX\s+READY\s+ACTIVE\s+FALLBACK\s+PAUSED\s+TRIGGERS\s+AUTHENTICATIONS\s+AGE$/m);
    assert.match(table, /^web\s+apps\/v1\.Deployment\s+web\s+0\s+5\s+True\s+False\s+False\s+False\s+metrics-api\s+\S+$/m);
    assert.equal(await replicas('web'), 0);

    q.set(1);
    await eventually(async () => (await replicas('web')) === 1, 20_000, 'activated to 1 replica');
    assert.ok((await events('ScaledObject', 'web')).includes('Normal KEDAScaleTargetActivated Scaled apps/v1.Deployment default/web from 0 to 1, triggered by s0-metric-api-queue-depth'));
    const active = await eventually(async () => {
      const so = await getJson('scaledobject', 'web');
      return cond(so, 'Active')?.status === 'True' && so.status.lastActiveTime && so;
    }, 10_000, 'Active True');
    assert.equal(cond(active, 'Active').message, 'Scaling is performed because triggers are active');

    // The metrics adapter answers as KEDA's does for the HPA's selector.
    const list = JSON.parse(await env.k.ok(['get', '--raw', '/apis/external.metrics.k8s.io/v1beta1/namespaces/default/s0-metric-api-queue-depth?labelSelector=scaledobject.keda.sh%2Fname%3Dweb'])) as Json;
    assert.equal(list.kind, 'ExternalMetricValueList');
    assert.equal(list.items[0].metricName, 's0-metric-api-queue-depth');
    assert.equal(list.items[0].value, '1');

    // 1 -> N: the HPA reads 8 / target 2 = 4 replicas through external.metrics.k8s.io.
    q.set(8);
    await eventually(async () => (await replicas('web')) === 4, 30_000, 'the HPA scaled out to 4');
    // At 4 replicas the next sync reads 8 / 4 = 2 per pod: on target.
    await eventually(async () => (await getJson('hpa', 'keda-hpa-web')).status.currentMetrics?.[0]?.external?.current?.averageValue === '2', 10_000, 'HPA at target');

    q.set(0);
    await eventually(async () => (await replicas('web')) === 0, 30_000, 'deactivated to 0 after the cooldown');
    assert.ok((await events('ScaledObject', 'web')).some((e) => /^Normal KEDAScaleTargetDeactivated Deactivated apps\/v1\.Deployment default\/web from \d+ to 0$/.test(e)));
  });

  it('a ScaledJob creates one Job per queued item up to its max', async () => {
    await served();
    q.set(3);
    await apply(JSON.stringify({
      apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledJob', metadata: { name: 'worker' },
      spec: {
        pollingInterval: 5, maxReplicaCount: 5,
        jobTargetRef: { template: { spec: { containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'sleep 3600'] }] } } },
        triggers: [{ type: 'metrics-api', metadata: { url: q.url(), valueLocation: 'items.0.n', targetValue: '1' } }],
      },
    }));
    const jobs = async () => (await getJson('jobs', '-l', 'scaledjob.keda.sh/name=worker')).items as Json[];
    await eventually(async () => (await jobs()).length === 3, 20_000, '3 Jobs for 3 queued items');
    const j = (await jobs())[0];
    assert.match(j.metadata.name, /^worker-[a-z0-9]{5}$/);
    assert.equal(j.metadata.ownerReferences[0].kind, 'ScaledJob');
    assert.equal(j.spec.template.spec.restartPolicy, 'OnFailure');
    q.set(10);
    await eventually(async () => (await jobs()).length === 5, 20_000, '5 Jobs: maxReplicaCount');
    const sj = await eventually(async () => {
      const o = await getJson('scaledjob', 'worker');
      return cond(o, 'Active')?.status === 'True' && o;
    }, 10_000, 'ScaledJob Active');
    assert.equal(cond(sj, 'Ready')?.status, 'True');
    // Two more polls: still 5 (the running Jobs count against the queue).
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal((await jobs()).length, 5);
    assert.ok((await events('ScaledJob', 'worker')).includes('Normal KEDAJobsCreated Created 3 jobs'));
  });

  it('an unknown trigger type is Ready=False with upstream\'s error, a cpu-only object with min 0 is refused', async () => {
    await served();
    await apply(deployment('other'));
    await apply(scaledObject('odd', 'other', { triggers: [{ type: 'foo', metadata: { a: 'b' } }] }));
    const so = await eventually(async () => {
      const o = await getJson('scaledobject', 'odd');
      return cond(o, 'Ready')?.status === 'False' && o;
    }, 20_000, 'Ready False');
    assert.equal(cond(so, 'Ready').reason, 'ScaledObjectCheckFailed');
    assert.equal(cond(so, 'Ready').message, 'failed to ensure HPA is correctly created for ScaledObject: no scaler found for type: foo');
    assert.ok((await events('ScaledObject', 'odd')).includes('Warning KEDAScalerFailed no scaler found for type: foo'));
    // KEDA's webhook refuses it at admission.
    await apply(deployment('other2'));
    const cpu = await env.k.fails(['apply', '-f', '-'], { input: scaledObject('cpu0', 'other2', { minReplicaCount: 0, triggers: [{ type: 'cpu', metricType: 'Utilization', metadata: { value: '50' } }] }) });
    assert.match(cpu, /admission webhook "vscaledobject\.kb\.io" denied the request: scaledobject has only cpu\/memory triggers AND minReplica is 0 \(scale to zero doesn't work in this case\)/);
  });

  it("refuses at admission what KEDA's ScaledObject webhook refuses, with its messages", async () => {
    await served();
    for (const d of ['w1', 'w2', 'w3', 'w4']) await apply(deployment(d));
    await apply(JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nores' }, spec: { replicas: 0, selector: { matchLabels: { app: 'nores' } }, template: { metadata: { labels: { app: 'nores' } }, spec: { containers: [{ name: 'main', image: 'nginx' }] } } } }));
    const workload = [{ type: 'kubernetes-workload', metadata: { podSelector: 'app=none', value: '1' } }];
    const cpu = [{ type: 'cpu', metricType: 'Utilization', metadata: { value: '50' } }];
    await apply(scaledObject('first', 'w1', { triggers: workload }));
    const refused = async (name: string, target: string, spec: Json) => env.k.fails(['apply', '-f', '-'], { input: scaledObject(name, target, spec) });
    const prefix = 'admission webhook "vscaledobject.kb.io" denied the request: ';
    const assertRefused = (stderr: string, message: string) => assert.ok(stderr.includes(`${prefix}${message}`), stderr);
    assertRefused(await refused('second', 'w1', { triggers: workload }), `the workload 'w1' of type 'apps/v1.Deployment' is already managed by the ScaledObject 'first'`);
    await env.k.ok(['autoscale', 'deployment', 'w2', '--max=3', '--cpu-percent=50']);
    assertRefused(await refused('on-hpa', 'w2', { triggers: workload }), `the workload 'w2' of type 'apps/v1.Deployment' is already managed by the hpa 'w2'`);
    assertRefused(await refused('no-requests', 'nores', { minReplicaCount: 1, triggers: cpu }), `the scaledobject has a cpu trigger but the container main doesn't have the cpu request defined`);
    assertRefused(await refused('fallback', 'w3', { minReplicaCount: 1, fallback: { failureThreshold: 3, replicas: 2 }, triggers: cpu }), `at least one trigger (that is not cpu or memory) has to have the \`AverageValue\` type for the fallback to be enabled`);
    // (min above max is refused earlier, by the CRD's own validation rule)
    assertRefused(await refused('bounds', 'w4', { minReplicaCount: 2, idleReplicaCount: 2, triggers: workload }), `IdleReplicaCount=2 must be less than MinReplicaCount=2`);
    const long = 'x'.repeat(64);
    assertRefused(await refused(long, 'w4', { triggers: workload }), `scaledobject name "${long}" is 64 characters long; must be no more than 63 characters because it is used as the "scaledobject.keda.sh/name" label value`);
    // ScaledJobs have their triggers checked the same way, TriggerAuthentications their identity settings.
    const job = { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } };
    const sj = JSON.stringify({ apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledJob', metadata: { name: 'twice' }, spec: { jobTargetRef: job, triggers: [{ type: 'cron', name: 'same', metadata: { timezone: 'UTC', start: '0 * * * *', end: '1 * * * *', desiredReplicas: '1' } }, { type: 'cron', name: 'same', metadata: { timezone: 'UTC', start: '0 * * * *', end: '1 * * * *', desiredReplicas: '1' } }] } });
    const twice = await env.k.fails(['apply', '-f', '-'], { input: sj });
    assert.ok(twice.includes('admission webhook "vscaledjob.kb.io" denied the request: triggerName "same" is defined multiple times in the ScaledObject/ScaledJob, but it must be unique'), twice);
    const ta = JSON.stringify({ apiVersion: 'keda.sh/v1alpha1', kind: 'TriggerAuthentication', metadata: { name: 'aws' }, spec: { podIdentity: { provider: 'aws', externalID: 'x' } } });
    const aws = await env.k.fails(['apply', '-f', '-'], { input: ta });
    assert.ok(aws.includes('admission webhook "vstriggerauthentication.kb.io" denied the request: externalID of PodIdentity requires roleArn to be set'), aws);
    // None of them was stored; the first one is still the only one.
    assert.equal((await env.k.ok(['get', 'scaledobjects', '-o', 'name'])).split('\n').filter((l) => /first|second|on-hpa|no-requests|fallback|bounds/.test(l)).join(','), 'scaledobject.keda.sh/first');
  });
});

describe('KEDA cron trigger at --clock-speed 60', () => {
  const env = useKubectlServer({ args: ['--addons', 'keda', '--clock-speed', '60'] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;

  it('scales up inside its window and down after it', async () => {
    await eventually(async () => (await env.k.run(['get', 'scaledobjects'])).code === 0, 120_000, 'the KEDA CRDs installed');
    await env.k.ok(['apply', '-f', '-'], { input: deployment('batch') });
    // Active in minutes 0-1 of every 4 (one clock minute is one second here).
    await env.k.ok(['apply', '-f', '-'], {
      input: scaledObject('batch', 'batch', {
        minReplicaCount: 0, pollingInterval: 15, cooldownPeriod: 30,
        triggers: [{ type: 'cron', metadata: { timezone: 'UTC', start: '*/4 * * * *', end: '2-59/4 * * * *', desiredReplicas: '3' } }],
      }),
    });
    // KEDA activates 0 -> 1, the HPA takes it to desiredReplicas (3 against a target of 1 per pod).
    await eventually(async () => (await getJson('deployment', 'batch')).spec.replicas === 3, 20_000, 'scaled up to 3 in the window');
    const so = await getJson('scaledobject', 'batch');
    assert.deepEqual(so.status.externalMetricNames, ['s0-cron-UTC-xSl4xxxx-2-59Sl4xxxx']);
    await eventually(async () => (await getJson('deployment', 'batch')).spec.replicas === 0, 20_000, 'scaled down after the window');
  });
});
