// The add-on lessons' step checks and their namespace helpers, on hand-made objects and a small in-memory API.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Json, LessonApi } from '../../src/lessons/lesson-api.js';
import { claimName, lessonMeta } from '../../src/lessons/addon-lesson-helpers.js';
import { ensureLessonNamespace, removeLessonObjects } from '../../src/lessons/lesson-namespace.js';
import { groupRecreated, groupsReady, leaderWorkerSet, uidsOf } from '../../src/lessons/lws-group.js';
import { deployment as karpenterDeployment, nodePool, placed } from '../../src/lessons/karpenter-consolidation.js';
import { scaledObject, scaledTo, setMetricCommand } from '../../src/lessons/keda-scale-to-zero.js';
import { recommendedTarget, resizedInPlace } from '../../src/lessons/vpa-in-place.js';

function pod(name: string, o: { uid?: string; group?: string; node?: string; ready?: boolean; cpu?: string; resized?: boolean; restarts?: number } = {}): Json {
  return {
    metadata: { name, uid: o.uid ?? `${name}-1`, labels: o.group !== undefined ? { 'leaderworkerset.sigs.k8s.io/group-index': o.group } : {}, annotations: o.resized ? { vpaInPlaceUpdated: 'true' } : {} },
    spec: { ...(o.node ? { nodeName: o.node } : {}), containers: [{ name: 'c', resources: { requests: { cpu: o.cpu ?? '100m', memory: '64Mi' } } }] },
    status: { phase: o.node || o.ready ? 'Running' : 'Pending', conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }], containerStatuses: [{ restartCount: o.restarts ?? 0 }] },
  };
}
const group = (g: string, uid = '1', ready = true) => [`llm-${g}`, `llm-${g}-1`, `llm-${g}-2`].map((n) => pod(n, { group: g, uid: `${n}-${uid}`, ready }));

/** An in-memory API holding objects by path; list paths answer the objects under them that match `key=value`. */
class MemoryApi implements LessonApi {
  readonly objects = new Map<string, Json>();
  readonly removed: string[] = [];
  async get(path: string): Promise<Json | undefined> {
    return this.objects.get(path);
  }
  async list(path: string): Promise<Json[]> {
    const [base, query = ''] = path.split('?');
    const selector = decodeURIComponent(new URLSearchParams(query).get('labelSelector') ?? '');
    const [key, value] = selector.split('=');
    return [...this.objects].filter(([p, o]) => p.startsWith(`${base}/`) && (!key || (o.metadata as { labels?: Record<string, string> }).labels?.[key] === value)).map(([, o]) => o);
  }
  async create(path: string, body: Json): Promise<Json> {
    this.objects.set(`${path}/${(body.metadata as { name: string }).name}`, body);
    return body;
  }
  async patch(): Promise<Json> {
    throw new Error('not used');
  }
  async remove(path: string): Promise<void> {
    this.removed.push(path);
    this.objects.delete(path);
  }
}

