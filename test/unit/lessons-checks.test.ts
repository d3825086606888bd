// The step checks of the three lessons, on hand-made objects.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { containerTrouble } from '../../src/lessons/lesson-objects.js';
import { backOnGoodTemplate, badImage, brokenRelease, deployment, failingPod, goodImage, rolledOut, templateImage } from '../../src/lessons/rolling-update.js';
import { busiestNode, drained, evictedAndReplaced, manifests, nodeReady, usableNodes } from '../../src/lessons/node-failure.js';
import { applyCommand, freeGpuNodeName, gangPlaced, gangPlaces, gangSize, gpuNode, nodeGpus, pendingForGpus, wholeGangRejected } from '../../src/lessons/gpu-gang.js';

type Json = Record<string, unknown>;
const ready = (status: string) => ({ type: 'Ready', status });

function pod(name: string, o: { node?: string; owner?: string; ready?: boolean; deleting?: boolean; phase?: string; waiting?: string; restarts?: number; scheduled?: string } = {}): Json {
  return {
    metadata: { name, ownerReferences: o.owner ? [{ name: o.owner }] : [], ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: o.node ? { nodeName: o.node } : {},
    status: {
      phase: o.phase ?? (o.node ? 'Running' : 'Pending'),
      conditions: [
        ...(o.ready !== undefined ? [ready(o.ready ? 'True' : 'False')] : []),
        ...(o.scheduled !== undefined ? [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: o.scheduled }] : []),
      ],
      containerStatuses: [{ name: 'c', restartCount: o.restarts ?? 0, state: o.waiting ? { waiting: { reason: o.waiting } } : { running: {} } }],
    },
  };
}
function node(name: string, o: { ready?: string; unschedulable?: boolean; taint?: string; gpus?: unknown } = {}): Json {
  return {
    metadata: { name },
    spec: { ...(o.unschedulable ? { unschedulable: true } : {}), taints: o.taint ? [{ key: o.taint, effect: 'NoSchedule' }] : [] },
    status: { conditions: [ready(o.ready ?? 'True')], allocatable: o.gpus === undefined ? { cpu: '8' } : { cpu: '64', 'nvidia.com/gpu': o.gpus } },
  };
}

describe('rolling-update checks', () => {
  const d = (status: Json, generation = 2) => ({ ...deployment(), metadata: { name: 'web', generation }, status });

  it('rolledOut needs the current generation observed, every replica updated and available, and Available=True', () => {
    const full = { observedGeneration: 2, replicas: 3, updatedReplicas: 3, availableReplicas: 3, conditions: [{ type: 'Available', status: 'True' }] };
    assert.equal(rolledOut(d(full)).done, true);
    assert.equal(rolledOut(d({ ...full, observedGeneration: 1 })).done, false, 'an old generation');
    assert.equal(rolledOut(d({ ...full, replicas: 4 })).done, false, 'a surge pod still there');
    assert.equal(rolledOut(d({ ...full, availableReplicas: 2 })).done, false);
    assert.equal(rolledOut(d({ ...full, conditions: [] })).done, false);
    assert.equal(rolledOut(d({ ...full, availableReplicas: 2 })).progress, '2/3 available, 3 up to date');
  });

  it('failingPod finds a failing pod of the new ReplicaSet only', () => {
    const pods = [pod('old-1', { owner: 'web-old', waiting: 'CrashLoopBackOff' }), pod('new-1', { owner: 'web-new', waiting: 'ContainerCreating' })];
    assert.equal(failingPod(pods, 'web-new').done, false, 'creating is not failing, and old pods do not count');
    for (const reason of ['ErrImagePull', 'ImagePullBackOff', 'CrashLoopBackOff']) {
      const r = failingPod([pod('new-1', { owner: 'web-new', waiting: reason })], 'web-new');
      assert.deepEqual(r, { done: true, detail: `new-1 is ${reason}` });
    }
    assert.equal(failingPod([pod('new-1', { owner: 'web-new', restarts: 2 })], 'web-new').detail, 'new-1 is restarted 2 times');
    assert.equal(failingPod([pod('new-1', { owner: 'web-new', waiting: 'ErrImagePull', deleting: true })], 'web-new').done, false);
  });

  it('the broken release changes only the image, and only the good image counts as rolled back', () => {
    const good = deployment();
    assert.equal(templateImage(good), goodImage);
    assert.equal(backOnGoodTemplate(good), true);
    const patch = brokenRelease() as { spec: { template: Json & { spec: { containers: Json[] } } } };
    assert.deepEqual(Object.keys(patch.spec.template), ['spec']);
    const broken = structuredClone(good) as { spec: { template: { spec: { containers: Json[] } } } };
    broken.spec.template.spec.containers[0].image = patch.spec.template.spec.containers[0].image;
    assert.equal(templateImage(broken), badImage);
    assert.equal(backOnGoodTemplate(broken), false);
  });

  it('containerTrouble ignores healthy and starting containers', () => {
    assert.equal(containerTrouble(pod('a', { node: 'n' })), undefined);
    assert.equal(containerTrouble(pod('a', { waiting: 'PodInitializing' })), undefined);
    assert.equal(containerTrouble({ status: { containerStatuses: [{ state: { terminated: { exitCode: 1, reason: 'Error' } } }] } }), 'Error');
    assert.equal(containerTrouble({ status: 'garbage' }), undefined);
  });
});

