// Agent Sandbox through kubectl: a Sandbox gets one pod named after it, its volume claims and (with `service: true`)
// a headless Service; suspending deletes the pod and keeps the claim; resuming brings the pod back with the same name
// (hostname) and claim. v1alpha1's `replicas: 0` / `1` pauses and resumes as well.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer } from '../helpers/cluster.js';
import { eventually } from '../helpers/kubectl.js';

type Json = Record<string, any>;

const sandbox = (name: string, extra: Json = {}) => JSON.stringify({
  apiVersion: 'agents.x-k8s.io/v1beta1', kind: 'Sandbox', metadata: { name },
  spec: {
    podTemplate: {
      metadata: { labels: { app: 'agent' } },
      spec: { containers: [{ name: 'python', image: 'python:3.12', command: ['sleep', '3600'], ports: [{ containerPort: 8888 }], volumeMounts: [{ name: 'workspace', mountPath: '/work' }] }] },
    },
    volumeClaimTemplates: [{ metadata: { name: 'workspace' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    service: true,
    ...extra,
  },
});

describe('agent sandbox', () => {
  const env = useKubectlServer({ args: ['--addons', 'sandbox'] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const tryJson = async (...args: string[]) => {
    const r = await env.k.run(['get', ...args, '-o', 'json']);
    return r.code === 0 ? (JSON.parse(r.stdout) as Json) : undefined;
  };
  const cond = (sb: Json, type: string) => (sb.status?.conditions ?? []).find((c: Json) => c.type === type);
  const ready = async (name: string) => cond(await getJson('sandbox', name), 'Ready')?.status === 'True';

  it('runs one pod with its claim and a headless Service, then pauses and resumes with the same hostname and claim', async () => {
    await eventually(async () => (await env.k.run(['get', 'crd', 'sandboxes.agents.x-k8s.io'])).code === 0, 30_000, 'the Sandbox CRD');
    await eventually(async () => (await env.k.run(['apply', '-f', '-'], { input: sandbox('dev') })).code === 0, 15_000, 'sandbox created');
    await eventually(() => ready('dev'), 20_000, 'sandbox Ready');
    const sb = await getJson('sandbox', 'dev');
    assert.deepEqual({ ...cond(sb, 'Ready'), lastTransitionTime: undefined }, { type: 'Ready', status: 'True', reason: 'DependenciesReady', message: 'Pod is Ready; Service Exists', observedGeneration: 1, lastTransitionTime: undefined });
    assert.equal(cond(sb, 'Suspended').reason, 'NotSuspended');
    assert.equal(sb.status.serviceFQDN, 'dev.default.svc.cluster.local');
    assert.equal(sb.status.service, 'dev');
    assert.match(sb.status.selector, /^agents\.x-k8s\.io\/sandbox-name-hash=[0-9a-f]{8}$/);
    assert.equal(sb.metadata.annotations['agents.x-k8s.io/pod-name'], 'dev');
    assert.ok(sb.status.podIPs?.length, 'pod IPs reported');

    const pod = await getJson('pod', 'dev');
    assert.equal(pod.metadata.labels.app, 'agent');
    assert.equal(pod.metadata.labels['agents.x-k8s.io/sandbox-name-hash'], sb.status.selector.split('=')[1]);
    assert.deepEqual(pod.metadata.ownerReferences.map((r: Json) => [r.kind, r.name, r.controller]), [['Sandbox', 'dev', true]]);
    assert.deepEqual(pod.spec.volumes.find((v: Json) => v.name === 'workspace').persistentVolumeClaim, { claimName: 'workspace-dev' });
    const claim = await getJson('pvc', 'workspace-dev');
    const svc = await getJson('service', 'dev');
    assert.equal(svc.spec.clusterIP, 'None');
    assert.deepEqual(svc.spec.ports.map((p: Json) => [p.name, p.port]), [['p-8888-tcp', 8888]]);

    // Pause: the pod goes, the claim stays.
    await env.k.ok(['patch', 'sandbox', 'dev', '--type', 'merge', '-p', '{"spec":{"operatingMode":"Suspended"}}']);
    await eventually(async () => !(await tryJson('pod', 'dev')), 20_000, 'pod deleted');
    await eventually(async () => cond(await getJson('sandbox', 'dev'), 'Suspended')?.status === 'True', 10_000, 'Suspended');
    const paused = await getJson('sandbox', 'dev');
    assert.equal(cond(paused, 'Suspended').reason, 'PodTerminated');
    assert.deepEqual([cond(paused, 'Ready').status, cond(paused, 'Ready').reason, cond(paused, 'Ready').message], ['False', 'SandboxSuspended', 'Sandbox is suspended']);
    assert.equal((await getJson('pvc', 'workspace-dev')).metadata.uid, claim.metadata.uid, 'the claim is kept');

    // Resume: the same name (the pod's hostname) and the same claim.
    await env.k.ok(['patch', 'sandbox', 'dev', '--type', 'merge', '-p', '{"spec":{"operatingMode":"Running"}}']);
    await eventually(() => ready('dev'), 20_000, 'Ready again');
    const again = await getJson('pod', 'dev');
    assert.notEqual(again.metadata.uid, pod.metadata.uid, 'a new pod');
    assert.equal(again.metadata.name, 'dev');
    assert.equal(again.spec.hostname ?? again.metadata.name, pod.spec.hostname ?? pod.metadata.name);
    assert.deepEqual(again.spec.volumes.find((v: Json) => v.name === 'workspace').persistentVolumeClaim, { claimName: 'workspace-dev' });
    assert.equal((await getJson('pvc', 'workspace-dev')).metadata.uid, claim.metadata.uid);
    assert.equal((await getJson('service', 'dev')).metadata.uid, svc.metadata.uid);
  });

  it('pauses and resumes a v1alpha1 Sandbox with replicas', async () => {
    const alpha = JSON.parse(sandbox('old', { replicas: 0 }));
    alpha.apiVersion = 'agents.x-k8s.io/v1alpha1';
    delete alpha.spec.service;
    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify(alpha) });
    await eventually(async () => cond(await getJson('sandbox.v1alpha1.agents.x-k8s.io', 'old'), 'Suspended')?.status === 'True', 10_000, 'suspended from the start');
    assert.equal(await tryJson('pod', 'old'), undefined);
    assert.ok(await tryJson('pvc', 'workspace-old'), 'the claim exists while paused');
    await env.k.ok(['patch', 'sandbox.v1alpha1.agents.x-k8s.io', 'old', '--type', 'merge', '-p', '{"spec":{"replicas":1}}']);
    await eventually(() => ready('old'), 20_000, 'running once replicas is 1');
    const sb = await getJson('sandbox', 'old');
    assert.equal(cond(sb, 'Ready').message, 'Pod is Ready');
    assert.equal(sb.status.service, undefined, 'no service unless asked for');
  });

  it('a warm pool of 2 becomes ready, a claim takes one over and the pool refills to 2', async () => {
    const tmpl = JSON.parse(sandbox('py-tmpl'));
    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'extensions.agents.x-k8s.io/v1beta1', kind: 'SandboxTemplate', metadata: { name: 'py' }, spec: { podTemplate: tmpl.spec.podTemplate, volumeClaimTemplates: tmpl.spec.volumeClaimTemplates } }) });
    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'extensions.agents.x-k8s.io/v1beta1', kind: 'SandboxWarmPool', metadata: { name: 'pool' }, spec: { replicas: 2, sandboxTemplateRef: { name: 'py' } } }) });
    await eventually(async () => (await getJson('sandboxwarmpool', 'pool')).status?.readyReplicas === 2, 20_000, 'pool ready');
    const pool = await getJson('sandboxwarmpool', 'pool');
    assert.match(pool.status.selector, /^agents\.x-k8s\.io\/warm-pool-sandbox=[0-9a-f]{8}$/);
    const warm = (await getJson('sandbox', '-l', pool.status.selector)).items as Json[];
    assert.equal(warm.length, 2);
    const warmNames = warm.map((s) => s.metadata.name).sort();
    for (const s of warm) {
      assert.match(s.metadata.name, /^pool-[a-z0-9]{5}$/);
      assert.deepEqual(s.metadata.ownerReferences.map((r: Json) => [r.kind, r.name]), [['SandboxWarmPool', 'pool']]);
    }

    const claim = { apiVersion: 'extensions.agents.x-k8s.io/v1beta1', kind: 'SandboxClaim', metadata: { name: 'mine' }, spec: { warmPoolRef: { name: 'pool' } } };
    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify(claim) });
    await eventually(async () => cond(await getJson('sandboxclaim', 'mine'), 'Ready')?.status === 'True', 20_000, 'claim Ready');
    const c = await getJson('sandboxclaim', 'mine');
    assert.ok(warmNames.includes(c.status.sandbox.name), `claimed ${c.status.sandbox.name}, one of ${warmNames}`);
    assert.equal(cond(c, 'Ready').reason, 'DependenciesReady');
    const taken = await getJson('sandbox', c.status.sandbox.name);
    assert.deepEqual(taken.metadata.ownerReferences.map((r: Json) => [r.kind, r.name, r.controller]), [['SandboxClaim', 'mine', true]]);
    assert.equal(taken.metadata.labels['agents.x-k8s.io/warm-pool-sandbox'], undefined);
    const pod = await getJson('pod', c.status.sandbox.name);
    assert.equal(pod.metadata.name, c.status.sandbox.name, 'the pool sandbox pod is the claimed one');
    assert.deepEqual(pod.metadata.ownerReferences.map((r: Json) => [r.kind, r.name]), [['Sandbox', c.status.sandbox.name]]);

    // The pool refills to 2 with a new sandbox.
    await eventually(async () => {
      const p = await getJson('sandboxwarmpool', 'pool');
      return p.status?.readyReplicas === 2 && p.status?.replicas === 2;
    }, 20_000, 'pool refilled');
    const now = ((await getJson('sandbox', '-l', pool.status.selector)).items as Json[]).map((s) => s.metadata.name);
    assert.equal(now.length, 2);
    assert.ok(!now.includes(c.status.sandbox.name), 'the claimed sandbox left the pool');

    // A claim on an empty pool gets a Sandbox named after it, made from the pool's template.
    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'extensions.agents.x-k8s.io/v1beta1', kind: 'SandboxWarmPool', metadata: { name: 'empty' }, spec: { replicas: 0, sandboxTemplateRef: { name: 'py' } } }) });
    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ ...claim, metadata: { name: 'cold' }, spec: { warmPoolRef: { name: 'empty' } } }) });
    await eventually(async () => cond(await getJson('sandboxclaim', 'cold'), 'Ready')?.status === 'True', 20_000, 'cold claim Ready');
    assert.equal((await getJson('sandboxclaim', 'cold')).status.sandbox.name, 'cold');
    assert.deepEqual((await getJson('sandbox', 'cold')).metadata.ownerReferences.map((r: Json) => [r.kind, r.name]), [['SandboxClaim', 'cold']]);
  });

  it('deleting a Sandbox deletes its pod, service and claims', async () => {
    await env.k.ok(['delete', 'sandbox', 'dev']);
    await eventually(async () => !(await tryJson('pod', 'dev')) && !(await tryJson('service', 'dev')) && !(await tryJson('pvc', 'workspace-dev')), 20_000, 'dependents collected');
  });

  it('a user patch of what the controllers wrote warns of no unknown field (their status is of the served version)', async () => {
    for (const kind of ['sandbox', 'sandboxwarmpool', 'sandboxclaim']) {
      // (`old` was written in v1alpha1: its spec.replicas is the user's own, which Bonsai cannot convert.)
      const names = ((await getJson(kind)).items as Json[]).map((o) => o.metadata.name as string).filter((n) => n !== 'old');
      assert.ok(names.length > 0, `some ${kind} from the tests above`);
      for (const name of names) {
        const r = await env.k.run(['patch', kind, name, '--type', 'merge', '-p', '{"metadata":{"labels":{"touched":"yes"}}}']);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stderr, '', `${kind}/${name}`);
      }
    }
    const sb = await getJson('sandbox', 'old');
    assert.equal(sb.status.replicas, undefined);
  });
});
