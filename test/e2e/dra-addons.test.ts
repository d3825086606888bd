// DRA through the add-ons' templates with real kubectl: a JobSet whose pod template names a ResourceClaimTemplate
// gets one claim per pod (upstream's `<pod>-<claim>-<random>` names, owned by the pod), its pods land on the GPU
// nodes on distinct devices and the claims show allocated and reserved; the JobSet completes and its claims go, and
// deleting a running JobSet removes its claims. A LeaderWorkerSet whose leader and worker templates both carry a
// claim gets a device for every pod of every group; deleting it removes the claims.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer } from '../helpers/cluster.js';

type Json = Record<string, any>;
const clusterFile = join(mkdtempSync(join(tmpdir(), 'bonsai-dra-addons-')), 'cluster.yaml');
writeFileSync(clusterFile, [
  'nodePools:',
  '  - { name: cpu, count: 1, cpu: 16, memory: 64Gi }',
  '  - { name: l4, count: 2, cpu: 32, memory: 128Gi, gpu: { model: l4, count: 4 } }',
  '',
].join('\n'));

const fast = { 'bonsai.dev/pull-seconds': '0', 'bonsai.dev/start-seconds': '0', 'bonsai.dev/ready-seconds': '0' };
const gpuPodSpec = (command: string[], extra: Json = {}, claimTemplate = 'one-l4'): Json => ({
  ...extra,
  resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: claimTemplate }],
  containers: [{ name: 'cuda', image: 'nvidia/cuda:12.4.1-base-ubuntu22.04', command, resources: { claims: [{ name: 'gpu' }] } }],
});
const l4Template = (name: string, count: number): Json => ({
  apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name },
  spec: { spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.bonsai.dev', count, selectors: [{ cel: { expression: "device.attributes['gpu.bonsai.dev'].productName == 'NVIDIA L4'" } }] } }] } } },
});
const template = l4Template('one-l4', 1);
const jobSet = (name: string, replicas: number, command: string[], extra: Json = {}): Json => ({
  apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name },
  spec: {
    ...extra,
    replicatedJobs: [{
      name: 'workers', replicas,
      template: { spec: { parallelism: 2, completions: 2, backoffLimit: 0, template: { metadata: { annotations: fast }, spec: gpuPodSpec(command, { restartPolicy: 'Never' }) } } },
    }],
  },
});
const leaderWorkerSet = (name: string): Json => ({
  apiVersion: 'leaderworkerset.x-k8s.io/v1', kind: 'LeaderWorkerSet', metadata: { name },
  spec: {
    replicas: 2, startupPolicy: 'LeaderCreated',
    leaderWorkerTemplate: {
      size: 3,
      leaderTemplate: { metadata: { annotations: fast }, spec: gpuPodSpec(['sleep', '100000'], {}, 'two-l4') },
      workerTemplate: { metadata: { annotations: fast }, spec: gpuPodSpec(['sleep', '100000']) },
    },
  },
});

