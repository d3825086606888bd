// Pod lifecycle behaviour on a manual clock: timings, init order, restarts and back-off, probes, node agents
// coming and going, process restarts, graceful termination, deadlines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContainerStatus, Pod } from '../../src/generated/k8s/core/v1.js';
import { type Harness, podSpec, withHarness } from './kubelet-harness.js';
import { clientFor } from '../../src/client/client.js';
import { PodLifecycle } from '../../src/kubelet/pod-lifecycle.js';
import { defaultTimings } from '../../src/kubelet/types.js';
import { createLogger } from '../../src/util/logger.js';

const cs = (p: Pod | undefined, name?: string): ContainerStatus => {
  const all = [...(p?.status?.initContainerStatuses ?? []), ...(p?.status?.containerStatuses ?? [])];
  const found = name ? all.find((c) => c.name === name) : p?.status?.containerStatuses?.[0];
  assert.ok(found, `status of ${name ?? 'the container'}`);
  return found;
};
const cond = (p: Pod | undefined, type: string) => p?.status?.conditions?.find((c) => c.type === type)?.status;
const reasons = (h: Harness, name: string) => h.events(name).map((e) => e.reason);

test('a plain pod is Running and Ready well within 2 s on the default timings', () => withHarness(async (h) => {
  await h.create(podSpec('web', { containers: [{ name: 'web', image: 'nginx' }] }));
  await h.run(349);
  assert.equal(cond(h.pod('web'), 'Ready'), 'False');
  await h.run(1);
  const p = h.pod('web');
  assert.equal(p?.status?.phase, 'Running');
  assert.equal(cond(p, 'Ready'), 'True');
  assert.equal(p?.status?.podIP, '10.244.1.2');
  assert.equal(p?.status?.hostIP, '172.18.0.3');
  assert.deepEqual(reasons(h, 'web'), ['Pulling', 'Pulled', 'Created', 'Started']);
}));

test('init containers run in order, a sidecar keeps running, then the main containers start', () => withHarness(async (h) => {
  await h.create(podSpec('app', {
    initContainers: [
      { name: 'a', image: 'busybox', command: ['sh', '-c', 'echo a; sleep 2'] },
      { name: 'side', image: 'busybox', restartPolicy: 'Always', command: ['sleep', 'infinity'] },
      { name: 'b', image: 'busybox', command: ['true'] },
    ],
    containers: [{ name: 'main', image: 'nginx' }],
  }));
  await h.run(1000);
  let p = h.pod('app');
  assert.ok(cs(p, 'a').state?.running);
  assert.equal(cs(p, 'side').state?.waiting?.reason, 'PodInitializing');
  assert.equal(cs(p, 'main').state?.waiting?.reason, 'PodInitializing');
  assert.equal(p?.status?.conditions?.find((c) => c.type === 'Initialized')?.message, 'containers with incomplete status: [a side b]');
  await h.run(5000);
  p = h.pod('app');
  assert.equal(cs(p, 'a').state?.terminated?.reason, 'Completed');
  assert.ok(cs(p, 'side').state?.running);
  assert.equal(cs(p, 'side').started, true);
  assert.equal(cs(p, 'b').state?.terminated?.exitCode, 0);
  assert.ok(cs(p, 'main').state?.running);
  assert.equal(p?.status?.phase, 'Running');
  assert.equal(cond(p, 'Ready'), 'True');
}));

