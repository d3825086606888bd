// GPUs through Dynamic Resource Allocation with real kubectl: the simulated driver gpu.bonsai.dev publishes a pool per
// GPU node (an H100 80GB node with MIG partitions, an L4 node), a pod whose claim template asks for 80Gi of GPU memory
// lands on the H100 and its container sees the GPU (nvidia-smi -L), a claim no device matches leaves its pod Pending
// with the scheduler's reason, a shared claim serves two pods with one device, and deleting the pods deallocates.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;
const clusterFile = join(mkdtempSync(join(tmpdir(), 'bonsai-dra-')), 'cluster.yaml');
writeFileSync(clusterFile, [
  'nodePools:',
  '  - { name: h100, count: 1, cpu: 64, memory: 512Gi, gpu: { model: h100-80gb, count: 8, mig: true } }',
  '  - { name: l4, count: 1, cpu: 16, memory: 64Gi, gpu: { model: l4, count: 4 } }',
  '',
].join('\n'));

const sel = (expression: string) => [{ cel: { expression } }];
const template = (name: string, expression: string): Json => ({
  apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name },
  spec: { spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.bonsai.dev', selectors: sel(expression) } }] } } },
});
const pod = (name: string, claim: Json): Json => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: {
    resourceClaims: [{ name: 'gpu', ...claim }],
    containers: [{ name: 'cuda', image: 'nvidia/cuda:12.4.1-base-ubuntu22.04', command: ['sleep', '3600'], resources: { claims: [{ name: 'gpu' }] } }],
  },
});

describe('GPUs with Dynamic Resource Allocation', () => {
  const env = useKubectlServer({ args: [...noAddons, '--cluster', clusterFile] });
  const apply = (...items: Json[]) => env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
  const json = async (...args: string[]): Promise<Json> => JSON.parse(await env.k.ok([...args, '-o', 'json']));

  it('publishes the GPU nodes\' devices and the driver\'s classes', async () => {
    const slices = await eventually(async () => {
      const out = await env.k.ok(['get', 'resourceslices']);
      assert.match(out, /bonsai-h100-1\s+gpu\.bonsai\.dev\s+bonsai-h100-1/);
      assert.match(out, /bonsai-l4-1\s+gpu\.bonsai\.dev\s+bonsai-l4-1/);
      return out;
    });
    assert.match(slices.split('\n')[0], /^NAME\s+NODE\s+DRIVER\s+POOL\s+AGE$/);
    const l4 = await json('get', 'resourceslices', '--field-selector', 'spec.nodeName=bonsai-l4-1');
    assert.deepEqual(l4.items.flatMap((s: Json) => s.spec.devices?.map((d: Json) => d.name) ?? []), ['gpu-0', 'gpu-1', 'gpu-2', 'gpu-3']);
    assert.match(await env.k.ok(['get', 'deviceclasses']), /gpu\.bonsai\.dev[\s\S]*mig\.gpu\.bonsai\.dev/);
  });

  it('places a claim for 80Gi on the H100, shows the GPU in the container, and frees it when the pod goes', async () => {
    await apply(template('big-gpu', "device.capacity['gpu.bonsai.dev'].memory.compareTo(quantity('80Gi')) >= 0"), pod('trainer', { resourceClaimTemplateName: 'big-gpu' }));
    const p = await eventually(async () => {
      const got = await json('get', 'pod', 'trainer');
      assert.equal(got.status.phase, 'Running');
      return got;
    });
    assert.equal(p.spec.nodeName, 'bonsai-h100-1');
    const claimName = p.status.resourceClaimStatuses[0].resourceClaimName as string;
    assert.match(claimName, /^trainer-gpu-[a-z0-9]{5}$/);
    const claim = await json('get', 'resourceclaim', claimName);
    assert.equal(claim.status.allocation.devices.results[0].driver, 'gpu.bonsai.dev');
    assert.equal(claim.status.reservedFor[0].name, 'trainer');
    assert.match(await env.k.ok(['get', 'resourceclaims']), new RegExp(`${claimName}\\s+allocated,reserved`));
    assert.match(await env.k.ok(['exec', 'trainer', '--', 'nvidia-smi', '-L']), /^GPU 0: NVIDIA H100 80GB HBM3 \(UUID: GPU-[0-9a-f-]+\)$/m);
    assert.match(await env.k.ok(['exec', 'trainer', '--', 'printenv', 'NVIDIA_VISIBLE_DEVICES']), /^GPU-[0-9a-f-]+$/m);
    await env.k.ok(['delete', 'pod', 'trainer', '--wait=true']);
    await eventually(async () => !new RegExp(claimName).test(await env.k.ok(['get', 'resourceclaims'])));
  });

  it('leaves a pod whose claim no device can meet Pending with the scheduler\'s reason', async () => {
    await apply(template('huge-gpu', "device.capacity['gpu.bonsai.dev'].memory.compareTo(quantity('200Gi')) >= 0"), pod('dreamer', { resourceClaimTemplateName: 'huge-gpu' }));
    await eventually(async () => {
      const out = await env.k.ok(['get', 'events', '--field-selector', 'involvedObject.name=dreamer,reason=FailedScheduling']);
      assert.match(out, /0\/3 nodes are available: 1 node\(s\) had untolerated taint \{node-role\.kubernetes\.io\/control-plane: \}, 2 cannot allocate all claims/);
      return true;
    });
    assert.equal((await json('get', 'pod', 'dreamer')).status.phase, 'Pending');
    await env.k.ok(['delete', 'pod', 'dreamer', '--wait=false']);
  });

  it('shares one claim between two pods on one device, and deallocates it when both are gone', async () => {
    await apply(
      { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: 'shared' }, spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.bonsai.dev', selectors: sel("device.attributes['gpu.bonsai.dev'].productName == 'NVIDIA L4'") } }] } } },
      pod('reader-a', { resourceClaimName: 'shared' }), pod('reader-b', { resourceClaimName: 'shared' }),
    );
    const claim = await eventually(async () => {
      const c = await json('get', 'resourceclaim', 'shared');
      assert.equal(c.status?.reservedFor?.length, 2);
      return c;
    });
    assert.equal(claim.status.allocation.devices.results.length, 1);
    const nodes = await eventually(async () => {
      const ps = await json('get', 'pods', 'reader-a', 'reader-b');
      assert.ok(ps.items.every((x: Json) => x.status.phase === 'Running'));
      return ps.items.map((x: Json) => x.spec.nodeName);
    });
    assert.deepEqual(nodes, ['bonsai-l4-1', 'bonsai-l4-1']);
    const a = await env.k.ok(['exec', 'reader-a', '--', 'printenv', 'NVIDIA_VISIBLE_DEVICES']);
    assert.equal(await env.k.ok(['exec', 'reader-b', '--', 'printenv', 'NVIDIA_VISIBLE_DEVICES']), a);
    await env.k.ok(['delete', 'pod', 'reader-a', 'reader-b', '--wait=true']);
    await eventually(async () => {
      const c = await json('get', 'resourceclaim', 'shared');
      assert.equal(c.status?.allocation, undefined);
      assert.equal(c.status?.reservedFor, undefined);
      return true;
    });
  });
});
