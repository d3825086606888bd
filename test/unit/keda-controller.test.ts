// The KEDA add-on in process (clock at 10x) through the client: paused-replicas scales the target and removes the
// HPA, unpausing brings it back; restoreToOriginalReplicaCount on delete; fallback after failureThreshold (Fallback
// condition, health, the metrics adapter answering target x fallback.replicas and the HPA scaling on it); the
// kubernetes-workload scaler counting pods; a trigger on the metadata address refused; hostile trigger metadata
// ending in Ready=False, never in a crash.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBonsai, type Bonsai } from '../../src/main.js';
import { clientFor, type Client } from '../../src/client/client.js';
import type { KObject } from '../../src/machinery/types.js';
import { until } from './jobset-helpers.js';

type Json = Record<string, any>;
const SO = 'keda.sh/v1alpha1/scaledobjects';
const DEP = 'apps/v1/deployments';
const HPA = 'autoscaling/v2/horizontalpodautoscalers';

describe('KEDA controllers in process', () => {
  let b: Bonsai;
  let client: Client;
  before(async () => {
    b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', clockSpeed: 10, addons: ['keda'] });
    client = clientFor(b.registry);
    await b.addonsReady;
    await until(() => !!client.resource(SO), 10_000, 'the ScaledObject CRD');
  });
  after(async () => {
    await b?.close();
  });

  const deploy = (name: string, replicas: number, labels: Record<string, string> = { app: name }) => client.create(DEP, 'default', {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
    spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  } as KObject);
  const so = (name: string, spec: Json, annotations?: Record<string, string>) => client.create(SO, 'default', {
    apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', metadata: { name, ...(annotations ? { annotations } : {}) }, spec,
  } as KObject);
  const get = (ref: string, name: string) => client.get<Json>(ref, 'default', name);
  const cond = (o: Json | undefined, type: string) => (o?.status?.conditions ?? []).find((c: Json) => c.type === type);
  const replicas = (name: string) => get(DEP, name)?.spec?.replicas as number;
  // Active one hour a year (the clock is real time, sped up: not in this test's minutes unless on New Year's night).
  const idleCron = { type: 'cron', metadata: { timezone: 'UTC', start: '0 0 1 1 *', end: '0 1 1 1 *', desiredReplicas: '2' } };

  it('paused-replicas scales the target to the count and removes the HPA; unpausing restores the HPA', async () => {
    deploy('paused', 5);
    await so('paused', { scaleTargetRef: { name: 'paused' }, minReplicaCount: 1, triggers: [idleCron] }, { 'autoscaling.keda.sh/paused-replicas': '2' });
    const o = await until(() => {
      const x = get(SO, 'paused');
      return cond(x, 'Paused')?.status === 'True' && x?.status?.pausedReplicaCount === 2 && x;
    }, 10_000, 'Paused with pausedReplicaCount');
    assert.deepEqual(cond(o, 'Paused'), { type: 'Paused', status: 'True', reason: 'ScaledObjectPaused', message: 'ScaledObject is paused' });
    assert.equal(replicas('paused'), 2);
    assert.equal(get(HPA, 'keda-hpa-paused'), undefined);
    await client.guaranteedUpdate(SO, 'default', 'paused', (cur) => ({ ...cur, metadata: { ...cur.metadata, annotations: {} } }));
    const un = await until(() => {
      const x = get(SO, 'paused');
      return cond(x, 'Paused')?.status === 'False' && get(HPA, 'keda-hpa-paused') && x;
    }, 10_000, 'unpaused with its HPA');
    assert.deepEqual(cond(un, 'Paused'), { type: 'Paused', status: 'False', reason: 'ScaledObjectUnpaused', message: 'pause annotation removed for ScaledObject' });
    assert.equal(un.status.pausedReplicaCount, undefined);
  });

  it('scales an idle target to zero, and restores the original replicas when deleted', async () => {
    deploy('restore', 3);
    await so('restore', { scaleTargetRef: { name: 'restore' }, minReplicaCount: 0, pollingInterval: 1, advanced: { restoreToOriginalReplicaCount: true }, triggers: [idleCron] });
    await until(() => replicas('restore') === 0, 10_000, 'deactivated to 0');
    const o = get(SO, 'restore')!;
    assert.equal(o.status.originalReplicaCount, 3);
    assert.deepEqual(o.metadata.finalizers, ['finalizer.keda.sh']);
    await client.delete(SO, 'default', 'restore');
    await until(() => !get(SO, 'restore'), 10_000, 'the ScaledObject gone');
    assert.equal(replicas('restore'), 3);
    assert.equal(get(HPA, 'keda-hpa-restore'), undefined);
  });

  it('fallback: failures beyond failureThreshold serve target x fallback.replicas, and the HPA follows', async () => {
    deploy('fb', 1);
    await so('fb', {
      scaleTargetRef: { name: 'fb' }, minReplicaCount: 1, maxReplicaCount: 10, pollingInterval: 1, fallback: { failureThreshold: 1, replicas: 4 },
      triggers: [{ type: 'metrics-api', metadata: { url: 'http://127.0.0.1:2/none', valueLocation: 'v', targetValue: '2', timeout: '100' } }],
    });
    const o = await until(() => {
      const x = get(SO, 'fb');
      return cond(x, 'Fallback')?.status === 'True' && x;
    }, 15_000, 'Fallback True');
    assert.deepEqual(cond(o, 'Fallback'), { type: 'Fallback', status: 'True', reason: 'FallbackExists', message: 'At least one trigger is falling back on this scaled object' });
    assert.equal(o.status.health['s0-metric-api-v'].status, 'Failing');
    assert.ok(o.status.health['s0-metric-api-v'].numberOfFailures >= 2);
    const v = client.services.externalMetricValues('default', 's0-metric-api-v', 'scaledobject.keda.sh/name=fb');
    assert.equal(v?.[0]?.value, '8');
    await until(() => replicas('fb') === 4, 15_000, 'the HPA at fallback.replicas');
    const evs = client.list<Json>('v1/events', 'default').filter((e) => e.involvedObject?.name === 'fb').map((e) => e.reason);
    assert.ok(evs.includes('ScaledObjectFallbackActivated') && evs.includes('KEDAScalerFailed'), evs.join(','));
  });

  it('a metrics-api trigger on the cloud metadata address fails with the guard\'s reason, never connecting', async () => {
    deploy('imds', 1);
    await so('imds', { scaleTargetRef: { name: 'imds' }, minReplicaCount: 1, pollingInterval: 1, triggers: [{ type: 'metrics-api', metadata: { url: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/', valueLocation: 'v', targetValue: '1' } }] });
    const ev = await until(() => client.list<Json>('v1/events', 'default').find((e) => e.involvedObject?.name === 'imds' && e.reason === 'KEDAScalerFailed'), 15_000, 'KEDAScalerFailed');
    assert.equal(ev.message, 'error requesting metrics endpoint: Get "http://169.254.169.254/latest/meta-data/iam/security-credentials/": Bonsai\'s KEDA scalers do not connect to 169.254.169.254: link-local and cloud metadata addresses are refused');
  });

  it('kubernetes-workload counts the pods of a selector in the namespace', async () => {
    deploy('consumer', 0);
    await so('consumer', { scaleTargetRef: { name: 'consumer' }, minReplicaCount: 0, pollingInterval: 1, triggers: [{ type: 'kubernetes-workload', metadata: { podSelector: 'app=producer', value: '1' } }] });
    await until(() => cond(get(SO, 'consumer'), 'Ready')?.status === 'True', 10_000, 'Ready');
    assert.equal(replicas('consumer'), 0);
    deploy('producer', 2);
    await until(() => replicas('consumer') >= 1, 10_000, 'activated by the producer pods');
    assert.deepEqual(client.services.externalMetricValues('default', 's0-workload-default', 'scaledobject.keda.sh/name=consumer')?.[0]?.value, '2');
  });

  it('hostile trigger metadata: Ready=False with the parse error, prototypes untouched, other objects still served', async () => {
    deploy('hostile', 1);
    const hostile = JSON.parse(`{"__proto__":"yes","polluted":"x","constructor":"x","url":"${'h'.repeat(20_000)}","valueLocation":"a","targetValue":"NaN"}`);
    await so('hostile', { scaleTargetRef: { name: 'hostile' }, triggers: [{ type: 'metrics-api', metadata: hostile }] });
    const o = await until(() => {
      const x = get(SO, 'hostile');
      return cond(x, 'Ready')?.status === 'False' && x;
    }, 10_000, 'Ready False');
    assert.match(cond(o, 'Ready').message, /^failed to ensure HPA is correctly created for ScaledObject: error parsing metric API metadata: error parsing metrics API metadata: unable to set param "targetValue" value "NaN"/);
    // A workload of its own: KEDA's webhook refuses a second ScaledObject for one.
    deploy('hostile-2', 1);
    await so('hostile2', { scaleTargetRef: { name: 'hostile-2' }, triggers: [{ type: 'cron', metadata: { timezone: 'UTC', start: '0 0 * * *', end: '0 1 * * *', desiredReplicas: '99999999999999999999' } }] });
    await until(() => cond(get(SO, 'hostile2'), 'Ready')?.status === 'False', 10_000, 'hostile2 Ready False');
    await so('hostile3', { scaleTargetRef: { name: 'nope', kind: 'Nothing', apiVersion: 'example.com/v1' }, triggers: [idleCron] });
    const t = await until(() => {
      const x = get(SO, 'hostile3');
      return cond(x, 'Ready')?.status === 'False' && x;
    }, 10_000, 'hostile3 Ready False');
    assert.equal(cond(t, 'Ready').message, 'ScaledObject doesn\'t have correct scaleTargetRef specification: no matches for kind "Nothing" in version "example.com/v1"');
    assert.equal(({} as Json).polluted, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
  });
});
