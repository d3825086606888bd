// Gang scheduling with the 1.35 Workload API on the default cluster, through real kubectl: a gang of 8 one-GPU pods
// binds all 8 on bonsai-gpu-1; a gang of 9 binds none and its pods say why; once a second GPU node is applied all 9
// bind. A pod watch over the whole run proves no gang ever held GPUs with fewer than minCount pods bound.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;
// The GPU node may carry the taint managed clusters put on GPU nodes: these pods tolerate it either way.
const gpuToleration = { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' };

const workload = (ns: string, minCount: number, timeoutSeconds: string): Json => ({
  apiVersion: 'scheduling.k8s.io/v1alpha1', kind: 'Workload',
  metadata: { name: 'train', namespace: ns, annotations: { 'bonsai.dev/gang-scheduling-timeout-seconds': timeoutSeconds } },
  spec: { controllerRef: { apiGroup: 'batch', kind: 'Job', name: 'train' }, podGroups: [{ name: 'workers', policy: { gang: { minCount } } }] },
});
const gpuPod = (ns: string, i: number): Json => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: `worker-${i}`, namespace: ns },
  spec: {
    workloadRef: { name: 'train', podGroup: 'workers' }, tolerations: [gpuToleration],
    containers: [{ name: 'trainer', image: 'pytorch/pytorch', command: ['sleep', '3600'], resources: { limits: { 'nvidia.com/gpu': '1' } } }],
  },
});

/**
 * Lines `ns/name node` from `kubectl get pods -w`: checks that the binds of a gang come as one uninterrupted burst
 * (between its first and its minCount-th bind only binds and updates of its already bound pods may appear).
 */
function checkNoPartialGang(lines: string[], minCount: Record<string, number>): { boundPerNs: Record<string, number> } {
  const bound = new Map<string, string>();
  const boundPerNs: Record<string, number> = {};
  let burst: { ns: string; left: number } | undefined;
  for (const line of lines) {
    const [key, node = ''] = line.trim().split(/\s+/);
    const ns = key.split('/')[0];
    if (!(ns in minCount)) continue;
    const newlyBound = node !== '' && !bound.has(key);
    if (burst && burst.left > 0 && !(ns === burst.ns && bound.has(key))) {
      assert.ok(newlyBound && ns === burst.ns, `a gang of ${burst.ns} was partly bound when "${line}" came (${burst.left} binds missing)`);
    }
    if (!newlyBound) continue;
    bound.set(key, node);
    boundPerNs[ns] = (boundPerNs[ns] ?? 0) + 1;
    if (!burst || burst.left === 0) burst = { ns, left: minCount[ns] };
    burst.left--;
  }
  assert.ok(!burst || burst.left === 0, `the watch ended with a gang of ${burst?.ns} partly bound`);
  return { boundPerNs };
}