test('restartPolicy OnFailure restarts a failed container; a successful one completes the pod', () => withHarness(async (h) => {
  await h.create(podSpec('job', { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox', imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'exit 1'] }] }));
  await h.run(2000);
  const p = h.pod('job');
  assert.equal(p?.status?.phase, 'Running');
  assert.equal(cs(p).restartCount, 1);
  assert.equal(cs(p).lastState?.terminated?.exitCode, 1);
  assert.ok(reasons(h, 'job').includes('BackOff'));
  await h.create(podSpec('ok', { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox', command: ['true'] }] }));
  await h.run(2000);
  assert.equal(h.pod('ok')?.status?.phase, 'Succeeded');
}));

test('CrashLoopBackOff doubles from 10 s to 5 min', () => withHarness(async (h) => {
  await h.create(podSpec('crash', { containers: [{ name: 'c', image: 'busybox', imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'exit 2'] }] }));
  const seen: string[] = [];
  for (let i = 0; i < 100; i++) {
    await h.run(5000);
    const msg = cs(h.pod('crash')).state?.waiting?.message;
    const m = msg?.match(/^back-off (\S+) restarting failed container=c pod=crash_default\(/);
    if (m && seen.at(-1) !== m[1]) seen.push(m[1]);
  }
  assert.deepEqual(seen.slice(0, 6), ['10s', '20s', '40s', '1m20s', '2m40s', '5m0s']);
  assert.ok(cs(h.pod('crash')).restartCount >= 6);
}));

test('a failing liveness probe kills and restarts the container', () => withHarness(async (h) => {
  await h.create(podSpec('live', {
    containers: [{ name: 'c', image: 'nginx', livenessProbe: { httpGet: { path: '/healthz', port: 80 }, periodSeconds: 5, failureThreshold: 3 } }],
  }, { 'bonsai.dev/liveness-fail-after-seconds': '10' }));
  await h.run(25_000);
  const p = h.pod('live');
  assert.equal(cs(p).restartCount, 1);
  assert.equal(cs(p).lastState?.terminated?.exitCode, 137);
  const events = h.events('live');
  assert.ok(events.some((e) => e.reason === 'Unhealthy' && e.message === 'Liveness probe failed: HTTP probe failed with statuscode: 500'));
  assert.ok(events.some((e) => e.reason === 'Killing' && e.message === 'Container c failed liveness probe, will be restarted'));
}));

test('a readiness probe delays Ready by initialDelaySeconds and successThreshold periods', () => withHarness(async (h) => {
  const probe = { httpGet: { path: '/', port: 80 }, initialDelaySeconds: 5, periodSeconds: 2, successThreshold: 2 };
  await h.create(podSpec('slow', { containers: [{ name: 'c', image: 'nginx', readinessProbe: probe }] }));
  await h.run(7000);
  assert.equal(cond(h.pod('slow'), 'Ready'), 'False');
  await h.run(500);
  assert.equal(cond(h.pod('slow'), 'Ready'), 'True');
}));

test('pods on a node without a running agent are left alone until the agent starts', () => withHarness(async (h) => {
  h.stopAgent('node-1');
  await h.create(podSpec('wait', { containers: [{ name: 'c', image: 'nginx' }] }));
  await h.run(5000);
  assert.equal(h.pod('wait')?.status?.conditions, undefined);
  h.startAgent('node-1');
  await h.run(1000);
  assert.equal(h.pod('wait')?.status?.phase, 'Running');
}));

test('after a process restart a running pod keeps running and a Never pod still exits on time', () => withHarness(async (h) => {
  await h.create(podSpec('web', { containers: [{ name: 'c', image: 'nginx' }] }));
  await h.create(podSpec('job', { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'echo hi; sleep 10'] }] }));
  await h.run(2000);
  const started = cs(h.pod('web')).state?.running?.startedAt;
  h.lifecycle.stop();
  const again = new PodLifecycle({ client: clientFor(h.reg), clock: h.clock, log: createLogger('silent'), timings: defaultTimings }, h);
  try {
    await h.run(5000);
    assert.equal(cs(h.pod('web')).state?.running?.startedAt, started);
    assert.equal(h.events('web').filter((e) => e.reason === 'Started').length, 1);
    assert.equal(h.pod('job')?.status?.phase, 'Running');
    await h.run(5000);
    assert.equal(h.pod('job')?.status?.phase, 'Succeeded');
  } finally {
    again.stop();
  }
}));

test('graceful deletion waits for preStop; a hook longer than the grace period ends with 137', () => withHarness(async (h) => {
  const def = h.reg.find('', 'v1', 'pods')!;
  const hooked = (name: string, seconds: number) => h.create(podSpec(name, { containers: [{ name: 'c', image: 'nginx', lifecycle: { preStop: { sleep: { seconds } } } }] }));
  await hooked('soft', 3);
  await hooked('hard', 60);
  await h.run(1000);
  await h.reg.delete(def, 'default', 'soft', {});
  await h.reg.delete(def, 'default', 'hard', { gracePeriodSeconds: 2 });
  const finals = new Map<string, Pod>();
  const stop = h.store.hub.subscribe('core/pods', (c) => {
    if (c.type !== 'DELETED') finals.set(c.object.metadata.name ?? '', c.object);
  });
  await h.run(1900);
  assert.ok(h.pod('hard') && h.pod('soft'));
  await h.run(200);
  assert.equal(h.pod('hard'), undefined);
  assert.equal(cs(finals.get('hard')).state?.terminated?.exitCode, 137);
  assert.equal(finals.get('hard')?.status?.phase, 'Failed');
  await h.run(1000);
  assert.equal(h.pod('soft'), undefined);
  assert.equal(cs(finals.get('soft')).state?.terminated?.reason, 'Completed');
  assert.equal(finals.get('soft')?.status?.phase, 'Succeeded');
  stop();
  assert.ok(h.events('soft').some((e) => e.reason === 'Killing' && e.message === 'Stopping container c'));
  assert.equal(h.agents.get('node-1')?.ips.size, 0, 'pod IPs released');
}));

test('activeDeadlineSeconds fails the pod with DeadlineExceeded', () => withHarness(async (h) => {
  await h.create(podSpec('dl', { activeDeadlineSeconds: 5, containers: [{ name: 'c', image: 'nginx' }] }));
  await h.run(6000);
  const p = h.pod('dl');
  assert.equal(p?.status?.phase, 'Failed');
  assert.equal(p?.status?.reason, 'DeadlineExceeded');
  assert.equal(cs(p).state?.terminated?.exitCode, 137);
}));
