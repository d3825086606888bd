// The Workload API and gang scheduling in-process: validation as upstream words it, PreEnqueue, all-or-nothing
// placement held at Permit, the Permit timeout, replica keys, and a gang completed by a node that joins later.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertStatus, useBonsai } from './http.js';
import { eventually } from '../helpers/kubectl.js';

type Json = Record<string, any>;
const WL = (ns: string) => `/apis/scheduling.k8s.io/v1alpha1/namespaces/${ns}/workloads`;
const PODS = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
const gpuToleration = { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' };

const workload = (name: string, groups: Json[], annotations: Record<string, string> = {}): Json => ({
  apiVersion: 'scheduling.k8s.io/v1alpha1', kind: 'Workload', metadata: { name, annotations }, spec: { podGroups: groups },
});
const gang = (name: string, minCount: number) => ({ name, policy: { gang: { minCount } } });
const pod = (name: string, ref: Json | undefined, gpus = 0): Json => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: {
    ...(ref ? { workloadRef: ref } : {}), tolerations: [gpuToleration],
    containers: [{ name: 'c', image: 'nginx', resources: gpus ? { limits: { 'nvidia.com/gpu': String(gpus) } } : { requests: { cpu: '10m' } } }],
  },
});

describe('Workload API and gang scheduling', () => {
  const { req } = useBonsai({ cluster: {} });

  const mkns = async (name: string) => assert.equal((await req('POST', '/api/v1/namespaces', { metadata: { name } })).status, 201);
  const podsOf = async (ns: string): Promise<Json[]> => (await req('GET', PODS(ns))).body.items;
  const bound = async (ns: string) => (await podsOf(ns)).filter((p) => p.spec.nodeName).length;
  const events = async (ns: string, name: string) =>
    ((await req('GET', `/api/v1/namespaces/${ns}/events`)).body.items as Json[]).filter((e) => e.involvedObject?.name === name && e.reason === 'FailedScheduling');

  it('validates Workloads and workloadRefs as upstream', async () => {
    const bad = await req('POST', WL('default'), workload('bad', [
      { name: 'a', policy: {} }, { name: 'a', policy: { basic: {}, gang: { minCount: 2 } } }, { name: 'Bad_Name', policy: { gang: { minCount: 0 } } },
    ]));
    const st = assertStatus(bad, 422, 'Invalid');
    assert.deepEqual(st.details.causes.map((c: Json) => [c.field, c.message]), [
      ['spec.podGroups[0].policy', 'Required value: exactly one of `basic`, `gang` is required'],
      ['spec.podGroups[1].name', 'Duplicate value: "a"'],
      ['spec.podGroups[1].policy', 'Invalid value: "{`basic`, `gang`}": exactly one of `basic`, `gang` is required, but multiple fields are set'],
      ['spec.podGroups[2].name', "Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"],
      ['spec.podGroups[2].policy.gang.minCount', 'Invalid value: 0: must be greater than zero'],
    ]);
    assertStatus(await req('POST', WL('default'), workload('none', [])), 422, 'Invalid', /spec.podGroups: Required value: must have at least one item/);
    const nine = Array.from({ length: 9 }, (_, i) => gang(`g${i}`, 1));
    assertStatus(await req('POST', WL('default'), workload('many', nine)), 422, 'Invalid', /spec.podGroups: Too many: 9: must have at most 8 items/);

    const ok = await req('POST', WL('default'), workload('ok', [gang('workers', 2)]));
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual(ok.body.spec.podGroups, [{ name: 'workers', policy: { gang: { minCount: 2 } } }]);
    const up = await req('PUT', `${WL('default')}/ok`, { ...ok.body, spec: { podGroups: [gang('workers', 3)] } });
    assertStatus(up, 422, 'Invalid', /podGroups: Invalid value: .*field is immutable/);

    const badRef = await req('POST', PODS('default'), pod('bad-ref', { name: 'Not_A_Name', podGroup: '', podGroupReplicaKey: 'UP' }));
    const causes = assertStatus(badRef, 422, 'Invalid').details.causes.map((c: Json) => c.field);
    assert.deepEqual(causes, ['spec.workloadRef.name', 'spec.workloadRef.podGroup', 'spec.workloadRef.podGroupReplicaKey']);
    // The field survives decoding (pruning keeps it) and is immutable.
    const kept = await req('POST', PODS('default'), pod('kept', { name: 'ok', podGroup: 'workers', podGroupReplicaKey: 'r0' }));
    assert.equal(kept.status, 201, kept.text);
    assert.deepEqual(kept.body.spec.workloadRef, { name: 'ok', podGroup: 'workers', podGroupReplicaKey: 'r0' });
    const change = await req('PATCH', `${PODS('default')}/kept`, { spec: { workloadRef: { name: 'other', podGroup: 'workers' } } }, { contentType: 'application/merge-patch+json' });
    assertStatus(change, 422, 'Invalid', /pod updates may not change fields/);
    await req('DELETE', `${PODS('default')}/kept?gracePeriodSeconds=0`);
  });

  it('holds gang pods before the queue until the Workload and minCount pods exist, then binds them together', async () => {
    await mkns('pre');
    for (const i of [0, 1]) assert.equal((await req('POST', PODS('pre'), pod(`p${i}`, { name: 'wl', podGroup: 'g' }))).status, 201);
    // No Workload yet, then a Workload with minCount 3 and only 2 pods: nothing is attempted (no event, no condition).
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await bound('pre'), 0);
    assert.equal((await req('POST', WL('pre'), workload('wl', [gang('g', 3)]))).status, 201);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await bound('pre'), 0);
    for (const p of await podsOf('pre')) assert.equal(p.status.conditions?.find((c: Json) => c.type === 'PodScheduled'), undefined, 'no attempt before PreEnqueue passes');
    assert.equal((await req('POST', PODS('pre'), pod('p2', { name: 'wl', podGroup: 'g' }))).status, 201);
    await eventually(async () => (await bound('pre')) === 3, 10_000, 'all three bound');
  });

  it('binds none of a gang that does not fit, says why, and binds all once a node joins', async () => {
    await mkns('big');
    assert.equal((await req('POST', WL('big'), workload('train', [gang('workers', 9)], { 'bonsai.dev/gang-scheduling-timeout-seconds': '1' }))).status, 201);
    for (let i = 0; i < 9; i++) assert.equal((await req('POST', PODS('big'), pod(`w${i}`, { name: 'train', podGroup: 'workers' }, 1))).status, 201);
    // Every pod ends up PodScheduled=False: the one that did not fit with the fit error, the others by the timeout.
    const conds = await eventually(async () => {
      const ps = await podsOf('big');
      const cs = ps.map((p) => p.status.conditions?.find((c: Json) => c.type === 'PodScheduled' && c.status === 'False'));
      return cs.every(Boolean) ? cs : undefined;
    }, 10_000, 'all nine unschedulable');
    assert.equal(await bound('big'), 0);
    const messages = conds.map((c: Json) => c.message as string);
    assert.ok(messages.some((m) => /^0\/5 nodes are available: .*Insufficient nvidia\.com\/gpu/.test(m)), messages.join('\n'));
    assert.equal(messages.filter((m) => m === 'rejected due to timeout after waiting 1s at plugin GangScheduling').length, 8, messages.join('\n'));
    // Pods are placed in queue order: the last one created is the one without a place.
    const last = (await podsOf('big')).find((p) => p.metadata.name === 'w8');
    assert.match(last?.status.conditions.find((c: Json) => c.type === 'PodScheduled').message, /^0\/5 nodes are available: /);
    assert.ok(conds.every((c: Json) => c.reason === 'Unschedulable'));
    assert.ok((await events('big', 'w0')).length + (await events('big', 'w8')).length > 0);

    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const capacity = { cpu: '8', memory: '32Gi', pods: '110', 'nvidia.com/gpu': '8' };
    const node = await req('POST', '/api/v1/nodes', {
      metadata: { name: 'gpu-extra', labels: { 'kubernetes.io/hostname': 'gpu-extra' } },
      status: { capacity, allocatable: capacity, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: now, lastTransitionTime: now }] },
    });
    assert.equal(node.status, 201, node.text);
    await eventually(async () => (await bound('big')) === 9, 20_000, 'all nine bound');
    const nodes = new Set((await podsOf('big')).map((p) => p.spec.nodeName));
    assert.deepEqual([...nodes].sort(), ['bonsai-gpu-1', 'gpu-extra']);
    await req('DELETE', '/api/v1/namespaces/big');
  });

  it('passes a Job template\'s workloadRef on to its pods, which are gang-scheduled', async () => {
    await mkns('job');
    assert.equal((await req('POST', WL('job'), workload('trainer', [gang('workers', 3)]))).status, 201);
    const tmpl = pod('x', { name: 'trainer', podGroup: 'workers' });
    const job = await req('POST', '/apis/batch/v1/namespaces/job/jobs', {
      metadata: { name: 'trainer' },
      spec: { parallelism: 3, completions: 3, template: { spec: { ...tmpl.spec, restartPolicy: 'Never' } } },
    });
    assert.equal(job.status, 201, job.text);
    assert.deepEqual(job.body.spec.template.spec.workloadRef, { name: 'trainer', podGroup: 'workers' });
    await eventually(async () => (await bound('job')) === 3, 10_000, 'the three job pods bound');
    for (const p of await podsOf('job')) assert.deepEqual(p.spec.workloadRef, { name: 'trainer', podGroup: 'workers' });
  });

  it('applies the policy per replica key, and basic groups schedule pod by pod', async () => {
    await mkns('rep');
    assert.equal((await req('POST', WL('rep'), workload('lws', [gang('group', 2), { name: 'extra', policy: { basic: {} } }]))).status, 201);
    await req('POST', PODS('rep'), pod('a0', { name: 'lws', podGroup: 'group', podGroupReplicaKey: 'a' }));
    await req('POST', PODS('rep'), pod('b0', { name: 'lws', podGroup: 'group', podGroupReplicaKey: 'b' }));
    await req('POST', PODS('rep'), pod('x0', { name: 'lws', podGroup: 'extra' }));
    await eventually(async () => (await podsOf('rep')).find((p) => p.metadata.name === 'x0')?.spec.nodeName, 10_000, 'the basic pod bound');
    assert.equal(await bound('rep'), 1, 'replicas a and b each have one of two pods');
    await req('POST', PODS('rep'), pod('a1', { name: 'lws', podGroup: 'group', podGroupReplicaKey: 'a' }));
    await eventually(async () => (await bound('rep')) === 3, 10_000, 'replica a bound');
    const unbound = (await podsOf('rep')).filter((p) => !p.spec.nodeName).map((p) => p.metadata.name);
    assert.deepEqual(unbound, ['b0']);
  });
});