describe('node-failure checks', () => {
  it('usableNodes leaves out NotReady, cordoned and tainted nodes', () => {
    const nodes = [node('w3'), node('w1'), node('w2', { ready: 'Unknown' }), node('w4', { unschedulable: true }), node('gpu', { taint: 'nvidia.com/gpu', gpus: '8' })];
    assert.deepEqual(usableNodes(nodes), ['w1', 'w3']);
    assert.equal(nodeReady(node('x', { ready: 'False' })), false);
  });

  it('busiestNode picks the node with most live pods, ties by name', () => {
    const pods = [pod('a', { node: 'w2' }), pod('b', { node: 'w2' }), pod('c', { node: 'w1' }), pod('d', { node: 'w3', deleting: true }), pod('e', { node: 'w3', deleting: true }), pod('f', { node: 'w3', deleting: true })];
    assert.equal(busiestNode(pods, ['w1', 'w2', 'w3']), 'w2');
    assert.equal(busiestNode([], ['w3', 'w1']), 'w1');
  });

  it('evictedAndReplaced waits for every pod on the failed node to be deleting and four ready elsewhere', () => {
    const base = [pod('a', { node: 'w2', ready: true }), pod('b', { node: 'w3', ready: true }), pod('c', { node: 'w3', ready: true })];
    assert.equal(evictedAndReplaced([...base, pod('x', { node: 'w1', ready: true }), pod('y', { node: 'w2', ready: false })], 'w1').done, false);
    const r = evictedAndReplaced([...base, pod('x', { node: 'w1', deleting: true }), pod('y', { node: 'w2', ready: true })], 'w1');
    assert.equal(r.done, true);
    assert.match(r.detail!, /^1 pod evicted from w1 .* 4 ready elsewhere$/);
    assert.equal(evictedAndReplaced([...base, pod('x', { node: 'w1', deleting: true })], 'w1').done, false, 'only three ready');
  });

  it('drained needs the node cordoned and empty, with all replicas ready', () => {
    const elsewhere = ['a', 'b', 'c', 'd'].map((n) => pod(n, { node: 'w3', ready: true }));
    assert.equal(drained(node('w2', { unschedulable: true }), elsewhere).done, true);
    assert.equal(drained(node('w2'), elsewhere).done, false, 'not cordoned');
    assert.equal(drained(node('w2', { unschedulable: true }), [...elsewhere, pod('e', { node: 'w2', deleting: true })]).done, false, 'a pod still terminating there');
    assert.equal(drained(node('w2', { unschedulable: true }), elsewhere.slice(1)).done, false, 'a replacement not ready yet');
  });

  it('the manifests: a PDB with minAvailable 3 over the Deployment\'s pods, which tolerate an unreachable node briefly', () => {
    const { deployment: d, pdb } = manifests() as { deployment: any; pdb: any };
    assert.deepEqual(pdb.spec, { minAvailable: 3, selector: { matchLabels: { app: 'frontend' } } });
    assert.equal(d.spec.replicas, 4);
    assert.ok(d.spec.template.spec.tolerations.some((t: Json) => t.key === 'node.kubernetes.io/unreachable' && t.tolerationSeconds === 30));
  });
});