describe('add-on lesson helpers', () => {
  it('a lesson\'s objects are labelled and live in lesson-<name>; starting over removes only those', async () => {
    const api = new MemoryApi();
    assert.equal(await ensureLessonNamespace({ api, say: () => {} }, 'demo'), 'lesson-demo');
    assert.deepEqual((api.objects.get('/api/v1/namespaces/lesson-demo')?.metadata as Json).labels, { 'bonsai.dev/lesson': 'demo' });
    assert.deepEqual(lessonMeta('demo', 'x', { app: 'x' }), { name: 'x', namespace: 'lesson-demo', labels: { app: 'x', 'bonsai.dev/lesson': 'demo' } });
    assert.deepEqual(lessonMeta('demo', 'pool', {}, true), { name: 'pool', labels: { 'bonsai.dev/lesson': 'demo' } });
    const cms = '/api/v1/namespaces/lesson-demo/configmaps';
    await api.create(cms, { metadata: lessonMeta('demo', 'ours') });
    await api.create(cms, { metadata: { name: 'learners', labels: {} } });
    await removeLessonObjects(api, 'demo', [cms]);
    assert.deepEqual(api.removed, [`${cms}/ours`]);
    assert.ok(api.objects.has(`${cms}/learners`));
    await assert.rejects(claimName(api, `${cms}/learners`, 'demo'), /exists and is not the lesson's \(no bonsai\.dev\/lesson=demo label\)/);
    assert.ok(api.objects.has(`${cms}/learners`));
    await api.create(cms, { metadata: lessonMeta('demo', 'again') });
    await claimName(api, `${cms}/again`, 'demo');
    assert.ok(!api.objects.has(`${cms}/again`));
  });
});

describe('add-on lesson checks', () => {
  it('lws-group: a group counts as recreated when all its pods are new and Ready and no other group changed', () => {
    assert.equal(leaderWorkerSet().spec && (leaderWorkerSet().spec as Json).replicas, 2);
    const first = [...group('0'), ...group('1')];
    assert.ok(groupsReady(first, 2).done);
    assert.ok(!groupsReady([...group('0'), ...group('1', '1', false)], 2).done);
    const before = uidsOf(first);
    assert.equal(groupRecreated(before, first).progress, 'no pod replaced yet');
    assert.ok(!groupRecreated(before, [...group('0'), ...group('1', '2', false)]).done, 'not Ready yet');
    const r = groupRecreated(before, [...group('0'), ...group('1', '2')]);
    assert.deepEqual([r.done, r.detail], [true, 'all 3 pods of group 1 are new, the other groups untouched']);
    assert.ok(!groupRecreated(before, [...group('0', '2'), ...group('1', '2')]).done, 'both groups changed');
  });

  it('karpenter-consolidation: pods only on the pool\'s nodes; placed counts Running pods and live nodes', () => {
    assert.deepEqual(((karpenterDeployment().spec as Json).template as { spec: Json }).spec.nodeSelector, { 'karpenter.sh/nodepool': 'karpenter-consolidation' });
    assert.equal(((nodePool().spec as Json).disruption as Json).consolidationPolicy, 'WhenEmptyOrUnderutilized');
    const node = (name: string, deleting = false) => ({ metadata: { name, ...(deleting ? { deletionTimestamp: 't' } : {}) } });
    const pods = [pod('a', { node: 'n1' }), pod('b', { node: 'n1' })];
    assert.deepEqual(placed(pods, [node('n1')], 2, 1), { done: true, detail: '2 pods Running, 2 on n1', progress: '2 pods Running (2 wanted), 1 node in the pool' });
    assert.ok(!placed(pods, [node('n1'), node('n2')], 2, 1).done, 'a spare node left');
    assert.ok(placed(pods, [node('n1'), node('n2', true)], 2, 1).done, 'a node being deleted is gone');
    assert.ok(placed(pods, [node('n1'), node('n2')], 2, 1, true).done);
    assert.ok(!placed([...pods, pod('c')], [node('n1')], 3, 1).done, 'a Pending pod');
  });

  it('keda-scale-to-zero: the trigger reads the served metric; scaledTo needs the replicas and as many Ready pods', () => {
    const trigger = ((scaledObject('http://127.0.0.1:6443/').spec as Json).triggers as Json[])[0];
    assert.deepEqual(trigger.metadata, { url: 'http://127.0.0.1:6443/apis/external.metrics.k8s.io/v1beta1/namespaces/lesson-keda-scale-to-zero/queue_length', valueLocation: 'items.0.value', targetValue: '2', activationTargetValue: '0' });
    assert.equal(setMetricCommand(0), `kubectl -n lesson-keda-scale-to-zero patch configmap bonsai-external-metrics --type merge -p '{"data":{"queue_length":"0"}}'`);
    const d = (replicas: number) => ({ spec: { replicas } });
    assert.ok(scaledTo(d(0), [], 0).done);
    assert.ok(!scaledTo(d(0), [pod('x', { node: 'n' })], 0).done, 'a pod still there');
    assert.ok(!scaledTo(undefined, [], 0).done, 'no Deployment');
    assert.ok(scaledTo(d(2), [pod('x', { node: 'n' }), pod('y', { node: 'n' })], 2).done);
    assert.equal(scaledTo(d(2), [pod('x', { node: 'n', ready: false })], 2).progress, 'replicas 2, pods 1 (0 Ready)');
  });

  it('vpa-in-place: the recommendation needs RecommendationProvided; resized means the same pods, changed, no restart', () => {
    const vpa = (provided: string) => ({ status: { conditions: [{ type: 'RecommendationProvided', status: provided }], recommendation: { containerRecommendations: [{ containerName: 'api', target: { cpu: '587m', memory: '250Mi' } }] } } });
    assert.deepEqual(recommendedTarget(vpa('True')), { cpu: '587m', memory: '250Mi' });
    assert.equal(recommendedTarget(vpa('False')), undefined);
    const before = new Map([['api-a', 'u1'], ['api-b', 'u2']]);
    const resized = (name: string, uid: string, restarts = 0) => pod(name, { uid, node: 'n', cpu: '587m', resized: true, restarts });
    const r = resizedInPlace(before, [resized('api-a', 'u1'), resized('api-b', 'u2')]);
    assert.deepEqual([r.done, r.detail], [true, 'api-a: cpu 100m -> 587m, memory 64Mi -> 64Mi; 2 pods, same uids, 0 restarts']);
    assert.equal(resizedInPlace(before, [resized('api-a', 'u1'), resized('api-c', 'u3')]).progress, '1/2 pods resized in place, 1 replaced');
    assert.ok(!resizedInPlace(before, [resized('api-a', 'u1'), resized('api-b', 'u2', 1)]).done, 'a restart');
    assert.ok(!resizedInPlace(before, [resized('api-a', 'u1'), pod('api-b', { uid: 'u2', node: 'n' })]).done, 'one not resized yet');
    assert.ok(!resizedInPlace(new Map(), []).done);
  });
});
