// Simulated nodes with real kubectl: registration, leases, node failure and taint-based eviction, cordon, taint,
// drain against a PodDisruptionBudget. The clock runs 10x so grace periods pass in seconds.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';
import { runBonsai } from '../helpers/server.js';

type Json = Record<string, any>;

const pod = (name: string, node: string, extra: Json = {}, labels: Record<string, string> = {}) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, labels },
  spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx' }], ...extra },
});

const bonsai = runBonsai;

describe('simulated nodes', () => {
  const env = useKubectlServer({ args: [...noAddons, '--clock-speed', '10'] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const taintsOf = async (node: string) => ((await getJson('node', node)).spec.taints ?? []) as Json[];
  const podReady = (p: Json) => p.status?.conditions?.find((c: Json) => c.type === 'Ready')?.status;

  it('registers a control-plane node, three workers and a GPU node, Ready, with versions and zones', async () => {
    // The simulated cluster registers its nodes just after the API starts answering, as kubelets do. As on kind, only
    // the control-plane node has a role.
    const names = ['bonsai-control-plane', 'bonsai-worker-1', 'bonsai-worker-2', 'bonsai-worker-3', 'bonsai-gpu-1'];
    const role = (name: string) => (name === 'bonsai-control-plane' ? 'control-plane' : '<none>');
    const row = (name: string) => new RegExp(`^${name}\\s+Ready\\s+${role(name)}\\s+\\S+\\s+v1\\.35\\.0$`, 'm');
    const out = await eventually(async () => {
      const o = await env.k.ok(['get', 'nodes']);
      return names.every((n) => row(n).test(o)) && o;
    }, 10_000, 'five Ready nodes');
    for (const name of names) assert.match(out, row(name));
    const zones = await env.k.ok(['get', 'nodes', '-L', 'topology.kubernetes.io/zone']);
    assert.match(zones, /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+ZONE$/m);
    assert.match(zones, /^bonsai-worker-2\s+Ready\s+<none>\s+\S+\s+v1\.35\.0\s+zone-b$/m);
    const gpu = await getJson('node', 'bonsai-gpu-1');
    assert.equal(gpu.status.allocatable['nvidia.com/gpu'], '8');
    assert.equal(gpu.metadata.labels['nvidia.com/gpu.product'], 'NVIDIA-H100-80GB-HBM3');
    const wide = await env.k.ok(['get', 'node', 'bonsai-worker-1', '-o', 'wide', '--no-headers']);
    assert.match(wide, /172\.18\.0\.\d+\s+<none>\s+Ubuntu 24\.04\.1 LTS\s+\S+\s+containerd:\/\/2\.0\.2/);
    const conditions = (await getJson('node', 'bonsai-worker-1')).status.conditions as Json[];
    assert.deepEqual(conditions.map((c) => `${c.type}=${c.status}/${c.reason}`), [
      'MemoryPressure=False/KubeletHasSufficientMemory', 'DiskPressure=False/KubeletHasNoDiskPressure',
      'PIDPressure=False/KubeletHasSufficientPID', 'Ready=True/KubeletReady',
    ]);
  });

  it('keeps a Lease per node in kube-node-lease and renews it', async () => {
    const leases = await getJson('leases', '-n', 'kube-node-lease');
    assert.deepEqual(leases.items.map((l: Json) => l.metadata.name).sort(), ['bonsai-control-plane', 'bonsai-gpu-1', 'bonsai-worker-1', 'bonsai-worker-2', 'bonsai-worker-3']);
    const first = leases.items.find((l: Json) => l.metadata.name === 'bonsai-worker-3');
    assert.equal(first.spec.holderIdentity, 'bonsai-worker-3');
    assert.equal(first.spec.leaseDurationSeconds, 40);
    await eventually(async () => (await getJson('lease', '-n', 'kube-node-lease', 'bonsai-worker-3')).spec.renewTime > first.spec.renewTime, 10_000, 'lease renewal');
  });

  it('runs an agent for a Node created with kubectl apply', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-1', labels: { 'topology.kubernetes.io/zone': 'zone-e' } }, status: { capacity: { cpu: '2', memory: '4Gi' } } }) });
    const node = await eventually(async () => {
      const n = await getJson('node', 'edge-1');
      return podReady(n) === 'True' && n;
    }, 10_000, 'edge-1 Ready');
    assert.match(node.spec.podCIDR, /^10\.244\.\d+\.0\/24$/);
    assert.equal(node.status.capacity.cpu, '2');
    assert.equal(node.status.capacity.pods, '110');
    assert.equal(node.metadata.labels['kubernetes.io/hostname'], 'edge-1');
    await eventually(async () => (await env.k.run(['get', 'lease', '-n', 'kube-node-lease', 'edge-1'])).code === 0, 5_000, 'edge-1 lease');
    await env.k.ok(['delete', 'node', 'edge-1']);
  });

  it('bonsai node stop: NotReady, unreachable taints, taint-based eviction; node start recovers', async () => {
    const unreachable = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' };
    await env.k.ok(['apply', '-f', '-'], { input: pod('tolerates-5s', 'bonsai-worker-1', { terminationGracePeriodSeconds: 600, tolerations: [{ ...unreachable, tolerationSeconds: 5 }] }) });
    await env.k.ok(['apply', '-f', '-'], { input: pod('tolerates-forever', 'bonsai-worker-1', { tolerations: [unreachable] }) });
    await eventually(async () => podReady(await getJson('pod', 'tolerates-forever')) === 'True', 10_000, 'pod Ready before the stop');

    const stop = await bonsai(['node', 'stop', 'bonsai-worker-1', '--kubeconfig', env.server.kubeconfig]);
    assert.equal(stop.code, 0, stop.stderr);
    assert.equal(stop.stdout, 'node/bonsai-worker-1 stopped\n');
    await eventually(async () => /^bonsai-worker-1\s+NotReady\s/m.test(await env.k.ok(['get', 'nodes'])), 15_000, 'NotReady');
    const ready = (await getJson('node', 'bonsai-worker-1')).status.conditions.find((c: Json) => c.type === 'Ready');
    assert.deepEqual([ready.status, ready.reason, ready.message], ['Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.']);
    await eventually(async () => {
      const t = (await taintsOf('bonsai-worker-1')).map((x) => `${x.key}:${x.effect}`);
      return t.includes('node.kubernetes.io/unreachable:NoSchedule') && t.includes('node.kubernetes.io/unreachable:NoExecute');
    }, 10_000, 'unreachable taints');
    const marked = await eventually(async () => {
      const p = await getJson('pod', 'tolerates-5s');
      return p.metadata.deletionTimestamp && p;
    }, 10_000, 'pod marked for deletion after its toleration');
    const disruption = marked.status.conditions.find((c: Json) => c.type === 'DisruptionTarget');
    assert.deepEqual([disruption.status, disruption.reason], ['True', 'DeletionByTaintManager']);
    assert.match(await env.k.ok(['get', 'pod', 'tolerates-5s']), /Terminating/);
    const forever = await getJson('pod', 'tolerates-forever');
    assert.equal(forever.metadata.deletionTimestamp, undefined);
    assert.equal(podReady(forever), 'False', 'pods on an unreachable node are marked not Ready');
    const events = await env.k.ok(['get', 'events', '--field-selector', 'involvedObject.name=bonsai-worker-1']);
    assert.match(events, /NodeNotReady\s+node\/bonsai-worker-1\s+Node bonsai-worker-1 status is now: NodeNotReady/);
    assert.match(await env.k.ok(['get', 'events', '--field-selector', 'reason=TaintManagerEviction']), /Marking for deletion Pod default\/tolerates-5s/);

    const start = await bonsai(['node', 'start', 'bonsai-worker-1', '--kubeconfig', env.server.kubeconfig]);
    assert.equal(start.stdout, 'node/bonsai-worker-1 started\n', `exit ${start.code}: ${start.stderr}`);
    await eventually(async () => /^bonsai-worker-1\s+Ready\s/m.test(await env.k.ok(['get', 'nodes'])), 10_000, 'Ready again');
    await eventually(async () => (await taintsOf('bonsai-worker-1')).length === 0, 10_000, 'taints removed');
    await env.k.ok(['delete', 'pod', 'tolerates-5s', 'tolerates-forever', '--grace-period=0', '--force', '--ignore-not-found']);
    const missing = await bonsai(['node', 'stop', 'no-such-node', '--kubeconfig', env.server.kubeconfig]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /NotFound.*no-such-node/);
  });

  it('cordon and uncordon; kubectl taint NoExecute evicts pods that do not tolerate it', async () => {
    assert.match(await env.k.ok(['cordon', 'bonsai-worker-3']), /node\/bonsai-worker-3 cordoned/);
    assert.match(await env.k.ok(['get', 'node', 'bonsai-worker-3']), /Ready,SchedulingDisabled/);
    await eventually(async () => (await taintsOf('bonsai-worker-3')).some((t) => t.key === 'node.kubernetes.io/unschedulable' && t.effect === 'NoSchedule'), 5_000, 'unschedulable taint');
    await env.k.ok(['uncordon', 'bonsai-worker-3']);
    assert.doesNotMatch(await env.k.ok(['get', 'node', 'bonsai-worker-3']), /SchedulingDisabled/);
    await eventually(async () => (await taintsOf('bonsai-worker-3')).length === 0, 5_000, 'unschedulable taint removed');

    await env.k.ok(['apply', '-f', '-'], { input: pod('intolerant', 'bonsai-worker-3') });
    await env.k.ok(['apply', '-f', '-'], { input: pod('tolerant', 'bonsai-worker-3', { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'ml', effect: 'NoExecute' }] }) });
    assert.match(await env.k.ok(['taint', 'node', 'bonsai-worker-3', 'dedicated=ml:NoExecute']), /node\/bonsai-worker-3 tainted/);
    await eventually(async () => (await env.k.run(['get', 'pod', 'intolerant'])).code !== 0 || (await getJson('pod', 'intolerant')).metadata.deletionTimestamp, 10_000, 'intolerant pod evicted');
    assert.equal((await getJson('pod', 'tolerant')).metadata.deletionTimestamp, undefined);
    await env.k.ok(['taint', 'node', 'bonsai-worker-3', 'dedicated-']);
    await env.k.ok(['delete', 'pod', 'tolerant', '--grace-period=0', '--force']);
  });

  it('drain waits for the PodDisruptionBudget, then completes', async () => {
    for (const name of ['db-1', 'db-2']) await env.k.ok(['apply', '-f', '-'], { input: pod(name, 'bonsai-worker-2', {}, { app: 'db' }) });
    await env.k.ok(['create', 'pdb', 'db', '--selector=app=db', '--min-available=2']);
    await eventually(async () => (await getJson('pdb', 'db')).status?.currentHealthy === 2, 10_000, 'both pods healthy');
    const drain = env.k.start(['drain', 'bonsai-worker-2', '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=50s']);
    const out = () => drain.out() + drain.err();
    try {
      // kubectl retries every 5 s while the budget allows no disruption.
      await eventually(() => out().includes("Cannot evict pod as it would violate the pod's disruption budget"), 15_000, 'eviction refused');
      assert.match(await env.k.ok(['get', 'node', 'bonsai-worker-2']), /SchedulingDisabled/);
      assert.equal(drain.proc.exitCode, null, 'drain waits for the budget');
      assert.equal((await getJson('pods', '-l', 'app=db')).items.filter((p: Json) => !p.metadata.deletionTimestamp).length, 2);
      await env.k.ok(['delete', 'pdb', 'db']);
      assert.equal(await drain.exited, 0, out());
    } finally {
      drain.stop();
    }
    assert.match(out(), /node\/bonsai-worker-2 drained/);
    await eventually(async () => (await getJson('pods', '-l', 'app=db')).items.length === 0, 10_000, 'pods gone');
    await env.k.ok(['uncordon', 'bonsai-worker-2']);
  });
});
