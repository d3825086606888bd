// The default cluster as `bonsai serve` starts it: GPU pods fill bonsai-gpu-1, the ninth waits, top works.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer } from '../helpers/cluster.js';

type Json = Record<string, any>;

const gpuPod = (i: number) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: `train-${i}`, labels: { app: 'train' } },
  spec: { containers: [{ name: 'c', image: 'nvcr.io/nvidia/pytorch:24.05-py3', resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
});

describe('the default cluster', () => {
  const env = useKubectlServer();
  const nodeOf = async () => {
    const out = await env.k.ok(['get', 'pods', '-l', 'app=train', '-o', 'custom-columns=NAME:.metadata.name,NODE:.spec.nodeName,PHASE:.status.phase', '--no-headers']);
    return Object.fromEntries(out.trim().split('\n').map((l) => l.trim().split(/\s+/)).map(([n, node, phase]) => [n, { node, phase }]));
  };

  it('puts 8 one-GPU pods on bonsai-gpu-1, keeps a 9th Pending with Insufficient nvidia.com/gpu, and schedules it when one goes', async () => {
    const list = (items: Json[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
    await env.k.ok(['apply', '-f', '-'], { input: list([0, 1, 2, 3, 4, 5, 6, 7].map(gpuPod)) });
    await eventually(async () => Object.values(await nodeOf()).filter((p) => p.node === 'bonsai-gpu-1' && p.phase === 'Running').length === 8, 15_000, '8 GPU pods running on bonsai-gpu-1');
    await env.k.ok(['apply', '-f', '-'], { input: list([gpuPod(8)]) });
    const ev = await eventually(async () => {
      const events = JSON.parse(await env.k.ok(['get', 'events', '--field-selector', 'involvedObject.name=train-8,reason=FailedScheduling', '-o', 'json'])).items as Json[];
      return events[0];
    }, 15_000, 'FailedScheduling for train-8');
    assert.match(ev.message, /^0\/5 nodes are available: 1 node\(s\) had untolerated taint \{node-role\.kubernetes\.io\/control-plane: \}, 4 Insufficient nvidia\.com\/gpu\./);
    assert.match(await env.k.ok(['get', 'pod', 'train-8', '--no-headers']), /^train-8\s+0\/1\s+Pending\s/);
    await env.k.ok(['delete', 'pod', 'train-0', '--wait=false']);
    await eventually(async () => (await nodeOf())['train-8']?.node === 'bonsai-gpu-1', 15_000, 'train-8 scheduled once a GPU is free');
    const top = await env.k.ok(['top', 'node', 'bonsai-gpu-1', '--no-headers']);
    assert.match(top, /^bonsai-gpu-1\s+\d+m?\s+\d+%\s+\d+Mi\s+\d+%/);
  });
});
