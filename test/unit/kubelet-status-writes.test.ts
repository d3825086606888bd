// How many writes a pod costs on its way to Running: the binding is one write (node name and PodScheduled together),
// and the kubelet posts the first status (ContainerCreating) and then Running, with quick start-up steps folded
// into that write and longer ones (a slow pull, a readiness delay) written as they happen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { type Harness, podSpec, withHarness } from './kubelet-harness.js';
import { bindPod } from '../../src/registry/pod-binding.js';
import { clientFor } from '../../src/client/client.js';
import type { KObject } from '../../src/machinery/types.js';

const cond = (p: Pod | undefined, type: string) => p?.status?.conditions?.find((c) => c.type === type)?.status;
const waiting = (p: Pod | undefined) => p?.status?.containerStatuses?.[0]?.state?.waiting?.reason;

/** The pod as each write left it, from a watch opened before the pod exists. */
function recordWrites(h: Harness, name: string): Pod[] {
  const seen: Pod[] = [];
  clientFor(h.reg).watch('v1/pods', (c) => {
    if (c.object.metadata.name === name && c.type === 'MODIFIED') seen.push(c.object as Pod);
  });
  return seen;
}

test('a plain pod goes from its first status to Running and Ready in one more write', () => withHarness(async (h) => {
  const writes = recordWrites(h, 'web');
  await h.create(podSpec('web', { containers: [{ name: 'web', image: 'nginx' }] }));
  await h.run(2000);
  assert.equal(writes.length, 2, writes.map((p) => `${p.status?.phase} ${waiting(p) ?? ''}`).join(', '));
  const [first, second] = writes;
  assert.equal(first.status?.phase, 'Pending');
  assert.equal(waiting(first), 'ContainerCreating');
  assert.equal(cond(first, 'PodReadyToStartContainers'), 'False');
  assert.equal(first.status?.podIP, undefined);
  assert.equal(second.status?.phase, 'Running');
  for (const type of ['PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'Ready']) assert.equal(cond(second, type), 'True', type);
  assert.ok(second.status?.containerStatuses?.[0]?.state?.running);
  assert.equal(second.status?.podIP, '10.244.1.2');
  // The events stay as the kubelet records them.
  assert.deepEqual(h.events('web').map((e) => e.reason), ['Pulling', 'Pulled', 'Created', 'Started']);
}));

test('a slow pull keeps its state visible: sandbox up and ContainerCreating while the image is pulled', () => withHarness(async (h) => {
  const writes = recordWrites(h, 'slow');
  await h.create(podSpec('slow', { containers: [{ name: 'web', image: 'nginx' }] }, { 'bonsai.dev/pull-seconds': '2' }));
  await h.run(1000);
  const p = h.pod('slow');
  assert.equal(cond(p, 'PodReadyToStartContainers'), 'True');
  assert.equal(waiting(p), 'ContainerCreating');
  assert.equal(p?.status?.podIP, '10.244.1.2');
  await h.run(2000);
  assert.equal(h.pod('slow')?.status?.phase, 'Running');
  assert.equal(writes.length, 3);
}));

test('a readiness delay writes Running before Ready', () => withHarness(async (h) => {
  const writes = recordWrites(h, 'probe');
  await h.create(podSpec('probe', { containers: [{ name: 'web', image: 'nginx', readinessProbe: { httpGet: { path: '/', port: 80 }, initialDelaySeconds: 3 } }] }));
  await h.run(1000);
  const p = h.pod('probe');
  assert.equal(p?.status?.phase, 'Running');
  assert.equal(cond(p, 'Ready'), 'False');
  await h.run(5000);
  assert.equal(cond(h.pod('probe'), 'Ready'), 'True');
  assert.equal(writes.length, 3);
}));

test('the binding is one write: node name, annotations and PodScheduled=True; the generation stays', () => withHarness(async (h) => {
  const def = h.reg.find('', 'v1', 'pods')!;
  await h.reg.create(def, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'free' }, spec: { schedulerName: 'none', containers: [{ name: 'c', image: 'nginx' }] } } as KObject);
  const writes = recordWrites(h, 'free');
  const rv = h.store.revision();
  const binding = { metadata: { name: 'free', annotations: { 'example.com/why': 'test' } }, target: { kind: 'Node', name: 'node-2' } } as KObject;
  const out = bindPod(h.reg, 'default', 'free', binding, false) as Pod;
  assert.equal(h.store.revision(), rv + 1);
  await h.settle();
  assert.equal(writes.length, 1);
  assert.equal(out.spec?.nodeName, 'node-2');
  assert.equal(out.metadata?.generation, 1);
  assert.equal(out.metadata?.annotations?.['example.com/why'], 'test');
  const scheduled = out.status?.conditions?.find((c) => c.type === 'PodScheduled');
  assert.equal(scheduled?.status, 'True');
  assert.equal(scheduled?.lastTransitionTime, '2026-01-01T12:00:00Z');
  assert.throws(() => bindPod(h.reg, 'default', 'free', binding, false), /already assigned to node "node-2"/);
  // A dry run writes nothing.
  await h.reg.create(def, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'dry' }, spec: { schedulerName: 'none', containers: [{ name: 'c', image: 'nginx' }] } } as KObject);
  const before = h.store.revision();
  const dry = bindPod(h.reg, 'default', 'dry', binding, true) as Pod;
  assert.equal(dry.spec?.nodeName, 'node-2');
  assert.equal(h.store.revision(), before);
}));
