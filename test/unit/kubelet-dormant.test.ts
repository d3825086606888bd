// Lazy adoption after a restart: a pod found steady (Running, ready, nothing timed ahead) is kept as stored and its
// runtime record, plans and logs are built on first need. Nothing observable changes: no write at the restart, the
// same logs when read, the same reaction to a change (a node's kubelet back after its pods were marked not ready,
// a deletion), and its images count as present on the node at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { Harness, podSpec } from './kubelet-harness.js';
import { clientFor } from '../../src/client/client.js';
import { PodLifecycle } from '../../src/kubelet/pod-lifecycle.js';
import { defaultTimings } from '../../src/kubelet/types.js';
import { createLogger } from '../../src/util/logger.js';
import { steadyAtRestart } from '../../src/kubelet/pod-dormant.js';
import { scripted } from '../../src/kubelet/command-runner.js';
import { logProvider } from '../../src/kubelet/log-provider.js';
import { appendContainerLogByUid } from '../../src/kubelet/container-log-append.js';
import type { KObject } from '../../src/machinery/types.js';

const rv = (p: Pod | undefined) => p?.metadata?.resourceVersion;
const hostIP = '172.18.0.3';

function restart(h: Harness, downMs: number, later: PodLifecycle[]): void {
  h.lifecycle.stop();
  h.clock.advance(downMs);
  later.push(new PodLifecycle({ client: clientFor(h.reg), clock: h.clock, log: createLogger('silent'), timings: defaultTimings }, h));
}

/** The log lines (times from the stored start: adoption reads a start time to the second). */
function logText(h: Harness, pod: Pod | undefined, container = 'c'): string {
  const r = logProvider(h.reg)!.read(pod as KObject, container, false);
  assert.ok('lines' in r, `logs of ${pod?.metadata?.name}: ${'error' in r ? r.error : ''}`);
  const started = Date.parse(pod?.status?.containerStatuses?.[0]?.state?.running?.startedAt ?? '');
  return r.lines.map((l) => `${Math.floor((l.atMs - started) / 1000)} ${l.text}`).join('\n');
}

async function withRestarts(fn: (h: Harness, later: PodLifecycle[]) => Promise<void>): Promise<void> {
  const h = await Harness.start();
  const later: PodLifecycle[] = [];
  try {
    await fn(h, later);
  } finally {
    for (const l of later) l.stop();
    h.close();
  }
}

test('steadyAtRestart: only Running, ready pods with nothing timed ahead', () => withRestarts(async (h) => {
  await h.create(podSpec('web', { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '32Mi' } } }] }));
  await h.create(podSpec('probed', { containers: [{ name: 'c', image: 'nginx', readinessProbe: { httpGet: { path: '/', port: 80 } } }] }));
  await h.create(podSpec('sleeper', { containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }] }));
  await h.create(podSpec('timed', { containers: [{ name: 'c', image: 'nginx' }] }, { 'bonsai.dev/run-seconds.c': '3600' }));
  await h.create(podSpec('never', { restartPolicy: 'Never', containers: [{ name: 'c', image: 'nginx' }] }));
  await h.create(podSpec('deadline', { activeDeadlineSeconds: 3600, containers: [{ name: 'c', image: 'nginx' }] }));
  await h.create(podSpec('init', { initContainers: [{ name: 'i', image: 'busybox', command: ['true'] }], containers: [{ name: 'c', image: 'nginx' }] }));
  await h.run(5000);
  const now = h.clock.nowMs();
  const steady = (n: string) => steadyAtRestart(h.pod(n)!, now, hostIP);
  for (const n of ['web', 'probed']) assert.equal(steady(n), true, n);
  for (const n of ['sleeper', 'timed', 'never', 'deadline', 'init']) assert.equal(steady(n), false, n);
  assert.equal(steadyAtRestart(h.pod('web')!, now, '172.18.0.4'), false, 'another host IP');
  const web = h.pod('web')!;
  const resized = { ...web, spec: { ...web.spec!, containers: [{ ...web.spec!.containers[0], resources: { requests: { cpu: '20m', memory: '16Mi' }, limits: { memory: '32Mi' } } }] } };
  assert.equal(steadyAtRestart(resized, now, hostIP), false, 'a resize to make');
  const deleting = { ...web, metadata: { ...web.metadata, deletionTimestamp: new Date(now).toISOString() } };
  assert.equal(steadyAtRestart(deleting, now, hostIP), false, 'being deleted');
  assert.equal(steadyAtRestart(web, Date.parse(web.status!.startTime!) - 1000, hostIP), false, 'started after now');
  assert.deepEqual([scripted(undefined, undefined), scripted(['nginx', '-g', 'daemon off;'], undefined), scripted(['sh', '-c', 'x'], undefined), scripted(undefined, ['sleep', '1']), scripted(['/bin/sh'], ['-c', 'x'])], [false, false, true, true, true]);
}));

