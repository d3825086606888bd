// Extended resources through DRA (1.34's DRAExtendedResource) with real kubectl: once a DeviceClass maps
// nvidia.com/gpu, a pod asking for `nvidia.com/gpu: 1` gets a device of the node's pool through a ResourceClaim the
// scheduler creates for it (recorded in the pod's status.extendedResourceClaimStatus), so on a node with 2 GPUs one
// claim pod and one such pod fit, and a third of either stays Pending with the scheduler's message; deleting the
// pod deletes its claim and frees the device.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;
const clusterFile = join(mkdtempSync(join(tmpdir(), 'bonsai-dra-ext-')), 'cluster.yaml');
writeFileSync(clusterFile, 'controlPlane: false\nnodePools:\n  - { name: l4, count: 1, cpu: 16, memory: 64Gi, gpu: { model: l4, count: 2 } }\n');

const container = (resources: Json): Json => ({ name: 'cuda', image: 'nvidia/cuda:12.4.1-base-ubuntu22.04', command: ['sleep', '3600'], resources });
const claimPod = (name: string): Json => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'one-gpu' }], containers: [container({ claims: [{ name: 'gpu' }] })] },
});
const extendedPod = (name: string): Json => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [container({ limits: { 'nvidia.com/gpu': '1' } })] },
});

describe('extended resources through DRA', () => {
  const env = useKubectlServer({ args: [...noAddons, '--cluster', clusterFile] });
  const apply = (...items: Json[]) => env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
  const json = async (...args: string[]): Promise<Json> => JSON.parse(await env.k.ok([...args, '-o', 'json']));
  const pendingWhy = async (name: string): Promise<string | undefined> =>
    (await json('get', 'pod', name)).status?.conditions?.find((c: Json) => c.type === 'PodScheduled' && c.status === 'False')?.message;

  it('`nvidia.com/gpu: 1` pods and claim pods share the pool', async () => {
    await eventually(async () => /bonsai-l4-1/.test(await env.k.ok(['get', 'resourceslices'])));
    await apply(
      {
        apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: { name: 'gpu-extended' },
        spec: { extendedResourceName: 'nvidia.com/gpu', selectors: [{ cel: { expression: "device.driver == 'gpu.bonsai.dev' && device.attributes['gpu.bonsai.dev'].type == 'gpu'" } }] },
      },
      {
        apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name: 'one-gpu' },
        spec: { spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.bonsai.dev' } }] } } },
      },
      claimPod('claimer'), extendedPod('legacy'),
    );
    const [claimer, legacy] = await eventually(async () => {
      const ps = await Promise.all(['claimer', 'legacy'].map((n) => json('get', 'pod', n)));
      return ps.every((p) => p.status?.phase === 'Running') ? ps : undefined;
    }, 30_000, 'both pods Running');
    assert.equal(legacy.spec.nodeName, 'bonsai-l4-1');
    const status = legacy.status.extendedResourceClaimStatus;
    assert.match(status.resourceClaimName, /^legacy-extended-resources-[a-z0-9]{5}$/);
    assert.deepEqual(status.requestMappings, [{ containerName: 'cuda', resourceName: 'nvidia.com/gpu', requestName: 'container-0-request-0' }]);
    const special = await json('get', 'resourceclaim', status.resourceClaimName);
    assert.equal(special.metadata.annotations['resource.kubernetes.io/extended-resource-claim'], 'true');
    assert.equal(special.metadata.ownerReferences[0].name, 'legacy');
    assert.equal(special.spec.devices.requests[0].exactly.deviceClassName, 'gpu-extended');
    assert.deepEqual(special.status.reservedFor.map((r: Json) => r.name), ['legacy']);
    const generated = await json('get', 'resourceclaim', claimer.status.resourceClaimStatuses[0].resourceClaimName);
    const devices = [special, generated].map((c) => c.status.allocation.devices.results[0].device).sort();
    assert.deepEqual(devices, ['gpu-0', 'gpu-1']);
    // The container sees its GPU as the driver injects it, and not the claim pod's.
    const visible = await Promise.all(['legacy', 'claimer'].map(async (n) => (await env.k.ok(['exec', n, '--', 'printenv', 'NVIDIA_VISIBLE_DEVICES'])).trim()));
    assert.match(visible[0], /^GPU-[0-9a-f-]+$/);
    assert.notEqual(visible[0], visible[1]);

    // Both GPUs are taken: a third pod of either kind waits, in the scheduler's words (not the node's capacity).
    await apply(extendedPod('legacy-2'), claimPod('claimer-2'));
    for (const name of ['legacy-2', 'claimer-2']) {
      // A claim pod first waits for its claim (from the template) to be created: poll past that message.
      const why = await eventually(async () => {
        const m = await pendingWhy(name);
        return m && /cannot allocate all claims/.test(m) ? m : undefined;
      }, 30_000, `${name} unschedulable for its claim`);
      assert.match(why, /^0\/1 nodes are available: 1 cannot allocate all claims/, name);
    }

    // The nvidia.com/gpu pod goes: its claim is deleted and its GPU serves the next pod.
    await env.k.ok(['delete', 'pod', 'legacy', '--wait=true']);
    await eventually(async () => !(await env.k.ok(['get', 'resourceclaims'])).includes(status.resourceClaimName), 30_000, 'the special claim deleted');
    await eventually(async () => {
      const ps = await Promise.all(['legacy-2', 'claimer-2'].map((n) => json('get', 'pod', n)));
      return ps.filter((p) => p.spec.nodeName).length === 1;
    }, 30_000, 'one of the waiting pods bound');
    await env.k.ok(['delete', 'pod', 'claimer', 'legacy-2', 'claimer-2', '--wait=false']);
  });
});
