// DaemonSets with real kubectl: one pod per eligible node, nodes joining and leaving, taints and tolerations,
// node selectors, RollingUpdate node by node (watched), rollout history and undo, OnDelete, and a rollout that
// finishes while a node is stopped. The clock runs 10x so node grace periods pass in seconds.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';
import { runBonsai } from '../helpers/server.js';

type Json = Record<string, any>;

const defaultNodes = ['bonsai-gpu-1', 'bonsai-worker-1', 'bonsai-worker-2', 'bonsai-worker-3'];
/** Node agents tolerate the taint of the GPU node (nvidia.com/gpu=present:NoSchedule), as they do on managed clusters. */
const gpuToleration = { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' };

function daemonSet(name: string, spec: Json = {}, podSpec: Json = {}, annotations: Record<string, string> = {}): string {
  const tolerations = [gpuToleration, ...(podSpec.tolerations ?? [])];
  return JSON.stringify({
    apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name }, annotations }, spec: { containers: [{ name: 'agent', image: 'agent:1' }], ...podSpec, tolerations } },
      ...spec,
    },
  });
}

const bonsai = runBonsai;

describe('daemonsets', () => {
  const env = useKubectlServer({ args: [...noAddons, '--clock-speed', '10'] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const live = async (app: string) => ((await getJson('pods', '-l', `app=${app}`)).items as Json[]).filter((p) => !p.metadata.deletionTimestamp);
  const ready = (p: Json) => p.status?.conditions?.some((c: Json) => c.type === 'Ready' && c.status === 'True');
  const nodesOf = async (app: string) => (await live(app)).map((p) => p.spec.nodeName as string).sort();
  const status = async (name: string) => (await getJson('ds', name)).status as Json;

  it('runs one pod on every untainted node, pinned by node affinity, with daemon tolerations and labels', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: daemonSet('agent') });
    await eventually(async () => {
      const pods = await live('agent');
      return pods.length === 4 && pods.every(ready);
    }, 15_000, 'four ready agent pods');
    assert.deepEqual(await nodesOf('agent'), defaultNodes);
    await eventually(async () => (await status('agent')).numberAvailable === 4, 10_000, 'status caught up');
    assert.match(await env.k.ok(['get', 'ds', 'agent']), /^agent\s+4\s+4\s+4\s+4\s+4\s+<none>\s+\d+s$/m);
    const st = await status('agent');
    assert.deepEqual([st.desiredNumberScheduled, st.currentNumberScheduled, st.numberMisscheduled, st.numberReady, st.updatedNumberScheduled, st.observedGeneration], [4, 4, 0, 4, 4, 1]);
    assert.equal(st.numberUnavailable, undefined);

    const ds = await getJson('ds', 'agent');
    assert.equal(ds.metadata.annotations['deprecated.daemonset.template.generation'], '1');
    const [pod] = await live('agent');
    const hash = pod.metadata.labels['controller-revision-hash'];
    assert.equal(pod.metadata.labels['pod-template-generation'], '1');
    assert.deepEqual(pod.metadata.ownerReferences.map((r: Json) => [r.kind, r.name, r.controller]), [['DaemonSet', 'agent', true]]);
    assert.deepEqual(pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms,
      [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [pod.spec.nodeName] }] }]);
    assert.deepEqual(pod.spec.tolerations.map((t: Json) => `${t.key}:${t.operator}:${t.effect}:${t.tolerationSeconds ?? ''}`), [
      'nvidia.com/gpu:Exists:NoSchedule:', 'node.kubernetes.io/not-ready:Exists:NoExecute:', 'node.kubernetes.io/unreachable:Exists:NoExecute:',
      'node.kubernetes.io/disk-pressure:Exists:NoSchedule:', 'node.kubernetes.io/memory-pressure:Exists:NoSchedule:',
      'node.kubernetes.io/pid-pressure:Exists:NoSchedule:', 'node.kubernetes.io/unschedulable:Exists:NoSchedule:',
    ]);
    const revs = (await getJson('controllerrevisions', '-l', 'app=agent')).items as Json[];
    assert.equal(revs.length, 1);
    assert.equal(revs[0].metadata.name, `agent-${hash}`);
    assert.equal(revs[0].revision, 1);
    assert.equal(revs[0].data.spec.template.$patch, 'replace');
    assert.equal(revs[0].data.spec.template.spec.containers[0].image, 'agent:1');
    const events = await env.k.ok(['get', 'events', '--field-selector', 'involvedObject.kind=DaemonSet,involvedObject.name=agent']);
    assert.match(events, /SuccessfulCreate\s+daemonset\/agent\s+Created pod: agent-[a-z0-9]{5}/);
    await env.k.ok(['rollout', 'status', 'ds/agent', '--timeout=10s']);
  });

  it('adds a pod for a new node and does not recreate it once the node is deleted', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-1' }, status: { capacity: { cpu: '2', memory: '4Gi' } } }) });
    await eventually(async () => (await nodesOf('agent')).includes('edge-1'), 15_000, 'agent pod on edge-1');
    await eventually(async () => (await status('agent')).numberAvailable === 5, 10_000, 'five available');
    await env.k.ok(['delete', 'node', 'edge-1']);
    await eventually(async () => (await status('agent')).desiredNumberScheduled === 4, 10_000, 'desired back to four');
    // Pod GC removes the orphaned pod after its quarantine; the DaemonSet must not put one back.
    await eventually(async () => !(await getJson('pods', '-l', 'app=agent')).items.some((p: Json) => p.spec.nodeName === 'edge-1'), 20_000, 'edge-1 pod collected');
    assert.deepEqual(await nodesOf('agent'), defaultNodes);
  });

  it('respects taints (NoExecute evicts, a toleration admits) and node selectors', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: daemonSet('tolerant', {}, { tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }] }) });
    await env.k.ok(['label', 'node', 'bonsai-worker-1', 'bonsai-worker-2', 'disk=ssd']);
    await env.k.ok(['apply', '-f', '-'], { input: daemonSet('ssd', {}, { nodeSelector: { disk: 'ssd' } }) });
    await eventually(async () => (await nodesOf('ssd')).join() === 'bonsai-worker-1,bonsai-worker-2', 15_000, 'ssd pods on labelled nodes');
    await eventually(async () => (await nodesOf('tolerant')).length === 4, 15_000, 'tolerant pods everywhere');
    assert.match(await env.k.ok(['get', 'ds', 'ssd']), /^ssd\s+2\s+2\s+\d\s+2\s+\d\s+disk=ssd\s/m);

    await env.k.ok(['taint', 'node', 'bonsai-worker-3', 'dedicated=infra:NoExecute']);
    await eventually(async () => !(await nodesOf('agent')).includes('bonsai-worker-3'), 15_000, 'agent pod leaves the tainted node');
    await eventually(async () => (await status('agent')).desiredNumberScheduled === 3, 10_000, 'agent desires three');
    assert.deepEqual(await nodesOf('tolerant'), defaultNodes, 'the tolerating DaemonSet keeps its pod');
    assert.equal((await status('tolerant')).desiredNumberScheduled, 4);

    await env.k.ok(['label', 'node', 'bonsai-worker-2', 'disk-']);
    await eventually(async () => (await nodesOf('ssd')).join() === 'bonsai-worker-1', 15_000, 'ssd pod leaves the unlabelled node');

    await env.k.ok(['taint', 'node', 'bonsai-worker-3', 'dedicated-']);
    await env.k.ok(['label', 'node', 'bonsai-worker-1', 'disk-']);
    await eventually(async () => (await nodesOf('agent')).length === 4, 15_000, 'agent pod back on the untainted node');
    await eventually(async () => (await live('ssd')).length === 0, 15_000, 'no ssd nodes left');
    assert.equal((await status('ssd')).desiredNumberScheduled, 0);
    await env.k.ok(['delete', 'ds', 'tolerant', 'ssd']);
  });

  it('rolls an update node by node within maxUnavailable, keeps history, and undoes it', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: daemonSet('roll', {}, {}, { 'bonsai.dev/ready-seconds': '5' }) });
    await eventually(async () => (await status('roll')).numberAvailable === 4, 20_000, 'roll available');
    const watch = env.k.start(['get', 'pods', '-l', 'app=roll', '-w', '--output-watch-events', '-o',
      'jsonpath={.type} {.object.metadata.name} {.object.spec.nodeName} {.object.metadata.deletionTimestamp}/{.object.status.conditions[?(@.type=="Ready")].status}{"\\n"}']);
    try {
      await eventually(() => watch.out().split('\n').filter((l) => l.startsWith('ADDED')).length >= 4, 10_000, 'watch started');
      await env.k.ok(['set', 'image', 'ds/roll', 'agent=agent:2']);
      const rollout = await env.k.ok(['rollout', 'status', 'ds/roll', '--timeout=40s']);
      assert.match(rollout, /daemon set "roll" successfully rolled out/);
      await eventually(async () => (await live('roll')).every((p) => p.spec.containers[0].image === 'agent:2' && ready(p)), 10_000, 'all pods updated');
    } finally {
      watch.stop();
    }
    const out = watch.out();
    // Replay the watch: a node is available when it holds a Ready pod that is not being deleted.
    const pods = new Map<string, { node: string; ok: boolean }>();
    let peak = 0;
    const lines = out.split('\n');
    lines.forEach((line, i) => {
      const [type, name, node, state] = line.split(' ');
      if (!type || !name) return;
      if (type === 'DELETED') pods.delete(name);
      else pods.set(name, { node, ok: state === '/True' });
      if (i < 3) return; // the watch's initial list of four
      const availableNodes = new Set([...pods.values()].filter((p) => p.ok).map((p) => p.node));
      peak = Math.max(peak, 4 - availableNodes.size);
    });
    assert.equal(peak, 1, `never more than maxUnavailable=1 node without an available pod\n${out}`);

    const st = await status('roll');
    assert.deepEqual([st.updatedNumberScheduled, st.numberAvailable, st.observedGeneration], [4, 4, 2]);
    const history = await env.k.ok(['rollout', 'history', 'ds/roll']);
    assert.match(history, /^1\s+<none>$/m);
    assert.match(history, /^2\s+<none>$/m);
    assert.match(await env.k.ok(['rollout', 'history', 'ds/roll', '--revision=1']), /Image:\s+agent:1/);
    assert.match(await env.k.ok(['rollout', 'undo', 'ds/roll']), /daemonset.apps\/roll rolled back/);
    await env.k.ok(['rollout', 'status', 'ds/roll', '--timeout=40s']);
    const pods2 = await live('roll');
    assert.ok(pods2.length === 4 && pods2.every((p) => p.spec.containers[0].image === 'agent:1'), 'rolled back to agent:1');
    const revs = ((await getJson('controllerrevisions', '-l', 'app=roll')).items as Json[]).map((r) => r.revision).sort();
    assert.deepEqual(revs, [2, 3], 'revision 1 renumbered to 3');
    assert.equal(pods2[0].metadata.labels['pod-template-generation'], '3');
    await env.k.ok(['delete', 'ds', 'roll']);
  });

  it('surges with maxSurge: the old pod goes only once its replacement is available', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: daemonSet('surge', { minReadySeconds: 2, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }) });
    await eventually(async () => (await status('surge')).numberAvailable === 4, 20_000, 'surge available');
    const watch = env.k.start(['get', 'pods', '-l', 'app=surge', '-w', '--output-watch-events', '-o',
      'jsonpath={.type} {.object.metadata.name} {.object.spec.nodeName} {.object.metadata.deletionTimestamp}/{.object.status.conditions[?(@.type=="Ready")].status}{"\\n"}']);
    try {
      await eventually(() => watch.out().split('\n').filter((l) => l.startsWith('ADDED')).length >= 4, 10_000, 'watch started');
      await env.k.ok(['set', 'image', 'ds/surge', 'agent=agent:2']);
      await env.k.ok(['rollout', 'status', 'ds/surge', '--timeout=40s']);
      await eventually(async () => (await live('surge')).every((p) => p.spec.containers[0].image === 'agent:2'), 10_000, 'all surge pods updated');
    } finally {
      watch.stop();
    }
    const out = watch.out();
    const pods = new Map<string, { node: string; ok: boolean; alive: boolean }>();
    let fewestAvailable = 4;
    let most = 0;
    out.split('\n').forEach((line, i) => {
      const [type, name, node, state] = line.split(' ');
      if (!type || !name) return;
      if (type === 'DELETED') pods.delete(name);
      else pods.set(name, { node, ok: state === '/True', alive: state.startsWith('/') });
      if (i < 3) return;
      fewestAvailable = Math.min(fewestAvailable, new Set([...pods.values()].filter((p) => p.ok).map((p) => p.node)).size);
      most = Math.max(most, [...pods.values()].filter((p) => p.alive).length);
    });
    assert.equal(fewestAvailable, 4, `maxUnavailable 0: every node keeps an available pod\n${out}`);
    assert.equal(most, 5, `maxSurge 1: one extra pod at a time\n${out}`);
    await env.k.ok(['delete', 'ds', 'surge']);
  });

  it('OnDelete replaces a pod only once it is deleted', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: daemonSet('manual', { updateStrategy: { type: 'OnDelete' } }) });
    await eventually(async () => (await status('manual')).numberAvailable === 4, 15_000, 'manual available');
    await env.k.ok(['set', 'image', 'ds/manual', 'agent=agent:2']);
    // The controller saw the new template (observedGeneration 2) and left every pod as it was.
    await eventually(async () => (await status('manual')).observedGeneration === 2, 10_000, 'generation observed');
    const st = await status('manual');
    assert.equal(st.updatedNumberScheduled, undefined);
    assert.equal(st.numberAvailable, 4);
    assert.ok((await live('manual')).every((p) => p.spec.containers[0].image === 'agent:1'));
    assert.match((await env.k.fails(['rollout', 'status', 'ds/manual'])), /rollout status is only available for RollingUpdate strategy type/);

    const victim = (await live('manual')).find((p) => p.spec.nodeName === 'bonsai-worker-2')!;
    await env.k.ok(['delete', 'pod', victim.metadata.name]);
    const replacement = await eventually(async () => (await live('manual')).find((p) => p.spec.nodeName === 'bonsai-worker-2' && p.metadata.name !== victim.metadata.name), 15_000, 'replacement pod');
    assert.equal(replacement.spec.containers[0].image, 'agent:2');
    await eventually(async () => (await status('manual')).updatedNumberScheduled === 1, 10_000, 'one updated');
    assert.equal((await live('manual')).filter((p) => p.spec.containers[0].image === 'agent:1').length, 3);
    await env.k.ok(['delete', 'ds', 'manual']);
  });

  it('finishes a rolling update while a node is stopped; the stopped node catches up when it returns', async () => {
    const stop = await bonsai(['node', 'stop', 'bonsai-worker-3', '--kubeconfig', env.server.kubeconfig]);
    assert.equal(stop.code, 0, stop.stderr);
    // NotReady: the unreachable NoSchedule taint is not tolerated, so the node leaves desiredNumberScheduled and its
    // pod (which tolerates the NoExecute taint) counts as misscheduled.
    await eventually(async () => {
      const s = await status('agent');
      return s.desiredNumberScheduled === 3 && s.numberMisscheduled === 1;
    }, 20_000, 'stopped node leaves the desired set');
    await env.k.ok(['set', 'image', 'ds/agent', 'agent=agent:2']);
    await env.k.ok(['rollout', 'status', 'ds/agent', '--timeout=30s']);
    const pods = (await getJson('pods', '-l', 'app=agent')).items as Json[];
    const stuck = pods.filter((p) => p.spec.nodeName === 'bonsai-worker-3');
    assert.equal(stuck.length, 1);
    assert.ok(stuck[0].metadata.deletionTimestamp, 'the old pod on the stopped node is terminating');
    assert.deepEqual(pods.filter((p) => p.spec.nodeName !== 'bonsai-worker-3').map((p) => p.spec.containers[0].image), ['agent:2', 'agent:2', 'agent:2']);

    await bonsai(['node', 'start', 'bonsai-worker-3', '--kubeconfig', env.server.kubeconfig]);
    await eventually(async () => {
      const p = (await live('agent')).find((x) => x.spec.nodeName === 'bonsai-worker-3');
      return p && p.spec.containers[0].image === 'agent:2' && ready(p);
    }, 20_000, 'updated pod on the returning node');
    await eventually(async () => {
      const s = await status('agent');
      return s.desiredNumberScheduled === 4 && s.updatedNumberScheduled === 4 && s.numberAvailable === 4 && s.numberMisscheduled === 0;
    }, 10_000, 'status whole again');
  });
});
