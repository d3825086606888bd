// DRA with gangs and MIG through real kubectl: a gang of 8 pods with one GPU claim each on a cluster with 7 free
// L4 GPUs binds no pod and allocates no claim (the allocations found for the 7 that had a place stay in the
// scheduler's memory while they wait at Permit); once an eighth L4 joins, all 8 bind on 8 distinct devices. Two MIG
// slices whose counters together exceed an H100's (7g.80gb and 1g.10gb) never share the GPU: on a one-GPU node the
// second stays Pending with the scheduler's message, and lands on the parent GPU of a second node once it joins.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;
const clusterFile = join(mkdtempSync(join(tmpdir(), 'bonsai-dra-gangs-')), 'cluster.yaml');
writeFileSync(clusterFile, [
  'controlPlane: false', // the GPU pools alone: the messages count their nodes
  'nodePools:',
  '  - { name: l4, count: 1, cpu: 64, memory: 256Gi, gpu: { model: l4, count: 7 } }',
  '  - { name: mig, count: 1, cpu: 64, memory: 512Gi, gpu: { model: h100-80gb, count: 1, mig: true } }',
  '',
].join('\n'));

const template = (name: string, ns: string, deviceClassName: string, expression: string): Json => ({
  apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name, namespace: ns },
  spec: { spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName, selectors: [{ cel: { expression } }] } }] } } },
});
const pod = (name: string, ns: string, claimTemplate: string, extra: Json = {}): Json => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns },
  spec: {
    ...extra,
    resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: claimTemplate }],
    containers: [{ name: 'cuda', image: 'nvidia/cuda:12.4.1-base-ubuntu22.04', command: ['sleep', '3600'], resources: { claims: [{ name: 'gpu' }] } }],
  },
});
/** A GPU node as a cloud's node group adds it: one GPU of `product`, NVIDIA's labels (the driver publishes its devices). */
const gpuNode = (name: string, product: string, labels: Record<string, string> = {}): Json => {
  const capacity = { cpu: '64', memory: '256Gi', pods: '110', 'nvidia.com/gpu': '1' };
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'nvidia.com/gpu.present': 'true', 'nvidia.com/gpu.product': product, ...labels } },
    status: { capacity, allocatable: capacity, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now }] },
  };
};
const l4Only = "device.attributes['gpu.bonsai.dev'].productName == 'NVIDIA L4'";

