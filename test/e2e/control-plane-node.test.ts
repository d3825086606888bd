// The default cluster's control-plane node, as kind has it, with the real kubectl: ROLES `control-plane` (the workers
// have none), the NoSchedule taint, the control plane's static pods on it, which a drain of a worker leaves alone, and
// ordinary pods kept off it by the taint.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;

const cp = 'bonsai-control-plane';
const staticPods = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].map((c) => `${c}-${cp}`);
const replicas = 8;

const deployment = JSON.stringify({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
  spec: {
    replicas, selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx', resources: { requests: { cpu: '100m' } } }] } },
  },
});

describe('the control-plane node', () => {
  const env = useKubectlServer({ args: [...noAddons] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  /** The static pods as `get pods -o wide` shows them: name -> [status, node]. */
  const staticRows = async () => {
    const out = await env.k.ok(['get', 'pods', '-n', 'kube-system', '-o', 'wide', '--no-headers']);
    const rows = new Map(out.trim().split('\n').map((l) => l.trim().split(/\s+/)).map((c) => [c[0], [c[2], c[6]]]));
    return staticPods.map((name) => rows.get(name));
  };

  it('is listed with ROLES control-plane; the workers have no role, as on kind', async () => {
    const out = await eventually(async () => {
      const o = await env.k.ok(['get', 'nodes']);
      return /^bonsai-gpu-1\s+Ready\s/m.test(o) && new RegExp(`^${cp}\\s+Ready\\s`, 'm').test(o) && o;
    }, 20_000, 'the nodes Ready');
    assert.match(out, new RegExp(`^${cp}\\s+Ready\\s+control-plane\\s+\\S+\\s+v1\\.35\\.0$`, 'm'));
    for (const worker of ['bonsai-worker-1', 'bonsai-worker-2', 'bonsai-worker-3', 'bonsai-gpu-1']) {
      assert.match(out, new RegExp(`^${worker}\\s+Ready\\s+<none>\\s+\\S+\\s+v1\\.35\\.0$`, 'm'));
    }
    assert.equal(out.trim().split('\n').length, 6, out);
    assert.match(await env.k.ok(['get', 'node', cp, '-o', 'wide', '--no-headers']), /^bonsai-control-plane\s+Ready\s+control-plane\s+\S+\s+v1\.35\.0\s+172\.18\.0\.2\s/);
  });

  it('carries the NoSchedule taint and the role label in kubectl describe', async () => {
    const described = await env.k.ok(['describe', 'node', cp]);
    assert.match(described, /^Roles:\s+control-plane$/m);
    assert.match(described, /^Taints:\s+node-role\.kubernetes\.io\/control-plane:NoSchedule$/m);
    assert.match(described, /^\s+node\.kubernetes\.io\/exclude-from-external-load-balancers=$/m);
    assert.match(await env.k.ok(['describe', 'node', 'bonsai-worker-1']), /^Taints:\s+<none>$/m);
  });

  it('runs the control plane\'s static pods, owned by the Node, and kube-proxy', async () => {
    await eventually(async () => (await staticRows()).every((r) => r?.[0] === 'Running' && r[1] === cp), 20_000, 'static pods Running on the control-plane node');
    const node = await getJson('node', cp);
    for (const name of staticPods) {
      const pod = await getJson('pod', '-n', 'kube-system', name);
      assert.deepEqual(pod.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: cp, uid: node.metadata.uid, controller: true }], name);
      assert.ok(pod.metadata.annotations['kubernetes.io/config.mirror'], `${name} is a mirror pod`);
    }
    await eventually(async () => ((await getJson('pods', '-n', 'kube-system', '-l', 'k8s-app=kube-proxy')).items as Json[]).some((p) => p.spec.nodeName === cp && p.status?.phase === 'Running'), 20_000, 'kube-proxy on the control-plane node');
  });

  it('keeps a pod that does not tolerate the taint off it, with the scheduler saying why', async () => {
    const pinned = JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pinned' },
      spec: { nodeSelector: { 'kubernetes.io/hostname': cp }, containers: [{ name: 'c', image: 'nginx' }] },
    });
    await env.k.ok(['apply', '-f', '-'], { input: pinned });
    const ev = await eventually(async () => ((await getJson('events', '--field-selector', 'involvedObject.name=pinned,reason=FailedScheduling')).items as Json[])[0], 20_000, 'FailedScheduling for pinned');
    assert.match(ev.message, /^0\/5 nodes are available: 1 node\(s\) had untolerated taint \{node-role\.kubernetes\.io\/control-plane: \}, /);
    await env.k.ok(['delete', 'pod', 'pinned', '--wait=false']);
  });

  it('keeps a Deployment\'s pods off it, and a drain of a worker leaves the static pods where they are', async () => {
    const before = new Map<string, string>();
    for (const name of staticPods) before.set(name, (await getJson('pod', '-n', 'kube-system', name)).metadata.uid);
    await env.k.ok(['apply', '-f', '-'], { input: deployment });
    const running = async () => ((await getJson('pods', '-l', 'app=web')).items as Json[]).filter((p) => !p.metadata.deletionTimestamp && p.status?.phase === 'Running');
    const first = await eventually(async () => {
      const pods = await running();
      return pods.length === replicas && pods;
    }, 30_000, 'all replicas Running');
    assert.deepEqual(first.filter((p) => p.spec.nodeName === cp).map((p) => p.metadata.name), [], 'no replica on the control-plane node');

    const drain = await env.k.run(['drain', 'bonsai-worker-1', '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=50s'], { timeoutMs: 55_000 });
    assert.equal(drain.code, 0, `drain failed\n${drain.stdout}\n${drain.stderr}`);
    assert.match(drain.stdout, /node\/bonsai-worker-1 drained/);
    const after = await eventually(async () => {
      const pods = await running();
      return pods.length === replicas && pods.every((p) => p.spec.nodeName !== 'bonsai-worker-1') && pods;
    }, 30_000, 'replicas Running elsewhere');
    assert.deepEqual(after.filter((p) => p.spec.nodeName === cp).map((p) => p.metadata.name), [], 'no replacement on the control-plane node');
    assert.deepEqual(await staticRows(), staticPods.map(() => ['Running', cp]), 'the static pods stay Running on the control-plane node');
    for (const name of staticPods) assert.equal((await getJson('pod', '-n', 'kube-system', name)).metadata.uid, before.get(name), `${name} was not recreated`);
    assert.match(await env.k.ok(['get', 'node', cp]), /\sReady\s+control-plane\s/, 'the control-plane node is not cordoned');
  });
});
