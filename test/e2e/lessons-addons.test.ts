// The add-on lessons as a learner meets them: `bonsai lesson NAME` runs against a `bonsai serve` with its add-ons
// (clock 10x), and the test plays the learner, running the kubectl commands the lesson asks for, then checks the ✓
// lines, the exit code and the cluster. Each lesson works in its own namespace and leaves a learner's objects alone.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer } from '../helpers/cluster.js';
import { eventually } from '../helpers/kubectl.js';
import { LessonRun } from '../helpers/lesson-run.js';
import { runBonsai } from '../helpers/server.js';

type Json = Record<string, any>;

/** The `-p` document of a printed `kubectl … patch … -p '{…}'` line, and the arguments before it. */
function patchArgs(line: string): string[] {
  const m = /^kubectl (.*) -p '(\{.*\})'$/.exec(line.trim());
  assert.ok(m, `a kubectl patch line: ${line}`);
  return [...m[1].split(/\s+/), '-p', m[2]];
}

describe('bonsai lesson: the add-on lessons', () => {
  const env = useKubectlServer({ args: ['--clock-speed', '10'] });
  const lesson = (name: string) => new LessonRun(name, env.server.kubeconfig);
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const uids = (list: Json) => (list.items as Json[]).map((p) => `${p.metadata.name}=${p.metadata.uid}`).sort();

  it('bonsai lesson lists the four add-on lessons after the others', async () => {
    const r = await runBonsai(['lesson']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}gpus-with-dra .*\n {2}lws-group {2,}a LeaderWorkerSet.*\n {2}karpenter-consolidation {2}Karpenter .*\n {2}keda-scale-to-zero {2,}KEDA .*\n {2}vpa-in-place {2,}a VerticalPodAutoscaler /m);
  });

  it('lws-group: deleting one worker recreates its whole group, the other untouched; scaling adds a group', async () => {
    // A learner's objects: a ConfigMap in the lesson's namespace and a LeaderWorkerSet of the lesson's name elsewhere.
    await env.k.ok(['create', 'namespace', 'lesson-lws-group']);
    await env.k.ok(['-n', 'lesson-lws-group', 'create', 'configmap', 'notes', '--from-literal=mine=yes']);
    const notes = (await getJson('-n', 'lesson-lws-group', 'configmap', 'notes')).metadata.uid;
    const run = lesson('lws-group');
    await run.waitFor(/✓ both groups are Ready: 2 groups of 3, 6 pods Ready/, 90_000);
    const before = await getJson('-n', 'lesson-lws-group', 'pods', '-l', 'leaderworkerset.sigs.k8s.io/group-index=0');
    const [, del] = await run.waitFor(/^ {2}kubectl (-n lesson-lws-group delete pod llm-1-2 --wait=false)/m);
    await env.k.ok(del.split(' '));
    await run.waitFor(/✓ the whole group was recreated: all 3 pods of group 1 are new, the other groups untouched \(event: Worker pod llm-1-2 failed, deleted leader pod llm-1 to recreate group 1\)/, 90_000);
    assert.deepEqual(uids(await getJson('-n', 'lesson-lws-group', 'pods', '-l', 'leaderworkerset.sigs.k8s.io/group-index=0')), uids(before), 'group 0 kept its pods');
    const [, scale] = await run.waitFor(/^ {2}kubectl (-n lesson-lws-group scale lws\/llm --replicas 3)/m);
    await env.k.ok(scale.split(' '));
    assert.equal(await run.finished(90_000), 0, run.output());
    assert.deepEqual(run.checks().map((l) => l.split(':')[0]), ['✓ both groups are Ready', '✓ the whole group was recreated', '✓ a third group serves']);
    assert.match(await env.k.ok(['-n', 'lesson-lws-group', 'get', 'lws', 'llm']), /^llm\s+3\s+3\s+3\s+/m);
    assert.equal((await getJson('-n', 'lesson-lws-group', 'configmap', 'notes')).metadata.uid, notes, 'the learner\'s ConfigMap is untouched');
  });

  it('karpenter-consolidation: refuses to replace a learner\'s NodePool; nodes are added for pods and consolidated away', async () => {
    await eventually(async () => (await env.k.run(['get', 'nodepools'])).code === 0, 60_000, 'the Karpenter CRDs');
    // A NodePool of the lesson's name that the learner made: the lesson stops rather than replace it.
    const mine = { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'karpenter-consolidation' }, spec: { template: { spec: { nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' }, requirements: [] } } } };
    await env.k.ok(['create', '-f', '-'], { input: JSON.stringify(mine) });
    const refused = lesson('karpenter-consolidation');
    assert.equal(await refused.finished(60_000), 1, refused.output());
    assert.match(refused.output(), /nodepools\/karpenter-consolidation exists and is not the lesson's \(no bonsai\.dev\/lesson=karpenter-consolidation label\)/);
    assert.ok((await getJson('nodepool', 'karpenter-consolidation')).metadata.labels?.['bonsai.dev/lesson'] === undefined, 'the learner\'s NodePool stays as it was');
    await env.k.ok(['delete', 'nodepool', 'karpenter-consolidation']);

    const run = lesson('karpenter-consolidation');
    const [, first] = await run.waitFor(/✓ Karpenter launched a node: 3 pods Running, 3 on (\S+) \(NodeClaims .*\(c-4x-amd64-linux\)\)$/m, 60_000);
    assert.match(await env.k.ok(['get', 'node', first, '-L', 'karpenter.sh/nodepool']), new RegExp(`^${first}\\s+Ready\\s+.*karpenter-consolidation$`, 'm'));
    const [, up] = await run.waitFor(/^ {2}kubectl (-n lesson-karpenter-consolidation scale deployment\/workers --replicas 9)/m);
    await env.k.ok(up.split(' '));
    const [, added] = await run.waitFor(/✓ Karpenter added nodes: (\d+) nodes; 9 pods Running/, 60_000);
    assert.ok(Number(added) >= 3, added);
    const claims = (await getJson('nodeclaims', '-l', 'karpenter.sh/nodepool=karpenter-consolidation')).items as Json[];
    assert.ok(claims.length >= 3, `${claims.length} NodeClaims`);
    const [, down] = await run.waitFor(/^ {2}kubectl (-n lesson-karpenter-consolidation scale deployment\/workers --replicas 2)/m);
    await env.k.ok(down.split(' '));
    assert.equal(await run.finished(90_000), 0, run.output());
    assert.match(run.output(), /✓ consolidation removed the spare nodes: (\d+) of \d+ nodes removed; 2 pods Running, 2 on \S+/);
    const nodes = (await getJson('nodes', '-l', 'karpenter.sh/nodepool=karpenter-consolidation')).items as Json[];
    assert.equal(nodes.filter((n) => !n.metadata.deletionTimestamp).length, 1);
    const terminating = (await getJson('events', '-A', '--field-selector', 'reason=DisruptionTerminating')).items as Json[];
    assert.ok(terminating.some((e) => /^Disrupting NodeClaim: (Empty|Underutilized)\/(Delete|Replace)/.test(e.message)), JSON.stringify(terminating.map((e) => e.message)));
  });

  it('keda-scale-to-zero: a second run starts over; the metric at 0 takes the consumer to no pods, raising it brings them back', async () => {
    // A first run the learner leaves with Ctrl-C after changing the metric; the next run starts over from its own objects.
    const left = lesson('keda-scale-to-zero');
    await left.waitFor(/✓ the consumer runs/, 60_000);
    await env.k.ok(['-n', 'lesson-keda-scale-to-zero', 'patch', 'configmap', 'bonsai-external-metrics', '--type', 'merge', '-p', '{"data":{"queue_length":"0"}}']);
    const firstUid = (await getJson('-n', 'lesson-keda-scale-to-zero', 'scaledobject', 'consumer')).metadata.uid;
    left.interrupt();
    assert.equal(await left.finished(), 130, left.output());
    const run = lesson('keda-scale-to-zero');
    await run.waitFor(/✓ the consumer runs: queue_length 4, 2 a pod: 2 replicas, ScaledObject Active/, 60_000);
    const metric = JSON.parse(await env.k.ok(['get', '--raw', '/apis/external.metrics.k8s.io/v1beta1/namespaces/lesson-keda-scale-to-zero/queue_length'])) as Json;
    assert.equal(metric.items[0].value, '4');
    assert.notEqual((await getJson('-n', 'lesson-keda-scale-to-zero', 'scaledobject', 'consumer')).metadata.uid, firstUid, 'a new ScaledObject');
    const [, zero] = await run.waitFor(/Step 2\/3: The queue empties\n {2}(kubectl .*)\n/);
    await env.k.ok(patchArgs(zero));
    await run.waitFor(/✓ scaled to zero: no pod left, ScaledObject Active=False/, 60_000);
    assert.equal((await getJson('-n', 'lesson-keda-scale-to-zero', 'deployment', 'consumer')).spec.replicas, 0);
    const deactivated = (await getJson('-n', 'lesson-keda-scale-to-zero', 'events', '--field-selector', 'reason=KEDAScaleTargetDeactivated')).items as Json[];
    assert.match(deactivated[0]?.message ?? '', /^Deactivated apps\/v1\.Deployment lesson-keda-scale-to-zero\/consumer from \d+ to 0$/);
    const [, refill] = await run.waitFor(/Step 3\/3: Work arrives\n {2}(kubectl .*)\n/);
    await env.k.ok(patchArgs(refill));
    assert.equal(await run.finished(60_000), 0, run.output());
    assert.match(run.output(), /✓ back from zero: 0 -> 1 by KEDA, 1 -> 3 by the HPA \(6 \/ 2\)/);
    assert.deepEqual(run.checks().map((l) => l.split(':')[0]), ['✓ the consumer runs', '✓ scaled to zero', '✓ back from zero']);
    const pods = (await getJson('-n', 'lesson-keda-scale-to-zero', 'pods', '-l', 'app=consumer')).items as Json[];
    assert.equal(pods.filter((p) => !p.metadata.deletionTimestamp && p.status.phase === 'Running').length, 3);
  });

  it('vpa-in-place: the recommendation, then the pods\' requests raised in place without a restart', async () => {
    const run = lesson('vpa-in-place');
    const [, target] = await run.waitFor(/✓ the VPA recommends: target cpu (\d+m), memory \S+/, 60_000);
    assert.notEqual(target, '100m');
    assert.match(await env.k.ok(['-n', 'lesson-vpa-in-place', 'get', 'vpa', 'api']), /^api\s+Off\s+\d+m\s+\S+\s+True\s+/m);
    const before = uids(await getJson('-n', 'lesson-vpa-in-place', 'pods', '-l', 'app=api'));
    assert.equal(before.length, 2);
    const [, patch] = await run.waitFor(/Step 2\/2: Let it resize in place\n {2}(kubectl .*)\n/);
    await env.k.ok(patchArgs(patch));
    assert.equal(await run.finished(60_000), 0, run.output());
    assert.match(run.output(), /✓ resized in place: api-\S+: cpu 100m -> \d+m, memory 64Mi -> \S+; 2 pods, same uids, 0 restarts/);
    const pods = await getJson('-n', 'lesson-vpa-in-place', 'pods', '-l', 'app=api');
    assert.deepEqual(uids(pods), before, 'the same pods');
    for (const p of pods.items as Json[]) {
      assert.notEqual(p.spec.containers[0].resources.requests.cpu, '100m');
      assert.equal(p.status.containerStatuses[0].restartCount, 0);
    }
    const resized = (await getJson('-n', 'lesson-vpa-in-place', 'events', '--field-selector', 'reason=InPlaceResizedByVPA')).items as Json[];
    assert.equal(new Set(resized.map((e) => e.involvedObject.name)).size, 2);
  });
});