describe('DRA with gangs and MIG', () => {
  const env = useKubectlServer({ args: [...noAddons, '--cluster', clusterFile] });
  const apply = (...items: Json[]) => env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
  const json = async (...args: string[]): Promise<Json> => JSON.parse(await env.k.ok([...args, '-o', 'json']));
  const unschedulable = (p: Json): string | undefined => p.status?.conditions?.find((c: Json) => c.type === 'PodScheduled' && c.status === 'False')?.message;

  it('a gang of 8 pods with one GPU claim each is placed whole or not at all', async () => {
    await env.k.ok(['create', 'namespace', 'gang']);
    await eventually(async () => /bonsai-l4-1/.test(await env.k.ok(['get', 'resourceslices'])));
    await apply(
      {
        apiVersion: 'scheduling.k8s.io/v1alpha1', kind: 'Workload', metadata: { name: 'train', namespace: 'gang' },
        spec: { controllerRef: { apiGroup: 'batch', kind: 'Job', name: 'train' }, podGroups: [{ name: 'workers', policy: { gang: { minCount: 8 } } }] },
      },
      template('l4', 'gang', 'gpu.bonsai.dev', l4Only),
      ...Array.from({ length: 8 }, (_, i) => pod(`worker-${i}`, 'gang', 'l4', { workloadRef: { name: 'train', podGroup: 'workers' } })),
    );
    // Seven L4s for eight pods: the pod without a place says why once every claim exists; the others wait at Permit.
    const message = await eventually(async () => {
      const ps = (await json('get', 'pods', '-n', 'gang')).items as Json[];
      const claims = (await json('get', 'resourceclaims', '-n', 'gang')).items as Json[];
      if (claims.length !== 8) return undefined;
      return ps.map(unschedulable).find((m) => m && /cannot allocate all claims/.test(m));
    }, 30_000, 'a gang member reported unschedulable');
    assert.match(message, /^0\/2 nodes are available: /);
    const pods = (await json('get', 'pods', '-n', 'gang')).items as Json[];
    assert.deepEqual(pods.map((p) => p.spec.nodeName).filter(Boolean), [], 'no pod bound');
    const claims = (await json('get', 'resourceclaims', '-n', 'gang')).items as Json[];
    assert.equal(claims.length, 8);
    assert.deepEqual(claims.filter((c) => c.status?.allocation || c.status?.reservedFor), [], 'no claim allocated or reserved');

    // An eighth L4 joins: the whole gang binds, each claim on its own device.
    await apply(gpuNode('bonsai-l4-extra', 'NVIDIA-L4'));
    await eventually(async () => ((await json('get', 'pods', '-n', 'gang')).items as Json[]).every((p) => p.spec.nodeName), 30_000, 'the gang bound');
    const bound = (await json('get', 'pods', '-n', 'gang')).items as Json[];
    assert.equal(bound.filter((p) => p.spec.nodeName === 'bonsai-l4-extra').length, 1);
    const allocated = (await json('get', 'resourceclaims', '-n', 'gang')).items as Json[];
    const devices = allocated.map((c) => {
      const r = c.status.allocation.devices.results;
      assert.equal(r.length, 1);
      assert.equal(c.status.reservedFor.length, 1);
      return `${r[0].pool}/${r[0].device}`;
    });
    assert.equal(new Set(devices).size, 8, devices.join(' '));
    await env.k.ok(['delete', 'namespace', 'gang', '--wait=false']);
  });

  it('two MIG slices that together exceed a GPU\'s counters never land on the same GPU', async () => {
    await env.k.ok(['create', 'namespace', 'mig']);
    const profile = (p: string) => `device.attributes['gpu.bonsai.dev'].profile == '${p}'`;
    await apply(template('mig-7g', 'mig', 'mig.gpu.bonsai.dev', profile('7g.80gb')), template('mig-1g', 'mig', 'mig.gpu.bonsai.dev', profile('1g.10gb')), pod('big', 'mig', 'mig-7g'));
    await eventually(async () => (await json('get', 'pod', 'big', '-n', 'mig')).spec.nodeName === 'bonsai-mig-1', 30_000, 'the 7g.80gb pod bound');

    // The 1g.10gb slice would need memory slices the 7g.80gb one holds: no other GPU, so it waits.
    await apply(pod('small', 'mig', 'mig-1g'));
    // Until its claim (from the template) reaches the scheduler, the pod waits for it to be created: poll past that.
    const message = await eventually(async () => {
      const m = unschedulable(await json('get', 'pod', 'small', '-n', 'mig'));
      return m && /cannot allocate all claims/.test(m) ? m : undefined;
    }, 30_000, 'the 1g.10gb pod unschedulable for its claim');
    // Every node fails (the L4 nodes have no MIG class devices).
    assert.match(message, /^0\/(\d) nodes are available: \1 cannot allocate all claims/);
    assert.equal((await json('get', 'pod', 'small', '-n', 'mig')).spec.nodeName, undefined);
    // The scheduling explanation says, for the MIG node, which request could not be met and why.
    const explained = JSON.parse(await env.k.ok(['get', '--raw', '/bonsai/v1/scheduling/namespaces/mig/pods/small']));
    const onMig = explained.nodes.find((n: Json) => n.node === 'bonsai-mig-1');
    assert.deepEqual(onMig.filter.reasons, ['cannot allocate all claims']);
    assert.match(onMig.filter.details[0], /^cannot allocate all claims: claim mig\/small-gpu-[a-z0-9]{5}, request gpu: needs 1 device, 0 of 7 matching available \(7 without enough shared counters left\)$/);

    // A second H100 with MIG: the slice lands on its GPU, whose parent is not the first slice's.
    await apply(gpuNode('bonsai-mig-extra', 'NVIDIA-H100-80GB-HBM3', { 'bonsai.dev/gpu-mig': 'true' }));
    await eventually(async () => (await json('get', 'pod', 'small', '-n', 'mig')).spec.nodeName === 'bonsai-mig-extra', 30_000, 'the 1g.10gb pod bound');
    const parents = await Promise.all(['big', 'small'].map(async (name) => {
      const p = await json('get', 'pod', name, '-n', 'mig');
      const claim = await json('get', 'resourceclaim', '-n', 'mig', p.status.resourceClaimStatuses[0].resourceClaimName);
      const r = claim.status.allocation.devices.results[0];
      const slices = (await json('get', 'resourceslices', '--field-selector', `spec.nodeName=${r.pool}`)).items as Json[];
      const device = slices.flatMap((s) => s.spec.devices ?? []).find((d: Json) => d.name === r.device);
      assert.ok(device, `${r.pool}/${r.device} is published`);
      return device.attributes.parentUUID.string as string;
    }));
    assert.notEqual(parents[0], parents[1]);
    await env.k.ok(['delete', 'namespace', 'mig', '--wait=false']);
  });
});
