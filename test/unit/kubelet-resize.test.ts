// pods/resize: the subresource's rules (only cpu/memory, no removal, same QoS class) and the kubelet's answer
// (actuated with PodResizeInProgress, Deferred while other pods hold the room, Infeasible beyond allocatable).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { buildServer } from '../../src/api/server.js';
import { createLogger } from '../../src/util/logger.js';
import { Harness, podSpec } from './kubelet-harness.js';

type Patch = Record<string, unknown>;

async function withServer(fn: (h: Harness, patch: (name: string, body: Patch, type?: string) => Promise<{ status: number; body: Record<string, any> }>) => Promise<void>): Promise<void> {
  const h = await Harness.start();
  const app: FastifyInstance = buildServer({ reg: h.reg, log: createLogger('silent') });
  const patch = async (name: string, body: Patch, type = 'application/strategic-merge-patch+json') => {
    const r = await app.inject({ method: 'PATCH', url: `/api/v1/namespaces/default/pods/${name}/resize`, headers: { 'content-type': type }, payload: JSON.stringify(body) });
    return { status: r.statusCode, body: JSON.parse(r.body) as Record<string, any> };
  };
  try {
    await fn(h, patch);
  } finally {
    await app.close();
    h.close();
  }
}

const burstable = { requests: { cpu: '500m', memory: '256Mi' }, limits: { cpu: '1', memory: '512Mi' } };
const resources = (r: Record<string, unknown>) => ({ spec: { containers: [{ name: 'c', resources: r }] } });

test('a fitting resize is actuated: PodResizeInProgress, then status resources follow the spec', () => withServer(async (h, patch) => {
  await h.create(podSpec('web', { containers: [{ name: 'c', image: 'nginx', resources: burstable }] }));
  await h.run(1000);
  const r = await patch('web', resources({ requests: { cpu: '750m' } }));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.metadata.generation, 2);
  assert.equal(r.body.spec.containers[0].image, 'nginx');
  assert.deepEqual(r.body.spec.containers[0].resources.requests, { cpu: '750m', memory: '256Mi' });
  await h.run(1);
  let p = h.pod('web') as Pod;
  assert.equal(p.status?.conditions?.[0]?.type, 'PodResizeInProgress');
  assert.equal(p.status?.containerStatuses?.[0]?.resources?.requests?.cpu, '500m');
  assert.equal((p.status?.containerStatuses?.[0] as { allocatedResources?: Record<string, string> }).allocatedResources?.cpu, '750m');
  await h.run(200);
  p = h.pod('web') as Pod;
  assert.ok(!p.status?.conditions?.some((c) => c.type.startsWith('PodResize')));
  assert.equal(p.status?.containerStatuses?.[0]?.resources?.requests?.cpu, '750m');
  assert.equal(p.status?.containerStatuses?.[0]?.restartCount, 0);
}));

test('a resource with resizePolicy RestartContainer is applied by restarting the container', () => withServer(async (h, patch) => {
  await h.create(podSpec('rc', {
    containers: [{ name: 'c', image: 'nginx', resources: burstable, resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }] }],
  }));
  await h.run(1000);
  assert.equal((await patch('rc', resources({ requests: { cpu: '600m' } }))).status, 200);
  await h.run(500);
  assert.equal(h.pod('rc')?.status?.containerStatuses?.[0]?.restartCount, 0, 'cpu resizes in place');
  assert.equal((await patch('rc', resources({ requests: { memory: '300Mi' } }))).status, 200);
  await h.run(500);
  const st = h.pod('rc')?.status?.containerStatuses?.[0];
  assert.equal(st?.restartCount, 1);
  assert.ok(st?.state?.running);
  assert.equal(st?.resources?.requests?.memory, '300Mi');
}));

test('a resize that does not fit next to other pods is Deferred until room frees up', () => withServer(async (h, patch) => {
  await h.create(podSpec('web', { containers: [{ name: 'c', image: 'nginx', resources: burstable }] }));
  await h.create(podSpec('big', { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '3' } } }] }));
  await h.run(1000);
  assert.equal((await patch('web', resources({ requests: { cpu: '2' }, limits: { cpu: '2' } }))).status, 200);
  await h.run(10);
  const pending = h.pod('web')?.status?.conditions?.[0];
  assert.equal(pending?.type, 'PodResizePending');
  assert.equal(pending?.reason, 'Deferred');
  assert.equal(pending?.message, "Node didn't have enough resource: cpu, requested: 2000, used: 3000, capacity: 4000");
  await h.reg.delete(h.reg.find('', 'v1', 'pods')!, 'default', 'big', { gracePeriodSeconds: 0 });
  await h.run(6000);
  const p = h.pod('web') as Pod;
  assert.ok(!p.status?.conditions?.some((c) => c.type.startsWith('PodResize')));
  assert.equal(p.status?.containerStatuses?.[0]?.resources?.requests?.cpu, '2');
}));

test('resize validation: QoS class, other resources, removals, init containers, renames', () => withServer(async (h, patch) => {
  await h.create(podSpec('web', {
    initContainers: [{ name: 'init', image: 'busybox', command: ['true'], resources: { requests: { cpu: '100m' } } }],
    containers: [{ name: 'c', image: 'nginx', resources: burstable }],
  }));
  await h.create(podSpec('plain', { containers: [{ name: 'c', image: 'nginx', resources: burstable }] }));
  await h.run(2000);
  const qos = await patch('plain', resources({ requests: { cpu: '1', memory: '512Mi' } }));
  assert.equal(qos.status, 422);
  assert.equal(qos.body.message, 'Pod "plain" is invalid: spec: Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing');
  const other = await patch('web', resources({ limits: { 'ephemeral-storage': '1Gi' } }));
  assert.match(other.body.message, /spec: Forbidden: only cpu and memory resources are mutable/);
  const removed = await patch('web', { spec: { containers: [{ name: 'c', resources: { limits: { memory: null } } }] } });
  assert.match(removed.body.message, /spec\.containers\[0\]\.resources\.limits\[memory\]: Forbidden: resource limits cannot be removed/);
  const init = await patch('web', { spec: { initContainers: [{ name: 'init', resources: { requests: { cpu: '200m' } } }] } });
  assert.match(init.body.message, /spec\.initContainers\[0\]\.resources: Forbidden: resources for non-sidecar init containers are immutable/);
  const renamed = await patch('web', { spec: { containers: [{ name: 'other', image: 'nginx' }] } }, 'application/merge-patch+json');
  assert.match(renamed.body.message, /containers may not be renamed or reordered on resize/);
  const bad = await patch('web', resources({ requests: { cpu: '2' } }));
  assert.match(bad.body.message, /spec\.containers\[0\]\.resources\.requests\[cpu\]: Invalid value: "2": must be less than or equal to cpu limit of 1/);
  assert.equal(h.pod('web')?.metadata?.generation, 1, 'nothing was written');
}));