describe('gang scheduling (Workload API)', () => {
  const env = useKubectlServer({ args: [...noAddons] });

  const apply = (...items: Json[]) => env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
  const pods = async (ns: string): Promise<Json[]> => JSON.parse(await env.k.ok(['get', 'pods', '-n', ns, '-o', 'json'])).items;
  const boundNodes = async (ns: string) => (await pods(ns)).map((p) => p.spec.nodeName).filter(Boolean) as string[];

  it('binds a gang whole or not at all, and completes it when a GPU node joins', async () => {
    const watch = env.k.start(['get', 'pods', '-A', '-w', '-o', 'jsonpath={.metadata.namespace}/{.metadata.name} {.spec.nodeName}{"\\n"}']);
    try {
      await env.k.ok(['create', 'namespace', 'gang8']);
      await env.k.ok(['create', 'namespace', 'gang9']);
      const res = await env.k.ok(['api-resources', '--api-group=scheduling.k8s.io']);
      assert.match(res, /workloads\s+scheduling\.k8s\.io\/v1alpha1\s+true\s+Workload/);

      // A gang of 8 one-GPU pods: all 8 on bonsai-gpu-1.
      await apply(workload('gang8', 8, '300'), ...Array.from({ length: 8 }, (_, i) => gpuPod('gang8', i)));
      await eventually(async () => (await boundNodes('gang8')).length === 8, 30_000, 'the gang of 8 bound');
      assert.deepEqual([...new Set(await boundNodes('gang8'))], ['bonsai-gpu-1']);
      await env.k.ok(['delete', 'namespace', 'gang8', '--wait=true', '--timeout=40s']);

      // A gang of 9: bonsai-gpu-1 has places for 8, so none binds. The pod without a place says so; after the
      // Permit timeout (3 s here, upstream's is 5 minutes) the others are rejected too and say why.
      await apply(workload('gang9', 9, '3'), ...Array.from({ length: 9 }, (_, i) => gpuPod('gang9', i)));
      const conditions = await eventually(async () => {
        const cs = (await pods('gang9')).map((p) => (p.status?.conditions ?? []).find((c: Json) => c.type === 'PodScheduled' && c.status === 'False'));
        return cs.length === 9 && cs.every(Boolean) ? cs : undefined;
      }, 30_000, 'all nine pods PodScheduled=False');
      assert.deepEqual(await boundNodes('gang9'), []);
      const messages = conditions.map((c: Json) => c.message as string);
      assert.ok(messages.some((m) => /^0\/5 nodes are available: .*Insufficient nvidia\.com\/gpu/.test(m)), messages.join('\n'));
      assert.ok(messages.some((m) => m === 'rejected due to timeout after waiting 3s at plugin GangScheduling'), messages.join('\n'));
      const describe = await env.k.ok(['describe', 'pod', 'worker-8', '-n', 'gang9']);
      assert.match(describe, /Warning\s+FailedScheduling\s+.*default-scheduler\s+0\/5 nodes are available: .*Insufficient nvidia\.com\/gpu/);
      const events = JSON.parse(await env.k.ok(['get', 'events', '-n', 'gang9', '--field-selector', 'reason=FailedScheduling', '-o', 'json'])).items as Json[];
      assert.ok(events.some((e) => /rejected due to timeout after waiting 3s at plugin GangScheduling/.test(e.message)));
      assert.deepEqual(await boundNodes('gang9'), [], 'still nothing bound');

      // A second GPU node: all nine bind, at most eight on bonsai-gpu-1 (its GPUs) and the rest on the new node.
      const capacity = { cpu: '32', memory: '256Gi', pods: '110', 'nvidia.com/gpu': '8' };
      const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      await apply({
        apiVersion: 'v1', kind: 'Node',
        metadata: { name: 'bonsai-gpu-2', labels: { 'kubernetes.io/hostname': 'bonsai-gpu-2', 'nvidia.com/gpu.present': 'true' } },
        spec: { taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }] },
        status: { capacity, allocatable: capacity, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now }] },
      });
      await eventually(async () => (await boundNodes('gang9')).length === 9, 30_000, 'the gang of 9 bound');
      const placed = await boundNodes('gang9');
      const onFirst = placed.filter((n) => n === 'bonsai-gpu-1').length;
      assert.ok(onFirst <= 8, placed.join(' '));
      assert.equal(placed.filter((n) => n === 'bonsai-gpu-2').length, 9 - onFirst, placed.join(' '));
      // Let the watch catch up with the last binds.
      await eventually(() => watch.out().split('\n').filter((l) => /^gang9\/\S+ \S+/.test(l)).length >= 9, 10_000, 'the watch to see the binds');
    } finally {
      watch.stop();
      await watch.exited;
    }
    const { boundPerNs } = checkNoPartialGang(watch.out().split('\n').filter(Boolean), { gang8: 8, gang9: 9 });
    assert.deepEqual(boundPerNs, { gang8: 8, gang9: 9 });
  });
});
