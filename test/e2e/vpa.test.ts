// Vertical Pod Autoscaler (autoscaling.k8s.io/v1) with real kubectl, the clock at 60x (the recommender and updater
// run every clock minute: once a second here). Deployments whose pods use 500m cpu (bonsai.dev/cpu-usage) on a
// 100m request: InPlaceOrRecreate raises the requests in place (same pod uid, no restart); Recreate evicts the pods
// and the admission step gives their replacements the recommended requests; Off only recommends (kubectl get vpa
// shows it, the pods stay as they were); a VPA whose target is missing reports ConfigUnsupported and NoPodsMatched.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer } from '../helpers/cluster.js';

type Json = Record<string, any>;

const deployment = (name: string) => JSON.stringify({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: {
    replicas: 2, selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name }, annotations: { 'bonsai.dev/cpu-usage': '500m' } },
      spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '100m', memory: '64Mi' } } }] },
    },
  },
});

const vpa = (name: string, target: string, updateMode: string, extra: Json = {}) => JSON.stringify({
  apiVersion: 'autoscaling.k8s.io/v1', kind: 'VerticalPodAutoscaler', metadata: { name },
  spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target }, updatePolicy: { updateMode }, ...extra },
});

describe('VerticalPodAutoscaler add-on', () => {
  const env = useKubectlServer({ args: ['--clock-speed', '60', '--addons', 'vpa'] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const apply = (manifest: string) => env.k.ok(['apply', '-f', '-'], { input: manifest });
  const pods = async (app: string) => ((await getJson('pods', '-l', `app=${app}`)).items as Json[]).filter((p) => !p.metadata.deletionTimestamp);
  const cond = (o: Json, type: string) => (o.status?.conditions ?? []).find((c: Json) => c.type === type);
  const events = async (kind: string) => ((await getJson('events', '--field-selector', `involvedObject.kind=${kind}`)).items as Json[]);
  const served = () => eventually(async () => (await env.k.run(['get', 'vpa'])).code === 0, 20_000, 'the VPA CRD installed');
  const running = (app: string) => eventually(async () => {
    const list = await pods(app);
    return list.length === 2 && list.every((p) => p.status.phase === 'Running') && list;
  }, 20_000, `2 running ${app} pods`);

  let offPods: Json[] = [];

  it('Off only recommends: kubectl get vpa shows the recommendation', async () => {
    await served();
    await apply(deployment('off'));
    offPods = await running('off');
    await apply(vpa('off-vpa', 'off', 'Off'));
    const v = await eventually(async () => {
      const o = await getJson('vpa', 'off-vpa');
      return cond(o, 'RecommendationProvided')?.status === 'True' && o;
    }, 20_000, 'a recommendation');
    const rec = v.status.recommendation.containerRecommendations[0];
    assert.equal(rec.containerName, 'app');
    // 500m of use, the 90th percentile's bucket end plus the 15% margin; memory at the 250Mi minimum.
    assert.match(rec.target.cpu, /^5\d\dm$/);
    assert.equal(rec.target.memory, '250Mi');
    assert.deepEqual(rec.uncappedTarget, rec.target);
    assert.ok(cond(v, 'NoPodsMatched') === undefined, JSON.stringify(v.status.conditions));
    const table = await env.k.ok(['get', 'vpa', 'off-vpa']);
    assert.match(table, /^NAME\s+MODE\s+CPU\s+MEM\s+PROVIDED\s+AGE$/m);
    assert.match(table, new RegExp(`^off-vpa\\s+Off\\s+${rec.target.cpu}\\s+250Mi\\s+True\\s+\\S+$`, 'm'));
    const recEvents = (await events('VerticalPodAutoscaler')).filter((e) => e.involvedObject.name === 'off-vpa' && e.reason === 'RecommendationUpdated');
    assert.ok(recEvents.some((e) => e.message.startsWith('Recommendation for container app provided: target cpu ')), JSON.stringify(recEvents));
  });

  it('InPlaceOrRecreate raises the requests in place: same pods, no restart', async () => {
    await apply(deployment('inplace'));
    const before = await running('inplace');
    const uids = before.map((p) => p.metadata.uid).sort();
    await apply(vpa('inplace-vpa', 'inplace', 'InPlaceOrRecreate'));
    const after = await eventually(async () => {
      const list = await pods('inplace');
      return list.length === 2 && list.every((p) => p.spec.containers[0].resources.requests.cpu !== '100m') && list;
    }, 40_000, 'both pods resized');
    assert.deepEqual(after.map((p) => p.metadata.uid).sort(), uids);
    for (const p of after) {
      assert.match(p.spec.containers[0].resources.requests.cpu, /^5\d\dm$/);
      assert.equal(p.spec.containers[0].resources.requests.memory, '250Mi');
      assert.equal(p.metadata.annotations.vpaInPlaceUpdated, 'true');
      assert.equal(p.status.containerStatuses[0].restartCount, 0);
    }
    const resized = (await events('Pod')).filter((e) => e.reason === 'InPlaceResizedByVPA');
    assert.equal(new Set(resized.map((e) => e.involvedObject.name)).size, 2, JSON.stringify(resized));
    assert.equal(resized[0].message, 'Pod was resized in place by VPA Updater.');
    assert.ok(!(await events('Pod')).some((e) => e.reason === 'EvictedByVPA' && e.involvedObject.name.startsWith('inplace-')));
  });

  it('Recreate evicts the pods; their replacements get the recommended requests', async () => {
    await apply(deployment('recreate'));
    const before = await running('recreate');
    const old = new Set(before.map((p) => p.metadata.uid));
    await apply(vpa('recreate-vpa', 'recreate', 'Recreate'));
    const after = await eventually(async () => {
      const list = await pods('recreate');
      return list.length === 2 && list.every((p) => !old.has(p.metadata.uid) && p.status.phase === 'Running') && list;
    }, 40_000, 'both pods replaced');
    for (const p of after) {
      assert.match(p.spec.containers[0].resources.requests.cpu, /^5\d\dm$/);
      assert.equal(p.spec.containers[0].resources.requests.memory, '250Mi');
      assert.equal(p.metadata.annotations.vpaUpdates, 'Pod resources updated by recreate-vpa: container 0: cpu request, memory request');
      assert.equal(p.metadata.annotations.vpaObservedContainers, 'app');
    }
    const evicted = (await events('Pod')).filter((e) => e.reason === 'EvictedByVPA');
    assert.ok(evicted.length >= 2, JSON.stringify(evicted));
    assert.equal(evicted[0].message, 'Pod was evicted by VPA Updater to apply resource recommendation.');
    const onVpa = (await events('VerticalPodAutoscaler')).filter((e) => e.reason === 'EvictedPod' && e.involvedObject.name === 'recreate-vpa');
    assert.ok(onVpa.some((e) => /^VPA Updater evicted Pod recreate-\S+ to apply resource recommendation\.$/.test(e.message)), JSON.stringify(onVpa));

    // Many updater rounds later, the Off VPA's pods are as they were.
    const off = await pods('off');
    assert.deepEqual(off.map((p) => p.metadata.uid).sort(), offPods.map((p) => p.metadata.uid).sort());
    for (const p of off) {
      assert.equal(p.spec.containers[0].resources.requests.cpu, '100m');
      assert.equal(p.metadata.annotations.vpaUpdates, undefined);
    }
  });

  it('a missing target: ConfigUnsupported, NoPodsMatched, no recommendation', async () => {
    await apply(vpa('lost-vpa', 'nope', 'Recreate'));
    const v = await eventually(async () => {
      const o = await getJson('vpa', 'lost-vpa');
      return cond(o, 'ConfigUnsupported') && o;
    }, 20_000, 'ConfigUnsupported');
    assert.equal(cond(v, 'ConfigUnsupported').status, 'True');
    assert.equal(cond(v, 'ConfigUnsupported').message, 'Cannot read targetRef. Reason: Deployment default/nope does not exist');
    assert.deepEqual([cond(v, 'NoPodsMatched').status, cond(v, 'NoPodsMatched').reason, cond(v, 'NoPodsMatched').message], ['True', 'NoPodsMatched', 'No pods match this VPA object']);
    assert.deepEqual([cond(v, 'RecommendationProvided').status, cond(v, 'RecommendationProvided').reason], ['False', 'NoPodsMatched']);
    assert.equal(v.status.recommendation, undefined);
  });

  it('hostile targetRef and policy shapes give ConfigUnsupported, never a crash', async () => {
    await apply(JSON.stringify({
      apiVersion: 'autoscaling.k8s.io/v1', kind: 'VerticalPodAutoscaler', metadata: { name: 'odd-vpa' },
      spec: {
        targetRef: { apiVersion: 'x/y/z', kind: 'constructor', name: '__proto__' },
        resourcePolicy: { containerPolicies: [{ containerName: '__proto__', minAllowed: { __proto__: '1', constructor: '2' }, controlledResources: ['constructor'] }] },
      },
    }));
    const v = await eventually(async () => {
      const o = await getJson('vpa', 'odd-vpa');
      return cond(o, 'ConfigUnsupported') && o;
    }, 20_000, 'ConfigUnsupported');
    assert.equal(cond(v, 'ConfigUnsupported').message, 'Cannot read targetRef. Reason: unhandled targetRef x/y/z / constructor / __proto__, last error unexpected GroupVersion string: x/y/z');
    // The add-on still works for the others: the InPlaceOrRecreate VPA keeps its recommendation.
    assert.equal(cond(await getJson('vpa', 'inplace-vpa'), 'RecommendationProvided')?.status, 'True');
  });

  it("refuses at admission what the VPA admission controller refuses, with its messages", async () => {
    await served();
    const refused = async (name: string, extra: Json, updateMode = 'Off') => (await env.k.fails(['apply', '-f', '-'], { input: vpa(name, 'nothing', updateMode, extra) }));
    const prefix = 'admission webhook "vpa.k8s.io" denied the request: ';
    const cases: Array<[Json, string]> = [
      [{ updatePolicy: { updateMode: 'Recreate', minReplicas: 0 } }, 'minReplicas has to be positive, got 0'],
      [{ resourcePolicy: { containerPolicies: [{ containerName: 'app', minAllowed: { cpu: '500m' }, maxAllowed: { cpu: '100m' } }] } }, 'max resource for cpu is lower than min'],
      [{ resourcePolicy: { containerPolicies: [{ containerName: 'app', minAllowed: { cpu: '0.0005' } }] } }, 'minAllowed: CPU [500u] must be a whole number of milli CPUs'],
      [{ resourcePolicy: { containerPolicies: [{ containerName: 'app', maxAllowed: { memory: '0.5' } }] } }, 'maxAllowed: memory [500m] must be a whole number of bytes'],
      [{ resourcePolicy: { containerPolicies: [{ containerName: 'app', mode: 'Off', controlledValues: 'RequestsAndLimits' }] } }, "controlledValues shouldn't be specified if container scaling mode is off"],
      [{ recommenders: [{ name: 'a' }, { name: 'b' }] }, "the current version of VPA object shouldn't specify more than one recommenders"],
    ];
    for (const [i, [extra, message]] of cases.entries()) {
      const stderr = await refused(`bad-${i}`, extra);
      assert.ok(stderr.includes(`${prefix}${message}`), stderr);
    }
    assert.equal((await env.k.ok(['get', 'vpa', '-o', 'name'])).split('\n').filter((l) => l.includes('bad-')).length, 0);
  });
});
