// Acceptance: `kubectl drain --ignore-daemonsets` of a node holding several replicas of a Deployment protected by
// a PodDisruptionBudget (maxUnavailable 1) evicts them one budget at a time, the Deployment replaces them on other
// nodes, and the DaemonSet pod on the node is left alone.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;

const replicas = 4;

const deployment = JSON.stringify({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        // Prefer one node, so the drained node holds every replica to begin with.
        affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, preference: { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['bonsai-worker-1'] }] } }] } },
        containers: [{ name: 'web', image: 'nginx' }],
      },
    },
  },
});

// A node agent tolerates every taint (the GPU node's and the control-plane node's too), as real node agents do.
const daemonSet = JSON.stringify({
  apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'node-agent' },
  spec: { selector: { matchLabels: { app: 'node-agent' } }, template: { metadata: { labels: { app: 'node-agent' } }, spec: { tolerations: [{ operator: 'Exists' }], containers: [{ name: 'agent', image: 'agent' }] } } },
});

describe('drain with workloads', () => {
  const env = useKubectlServer({ args: [...noAddons] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const ready = (p: Json) => !p.metadata.deletionTimestamp && p.status?.conditions?.some((c: Json) => c.type === 'Ready' && c.status === 'True');

  it('evicts a Deployment one disruption at a time and replaces its pods elsewhere', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: deployment });
    await env.k.ok(['apply', '-f', '-'], { input: daemonSet });
    await env.k.ok(['create', 'pdb', 'web', '--selector=app=web', '--max-unavailable=1']);
    await eventually(async () => ((await getJson('pods', '-l', 'app=web')).items as Json[]).filter(ready).length === replicas, 20_000, 'all replicas ready');
    await eventually(async () => ((await getJson('pods', '-l', 'app=node-agent')).items as Json[]).filter(ready).length === 5, 20_000, 'daemon pods ready');
    const pdb = await eventually(async () => {
      const p = await getJson('pdb', 'web');
      return p.status?.currentHealthy === replicas && p;
    }, 10_000, 'budget sees every replica');
    assert.deepEqual([pdb.status.expectedPods, pdb.status.desiredHealthy, pdb.status.disruptionsAllowed], [replicas, replicas - 1, 1]);
    assert.match(await env.k.ok(['get', 'pdb', 'web']), /^web\s+N\/A\s+1\s+1\s+\d+s$/m);

    // Drain the node holding the most replicas (with the preference above: all of them).
    const byNode = new Map<string, number>();
    for (const p of (await getJson('pods', '-l', 'app=web')).items as Json[]) byNode.set(p.spec.nodeName, (byNode.get(p.spec.nodeName) ?? 0) + 1);
    const [node, count] = [...byNode.entries()].sort((a, b) => b[1] - a[1])[0];
    assert.ok(count >= 2, `a node with several replicas: ${JSON.stringify([...byNode])}`);

    const watch = env.k.start(['get', 'pods', '-l', 'app=web', '-w', '--output-watch-events', '-o',
      'jsonpath={.type} {.object.metadata.name} {.object.metadata.deletionTimestamp}/{.object.status.conditions[?(@.type=="Ready")].status}{"\\n"}']);
    let drain: { code: number | null; stdout: string; stderr: string };
    try {
      await eventually(() => watch.out().split('\n').filter((l) => l.startsWith('ADDED')).length >= replicas, 10_000, 'watch started');
      drain = await env.k.run(['drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=50s'], { timeoutMs: 55_000 });
      await eventually(async () => {
        const pods = ((await getJson('pods', '-l', 'app=web')).items as Json[]).filter(ready);
        return pods.length === replicas && pods.every((p) => p.spec.nodeName !== node);
      }, 20_000, 'replicas ready elsewhere');
    } finally {
      watch.stop();
    }
    const watched = watch.out();
    assert.equal(drain.code, 0, `drain failed\n${drain.stdout}\n${drain.stderr}`);
    assert.match(drain.stdout, new RegExp(`node/${node} cordoned`));
    assert.match(drain.stdout, new RegExp(`node/${node} drained`));
    assert.match(drain.stderr, /Warning: ignoring DaemonSet-managed Pods: default\/node-agent-[a-z0-9]{5}/);
    assert.match(drain.stderr, /error when evicting pods\/"web-[a-z0-9]+-[a-z0-9]{5}" -n "default" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./);
    assert.equal((drain.stdout.match(/^pod\/web-\S+ evicted$/gm) ?? []).length, count);

    // Replay the watch: never fewer ready replicas than the budget's desiredHealthy.
    const state = new Map<string, boolean>();
    let worst = replicas;
    watched.split('\n').forEach((line, i) => {
      const [type, name, st] = line.split(' ');
      if (!type || !name) return;
      if (type === 'DELETED') state.delete(name);
      else state.set(name, st === '/True');
      if (i >= replicas - 1) worst = Math.min(worst, [...state.values()].filter(Boolean).length);
    });
    assert.equal(worst, replicas - 1, `at most one replica unavailable at any time\n${watched}`);

    assert.match(await env.k.ok(['get', 'node', node]), /Ready,SchedulingDisabled/);
    const agents = (await getJson('pods', '-l', 'app=node-agent')).items as Json[];
    assert.ok(agents.some((p) => p.spec.nodeName === node && ready(p)), 'the DaemonSet pod stays on the drained node');
    const deploy = await getJson('deployment', 'web');
    assert.equal(deploy.status.availableReplicas, replicas);
    await eventually(async () => (await getJson('pdb', 'web')).status.disruptionsAllowed === 1, 10_000, 'budget restored');
  });

  it('PodDisruptionBudget status follows the controllers\' scale, and reports what it cannot compute', async () => {
    const events = async (name: string) => env.k.ok(['get', 'events', '--field-selector', `involvedObject.kind=PodDisruptionBudget,involvedObject.name=${name}`]);
    const cond = (p: Json) => p.status?.conditions?.find((c: Json) => c.type === 'DisruptionAllowed');
    // A percentage is taken of the Deployment's replicas, not of the pods that happen to exist.
    await env.k.ok(['create', 'pdb', 'web-pct', '--selector=app=web', '--min-available=50%']);
    await eventually(async () => (await getJson('pdb', 'web-pct')).status?.expectedPods === replicas, 10_000, 'percentage budget synced');
    await env.k.ok(['scale', 'deployment', 'web', '--replicas=6']);
    const scaled = await eventually(async () => {
      const p = await getJson('pdb', 'web-pct');
      return p.status.expectedPods === 6 && p.status.currentHealthy === 6 && p;
    }, 20_000, 'budget follows the new scale');
    assert.deepEqual([scaled.status.desiredHealthy, scaled.status.disruptionsAllowed, cond(scaled).reason, cond(scaled).status], [3, 3, 'SufficientPods', 'True']);
    const described = await env.k.ok(['describe', 'pdb', 'web-pct']);
    assert.match(described, /Min available:\s+50%/);
    assert.match(described, /Allowed disruptions:\s+3\n\s+Current:\s+6\n\s+Desired:\s+3\n\s+Total:\s+6/);

    // maxUnavailable over DaemonSet pods: DaemonSets have no scale, so the budget fails safe.
    await env.k.ok(['create', 'pdb', 'agents', '--selector=app=node-agent', '--max-unavailable=1']);
    const failed = await eventually(async () => {
      const p = await getJson('pdb', 'agents');
      return cond(p)?.reason === 'SyncFailed' && p;
    }, 10_000, 'SyncFailed');
    assert.deepEqual([cond(failed).status, cond(failed).message, failed.status.disruptionsAllowed], ['False', 'daemonsets.apps does not implement the scale subresource', 0]);
    assert.match(await events('agents'), /Warning\s+CalculateExpectedPodCountFailed\s+poddisruptionbudget\/agents\s+Failed to calculate the number of expected pods: daemonsets.apps does not implement the scale subresource/);
    // An integer minAvailable just counts the pods.
    await env.k.ok(['create', 'pdb', 'agents-min', '--selector=app=node-agent', '--min-available=3']);
    const counted = await eventually(async () => {
      const p = await getJson('pdb', 'agents-min');
      return p.status?.expectedPods === 5 && p;
    }, 10_000, 'integer budget synced');
    assert.deepEqual([counted.status.currentHealthy, counted.status.desiredHealthy, counted.status.disruptionsAllowed], [5, 3, 2]);

    // A bare pod has no controller to scale: it is left out and reported.
    await env.k.ok(['run', 'lone', '--image=nginx', '--labels=app=lone']);
    await env.k.ok(['create', 'pdb', 'lone', '--selector=app=lone', '--max-unavailable=1']);
    const lone = await eventually(async () => {
      const p = await getJson('pdb', 'lone');
      return p.status?.currentHealthy === 1 && p;
    }, 10_000, 'lone budget synced');
    assert.deepEqual([lone.status.expectedPods, lone.status.desiredHealthy, lone.status.disruptionsAllowed, cond(lone).reason], [0, 0, 0, 'InsufficientPods']);
    assert.match(await events('lone'), /Warning\s+UnmanagedPods\s+poddisruptionbudget\/lone\s+Pods selected by this PodDisruptionBudget \(selector: &LabelSelector\{MatchLabels:map\[string\]string\{app: lone,\},MatchExpressions:\[\]LabelSelectorRequirement\{\},\}\) were found to be unmanaged\./);
    assert.match(await env.k.ok(['get', 'pdb']), /^lone\s+N\/A\s+1\s+0\s+\d+s$/m);

    await env.k.ok(['create', 'pdb', 'nothing', '--selector=app=nothing', '--min-available=1']);
    await eventually(async () => /Normal\s+NoPods\s+poddisruptionbudget\/nothing\s+No matching pods found/.test(await events('nothing')), 10_000, 'NoPods event');
  });
});