describe('DRA claims from JobSet and LeaderWorkerSet templates', () => {
  const env = useKubectlServer({ args: ['--addons', 'jobset,lws', '--cluster', clusterFile] });
  const apply = (...items: Json[]) => env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
  const json = async (...args: string[]): Promise<Json> => JSON.parse(await env.k.ok([...args, '-o', 'json']));
  const crd = (name: string) => eventually(async () => (await env.k.run(['get', 'crd', name])).code === 0, 30_000, `the ${name} CRD`);
  const podsOf = async (selector: string) => ((await json('get', 'pods', '-l', selector)).items as Json[]).filter((p) => !p.metadata.deletionTimestamp);
  const claims = async () => (await json('get', 'resourceclaims')).items as Json[];

  /** Waits until the pods are Running, then checks each holds its own generated claim on its own L4 devices (`devicesOf`: how many). */
  async function eachHoldsADevice(selector: string, count: number, devicesOf: (pod: Json) => number = () => 1): Promise<Json[]> {
    const pods = await eventually(async () => {
      const ps = await podsOf(selector);
      return ps.length === count && ps.every((p) => p.status?.phase === 'Running') ? ps : undefined;
    }, 60_000, `${count} pods Running (${selector})`);
    const byName = new Map((await claims()).map((c) => [c.metadata.name, c]));
    const devices = new Set<string>();
    for (const pod of pods) {
      assert.match(pod.spec.nodeName, /^bonsai-l4-\d$/, pod.metadata.name);
      const claimName = pod.status.resourceClaimStatuses?.[0]?.resourceClaimName;
      assert.match(claimName, new RegExp(`^${pod.metadata.name}-gpu-[a-z0-9]{5}$`), pod.metadata.name);
      const claim = byName.get(claimName);
      assert.ok(claim, `${claimName} listed`);
      assert.deepEqual(claim.metadata.ownerReferences.map((o: Json) => [o.kind, o.name, o.uid, o.controller]), [['Pod', pod.metadata.name, pod.metadata.uid, true]]);
      assert.equal(claim.metadata.annotations['resource.kubernetes.io/pod-claim-name'], 'gpu');
      assert.deepEqual(claim.status.reservedFor.map((r: Json) => r.name), [pod.metadata.name]);
      const results = claim.status.allocation.devices.results as Json[];
      assert.equal(results.length, devicesOf(pod), pod.metadata.name);
      assert.equal(claim.status.allocation.nodeSelector.nodeSelectorTerms[0].matchFields[0].values[0], pod.spec.nodeName);
      for (const r of results) devices.add(`${pod.spec.nodeName}/${r.device}`);
    }
    assert.equal(devices.size, pods.reduce((n, p) => n + devicesOf(p), 0), 'distinct devices');
    const table = await env.k.ok(['get', 'resourceclaims']);
    for (const pod of pods) assert.match(table, new RegExp(`${pod.status.resourceClaimStatuses[0].resourceClaimName}\\s+allocated,reserved`));
    return pods;
  }
  const noClaimsLeft = (what: string) => eventually(async () => (await claims()).length === 0, 60_000, `${what}: claims removed`);

  it('a JobSet: one claim per pod, distinct devices, completes, restarts, and its claims go with it', async () => {
    await crd('jobsets.jobset.x-k8s.io');
    await apply(template, jobSet('serve', 2, ['sleep', '100000']));
    await eachHoldsADevice('jobset.sigs.k8s.io/jobset-name=serve', 4);
    await env.k.ok(['delete', 'jobset', 'serve', '--wait=false']);
    await noClaimsLeft('JobSet deleted');

    // Eight pods for eight L4s, each finishing: the JobSet completes and the claims of finished pods are removed.
    await apply(jobSet('train', 4, ['sleep', '3']));
    await eventually(async () => {
      const ps = await podsOf('jobset.sigs.k8s.io/jobset-name=train');
      return ps.length === 8 && ps.every((p) => p.spec.nodeName && p.status?.resourceClaimStatuses?.length) ? true : undefined;
    }, 60_000, '8 pods bound with claims');
    const done = await eventually(async () => {
      const js = await json('get', 'jobset', 'train');
      return (js.status?.conditions ?? []).find((c: Json) => c.type === 'Completed' && c.status === 'True');
    }, 90_000, 'the JobSet Completed');
    assert.equal(done.reason, 'AllJobsCompleted');
    await noClaimsLeft('JobSet completed');

    // Every pod fails: the restarted attempt's eight pods need the eight L4s the failed attempt's pods held.
    await apply(jobSet('flaky', 4, ['sh', '-c', 'exit 1'], { failurePolicy: { maxRestarts: 1 } }));
    const failed = await eventually(async () => {
      const js = await json('get', 'jobset', 'flaky');
      return (js.status?.conditions ?? []).find((c: Json) => c.type === 'Failed' && c.status === 'True');
    }, 90_000, 'the JobSet Failed');
    assert.equal(failed.reason, 'ReachedMaxRestarts');
    // The attempt ends at its first failure: a pod its Job had not created by then never is (upstream alike), so
    // attempt 1 has up to eight pods, each of which got a device a pod of attempt 0 gave back, ran and failed.
    const attempt1 = (await podsOf('jobset.sigs.k8s.io/jobset-name=flaky,jobset.sigs.k8s.io/restart-attempt=1'));
    assert.ok(attempt1.length >= 1 && attempt1.length <= 8, `${attempt1.length} pods in attempt 1`);
    assert.deepEqual(attempt1.filter((p) => p.status?.phase !== 'Failed').map((p) => p.metadata.name), [], 'every pod of attempt 1 ran and failed');
    assert.ok(attempt1.every((p) => p.spec.nodeName && p.status?.resourceClaimStatuses?.length), 'every pod of attempt 1 was bound with its claim');
    await noClaimsLeft('JobSet failed');
    await env.k.ok(['delete', 'jobset', 'flaky', 'train', '--wait=false']);
  });

  it('a LeaderWorkerSet: every pod of every group holds its devices, across a rolling update; deleting it removes the claims', async () => {
    await crd('leaderworkersets.leaderworkerset.x-k8s.io');
    // Two groups of a 2-GPU leader and two 1-GPU workers: the eight L4s, all taken.
    await apply(template, l4Template('two-l4', 2), leaderWorkerSet('infer'));
    const selector = 'leaderworkerset.sigs.k8s.io/name=infer';
    const devicesOf = (p: Json) => (p.metadata.labels['leaderworkerset.sigs.k8s.io/worker-index'] === '0' ? 2 : 1);
    const pods = await eachHoldsADevice(selector, 6, devicesOf);
    assert.deepEqual(pods.map((p) => p.metadata.name).sort(), ['infer-0', 'infer-0-1', 'infer-0-2', 'infer-1', 'infer-1-1', 'infer-1-2']);
    for (const p of pods) assert.equal(p.spec.workloadRef.name, 'infer', `${p.metadata.name} in the group's gang`);

    // A template change replaces the groups one at a time: the new pods get the devices the old group gave back.
    const before = new Set(pods.map((p) => p.metadata.uid));
    await env.k.ok(['patch', 'lws', 'infer', '--type', 'json', '-p',
      JSON.stringify([{ op: 'add', path: '/spec/leaderWorkerTemplate/workerTemplate/metadata/labels', value: { version: 'two' } }])]);
    await eventually(async () => {
      const now = await podsOf(selector);
      return now.length === 6 && now.every((p) => !before.has(p.metadata.uid) && p.status?.phase === 'Running');
    }, 90_000, 'both groups replaced and Running');
    await eachHoldsADevice(selector, 6, devicesOf);
    // The claim controller removes a replaced pod's claim after the pod is gone: it may still be on its way.
    await eventually(async () => (await claims()).length === 6, 30_000, 'the replaced pods\' claims removed, one claim for each pod left');

    await env.k.ok(['delete', 'lws', 'infer', '--wait=false']);
    await noClaimsLeft('LeaderWorkerSet deleted');
  });
});