describe('gpu-gang checks', () => {
  it('counts GPUs of Ready nodes only, and sizes the gang two pods past them', () => {
    const nodes = [node('w1'), node('gpu-1', { gpus: '8' }), node('gpu-2', { gpus: 6 }), node('gpu-3', { gpus: '8', ready: 'Unknown' })];
    assert.equal(nodeGpus(nodes[1]), 8);
    assert.equal(nodeGpus(nodes[3]), 0);
    assert.equal(gangPlaces(nodes), 3);
    assert.equal(gangSize(nodes), 5);
    assert.equal(gangSize([]), 2);
    // Hostile keys in allocatable count for nothing.
    assert.equal(nodeGpus({ status: { conditions: [ready('True')], allocatable: JSON.parse('{"__proto__": {"nvidia.com/gpu": "8"}}') } }), 0);
    assert.equal(nodeGpus(node('g', { gpus: 'lots' })), 0);
  });

  it('freeGpuNodeName skips taken names; applyCommand is one pasteable line', () => {
    assert.equal(freeGpuNodeName([node('bonsai-gpu-1'), node('bonsai-gpu-3')]), 'bonsai-gpu-2');
    const line = applyCommand(gpuNode('bonsai-gpu-2'));
    assert.match(line, /^echo '\{.*\}' \| kubectl apply -f -$/);
    assert.ok(!line.includes('\n'));
    const manifest = JSON.parse(line.slice("echo '".length, line.indexOf("' | kubectl")));
    assert.equal(manifest.status.capacity['nvidia.com/gpu'], '8');
    assert.equal(manifest.metadata.name, 'bonsai-gpu-2');
  });

  it('pendingForGpus: every pod there, none bound, one saying Insufficient nvidia.com/gpu', () => {
    const msg = '0/4 nodes are available: 4 Insufficient nvidia.com/gpu.';
    const pending = [pod('train-0', { scheduled: msg }), pod('train-1'), pod('train-2')];
    assert.deepEqual(pendingForGpus(pending, 3), { done: true, detail: `train-0 says "${msg}"` });
    assert.equal(pendingForGpus(pending.slice(0, 2), 3).done, false, 'a pod missing');
    assert.equal(pendingForGpus([pod('train-0', { scheduled: 'waiting' }), pod('train-1'), pod('train-2')], 3).done, false, 'no GPU message');
    assert.equal(pendingForGpus([...pending.slice(0, 2), pod('train-2', { node: 'gpu-1' })], 3).done, false, 'one bound');
  });

  it('wholeGangRejected and gangPlaced', () => {
    const rejected = ['a', 'b'].map((n) => pod(n, { scheduled: 'rejected due to timeout' }));
    assert.equal(wholeGangRejected(rejected, 2).done, true);
    assert.equal(wholeGangRejected([rejected[0], pod('b')], 2).done, false);
    const placed = [pod('a', { node: 'gpu-2' }), pod('b', { node: 'gpu-1' }), pod('c', { node: 'gpu-1' })];
    assert.deepEqual(gangPlaced(placed, 3), { done: true, detail: '2 on gpu-1, 1 on gpu-2', progress: '3/3 bound, 3 running' });
    assert.equal(gangPlaced([...placed.slice(0, 2), pod('c', { node: 'gpu-1', phase: 'Pending' })], 3).done, false, 'not yet running');
    assert.equal(gangPlaced(placed.slice(0, 2), 3).done, false);
  });
});