test('a dormant pod writes nothing, reads the logs adoption would have built, and its images are present', () => withRestarts(async (h, later) => {
  await h.create(podSpec('web', { containers: [{ name: 'c', image: 'nginx', imagePullPolicy: 'IfNotPresent' }] }));
  await h.run(5000);
  const before = h.pod('web');
  const logs = logText(h, before);
  assert.ok(logs.length > 0, 'nginx prints its start-up lines');
  const events = h.store.count('core/events');
  restart(h, 20_000, later);
  await h.run(30_000);
  assert.equal(rv(h.pod('web')), rv(before), 'no status write');
  assert.equal(h.store.count('core/events'), events, 'no events');
  assert.equal(logText(h, h.pod('web')), logs, 'the same lines, at the same times');
  await h.create(podSpec('served', { containers: [{ name: 'c', image: 'nginx' }] }));
  await h.run(5000);
  restart(h, 1000, later);
  await h.run(1000);
  // A line printed into a dormant pod's container (an nginx access line) lands in the log adoption builds.
  const served = h.pod('served');
  assert.equal(appendContainerLogByUid(h.reg, served?.metadata?.uid ?? '', 'c', 'GET / 200'), true, 'a running container takes the line');
  assert.match(logText(h, h.pod('served')), /\d+ GET \/ 200$/);
  await h.create(podSpec('again', { containers: [{ name: 'c', image: 'nginx', imagePullPolicy: 'IfNotPresent' }] }));
  await h.run(2000);
  const reasons = h.events('again').map((e) => e.reason);
  assert.ok(!reasons.includes('Pulling') && reasons.includes('Pulled'), `no pull: ${reasons.join(',')}`);
  await h.run(30_000);
  assert.equal(rv(h.pod('web')), rv(before), 'and none later');
}));

test('a dormant pod changed by someone else wakes as adopted: its kubelet restores its status, a deletion ends it', () => withRestarts(async (h, later) => {
  await h.create(podSpec('web', { containers: [{ name: 'c', image: 'nginx' }] }));
  await h.create(podSpec('gone', { containers: [{ name: 'c', image: 'nginx' }] }));
  await h.run(5000);
  restart(h, 1000, later);
  await h.run(1000);
  // The node's kubelet stops; the node controller marks its pods not ready.
  h.stopAgent('node-1');
  const client = clientFor(h.reg);
  await client.guaranteedUpdate('v1/pods', 'default', 'web', (cur) => {
    const st = cur.status as Pod['status'];
    return { ...cur, status: { ...st, conditions: st!.conditions!.map((c) => (c.type === 'Ready' ? { ...c, status: 'False' } : c)) } };
  }, { subresource: 'status' });
  await h.run(1000);
  assert.equal(h.pod('web')?.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'False');
  h.startAgent('node-1');
  await h.run(1000);
  assert.equal(h.pod('web')?.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True', 'the kubelet reports it ready again');
  await client.delete('v1/pods', 'default', 'gone', { gracePeriodSeconds: 5 });
  await h.run(1000);
  const stopping = h.events('gone').map((e) => e.reason);
  assert.ok(stopping.includes('Killing'), `stopped: ${stopping.join(',')}`);
  await h.run(10_000);
  assert.equal(h.pod('gone'), undefined, 'deleted once its container stopped');
}));
