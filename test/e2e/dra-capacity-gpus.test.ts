// GPUs handed out through a node's nvidia.com/gpu capacity (no DeviceClass maps the resource), with real kubectl: as
// NVIDIA's device plugin does, the kubelet gives each container of a `nvidia.com/gpu` pod whole GPUs of its node that
// no claim and no other such pod holds, and the container sees their UUIDs (from the driver's ResourceSlices) in
// NVIDIA_VISIBLE_DEVICES and `nvidia-smi -L`; the pod's container statuses report them (allocatedResourcesStatus).
// The choice stays the pod's while others come and go, and a claim allocated later never takes one of them. A node
// publishing no devices hands out indexes, as the device plugin's index strategy does.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;
const clusterFile = join(mkdtempSync(join(tmpdir(), 'bonsai-dra-capacity-')), 'cluster.yaml');
writeFileSync(clusterFile, 'controlPlane: false\nnodePools:\n  - { name: l4, count: 1, cpu: 16, memory: 64Gi, gpu: { model: l4, count: 4 } }\n');

const container = (name: string, resources: Json): Json => ({ name, image: 'nvidia/cuda:12.4.1-base-ubuntu22.04', command: ['sleep', '3600'], resources });
const gpus = (n: number): Json => ({ limits: { 'nvidia.com/gpu': String(n) } });
const claimPod = (name: string): Json => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'one-gpu' }], containers: [container('cuda', { claims: [{ name: 'gpu' }] })] },
});
const capacityPod = (name: string, ...counts: number[]): Json => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: counts.map((n, i) => container(`c${i}`, gpus(n))) },
});

describe('GPUs through the nvidia.com/gpu capacity', () => {
  const env = useKubectlServer({ args: [...noAddons, '--cluster', clusterFile] });
  const apply = (...items: Json[]) => env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
  const json = async (...args: string[]): Promise<Json> => JSON.parse(await env.k.ok([...args, '-o', 'json']));
  const running = (...names: string[]) => eventually(async () => {
    const ps = await Promise.all(names.map((n) => json('get', 'pod', n)));
    return ps.every((p) => p.status?.phase === 'Running') ? ps : undefined;
  }, 30_000, `${names.join(', ')} Running`);
  /** The IDs a container sees in NVIDIA_VISIBLE_DEVICES. */
  const visible = async (pod: string, c: string): Promise<string[]> =>
    (await env.k.ok(['exec', pod, '-c', c, '--', 'printenv', 'NVIDIA_VISIBLE_DEVICES'])).trim().split(',');

  it('each container sees its own GPUs by UUID, apart from the claims\', for the pod\'s life', async () => {
    await eventually(async () => /bonsai-l4-1/.test(await env.k.ok(['get', 'resourceslices'])), 30_000, 'the driver published the node');
    const slices = (await json('get', 'resourceslices')).items as Json[];
    const uuids = slices.flatMap((s) => (s.spec.devices ?? []).map((d: Json) => d.attributes.uuid.string as string));
    assert.equal(uuids.length, 4);
    await apply(
      {
        apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name: 'one-gpu' },
        spec: { spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.bonsai.dev' } }] } } },
      },
      claimPod('claimer'),
    );
    await running('claimer');
    const claimed = await visible('claimer', 'cuda');
    assert.equal(claimed.length, 1);
    await apply(capacityPod('pair', 1, 1), capacityPod('single', 1));
    const [pair, single] = await running('pair', 'single');
    const seen = { c0: await visible('pair', 'c0'), c1: await visible('pair', 'c1'), single: await visible('single', 'c0') };
    for (const ids of Object.values(seen)) assert.equal(ids.length, 1);
    const held = [...claimed, ...seen.c0, ...seen.c1, ...seen.single];
    assert.deepEqual([...held].sort(), [...uuids].sort(), 'the four GPUs, each held once');
    // The status reports what the containers see.
    const reported = (p: Json, c: string) => p.status.containerStatuses.find((s: Json) => s.name === c).allocatedResourcesStatus;
    assert.deepEqual(reported(pair, 'c1'), [{ name: 'nvidia.com/gpu', resources: [{ resourceID: seen.c1[0], health: 'Healthy' }] }]);
    assert.deepEqual(reported(single, 'c0'), [{ name: 'nvidia.com/gpu', resources: [{ resourceID: seen.single[0], health: 'Healthy' }] }]);
    // nvidia-smi lists the container's GPU with its UUID.
    assert.equal((await env.k.ok(['exec', 'single', '--', 'nvidia-smi', '-L'])).trim(), `GPU 0: NVIDIA L4 (UUID: ${seen.single[0]})`);

    // The claim pod goes and another comes: the capacity pods keep their GPUs, the new claim gets the freed one.
    await env.k.ok(['delete', 'pod', 'claimer', '--wait=true']);
    await apply(claimPod('claimer-2'));
    await running('claimer-2');
    assert.deepEqual(await visible('claimer-2', 'cuda'), claimed);
    assert.deepEqual({ c0: await visible('pair', 'c0'), c1: await visible('pair', 'c1'), single: await visible('single', 'c0') }, seen);

    // A pod goes: the next capacity pod takes its GPU, the others keep theirs.
    await env.k.ok(['delete', 'pod', 'pair', '--wait=true']);
    await apply(capacityPod('late', 1));
    await running('late');
    assert.ok([...seen.c0, ...seen.c1].includes((await visible('late', 'c0'))[0]));
    assert.deepEqual(await visible('single', 'c0'), seen.single);
    await env.k.ok(['delete', 'pod', 'claimer-2', 'single', 'late', '--wait=true']);

    // Without the driver's slices the node's GPUs have no known UUID: they are handed out by index.
    await env.k.ok(['delete', 'resourceslices', '--all']);
    await apply(capacityPod('indexed', 2));
    await running('indexed');
    assert.deepEqual(await visible('indexed', 'c0'), ['0', '1']);
    assert.equal((await env.k.ok(['exec', 'indexed', '--', 'nvidia-smi', '-L'])).trim(), 'GPU 0: NVIDIA L4\nGPU 1: NVIDIA L4');
    await env.k.ok(['delete', 'pod', 'indexed', '--wait=false']);
  });
});
