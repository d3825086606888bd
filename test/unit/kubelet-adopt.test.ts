// A kubelet process restarting adopts the pods and nodes an earlier run left: stable pods are written nothing,
// timers are rebuilt from the stored timestamps (a container due to exit during the downtime exits at its own time),
// a back-off being waited out ends where it would have, images that ran stay present, and a fresh node status or a
// valid Lease is not written again at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContainerStatus, Pod } from '../../src/generated/k8s/core/v1.js';
import { Harness, podSpec } from './kubelet-harness.js';
import { clientFor } from '../../src/client/client.js';
import { PodLifecycle } from '../../src/kubelet/pod-lifecycle.js';
import { defaultTimings } from '../../src/kubelet/types.js';
import { createLogger } from '../../src/util/logger.js';
import { adoptedStatusCurrent, adoptPod, backoffAfterRestarts, backoffOfMessage } from '../../src/kubelet/pod-adopt.js';
import { buildStatus } from '../../src/kubelet/pod-status.js';
import { jsonEqual } from '../../src/util/json-tree.js';
import { adoptLease, adoptNodeStatus } from '../../src/kubelet/node-adopt.js';
import { kubeletStatus } from '../../src/kubelet/node-status.js';
import { rfc3339Micro } from '../../src/util/clock.js';
import type { KObject } from '../../src/machinery/types.js';

const cs = (p: Pod | undefined): ContainerStatus => {
  const found = p?.status?.containerStatuses?.[0];
  assert.ok(found, 'a container status');
  return found;
};
const rv = (p: Pod | undefined) => p?.metadata?.resourceVersion;

/** Stops the harness's lifecycle, lets `downMs` pass with nothing running, and starts a new one (a process restart). */
function restart(h: Harness, downMs: number): PodLifecycle {
  h.lifecycle.stop();
  h.clock.advance(downMs);
  return new PodLifecycle({ client: clientFor(h.reg), clock: h.clock, log: createLogger('silent'), timings: defaultTimings }, h);
}

async function withHarness(fn: (h: Harness, restarted: (l: PodLifecycle) => void) => Promise<void>): Promise<void> {
  const h = await Harness.start();
  const later: PodLifecycle[] = [];
  try {
    await fn(h, (l) => later.push(l));
  } finally {
    for (const l of later) l.stop();
    h.close();
  }
}

test('stable pods are adopted without a write; a Never pod whose run time passed during the downtime completes at its own time', () => withHarness(async (h, restarted) => {
  await h.create(podSpec('web', { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '32Mi' } } }] }));
  await h.create(podSpec('probed', { containers: [{ name: 'c', image: 'nginx', readinessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 5 } }] }));
  await h.create(podSpec('job', { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'echo hi; sleep 10'] }] }));
  await h.create(podSpec('done', { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['true'] }] }));
  await h.run(5000);
  const before = new Map(['web', 'probed', 'job', 'done'].map((n) => [n, h.pod(n)!]));
  assert.equal(before.get('web')?.status?.phase, 'Running');
  assert.equal(before.get('probed')?.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
  assert.equal(before.get('job')?.status?.phase, 'Running');
  assert.equal(before.get('done')?.status?.phase, 'Succeeded');
  const jobStarted = Date.parse(cs(before.get('job')).state?.running?.startedAt ?? '');
  const events = h.store.count('core/events');
  restarted(restart(h, 20_000));
  await h.run(100);
  for (const n of ['web', 'probed', 'done']) assert.equal(rv(h.pod(n)), rv(before.get(n)), `${n}: no status write`);
  const job = h.pod('job');
  assert.equal(job?.status?.phase, 'Succeeded', 'the job exited while the server was down');
  assert.equal(Date.parse(cs(job).state?.terminated?.finishedAt ?? ''), jobStarted + 10_000, 'at its own time, not at the restart');
  assert.equal(h.store.count('core/events'), events, 'no events repeated for adopted containers');
  await h.run(30_000);
  assert.equal(rv(h.pod('web')), rv(before.get('web')), 'and none later');
}));

test('a back-off being waited out ends where it would have; the images that ran stay present on the node', () => withHarness(async (h, restarted) => {
  await h.create(podSpec('crash', { containers: [{ name: 'c', image: 'busybox', imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'exit 1'] }] }));
  // Until the third crash's back-off (10 s after the second exit, then 20 s) is being waited out.
  let p: Pod | undefined;
  for (let i = 0; i < 200; i++) {
    await h.run(500);
    p = h.pod('crash');
    if (cs(p).restartCount === 2 && cs(p).state?.waiting?.reason === 'CrashLoopBackOff') break;
  }
  assert.equal(cs(p).restartCount, 2);
  assert.match(cs(p).state?.waiting?.message ?? '', /^back-off 20s restarting/);
  const exitedAt = Date.parse(cs(p).lastState?.terminated?.finishedAt ?? '');
  const due = exitedAt + 20_000;
  const down = 5_000;
  const at = h.clock.nowMs();
  assert.ok(due > at + down + 1000, 'the back-off outlasts the downtime');
  restarted(restart(h, down));
  await h.run(100);
  assert.equal(rv(h.pod('crash')), rv(p), 'adopted in back-off: nothing written');
  await h.run(due - h.clock.nowMs() - 200);
  assert.equal(cs(h.pod('crash')).restartCount, 2, 'not restarted before its back-off ends');
  await h.run(1500);
  assert.equal(cs(h.pod('crash')).restartCount, 3, 'restarted when its back-off ended');
  // A new pod with the image the adopted container ran: already present on the node.
  await h.create(podSpec('again', { containers: [{ name: 'c', image: 'busybox', imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'] }] }));
  await h.run(1000);
  const reasons = h.events('again').map((e) => e.reason);
  assert.ok(!reasons.includes('Pulling'), `no pull: ${reasons.join(',')}`);
  assert.ok(reasons.includes('Pulled'));
}));

test('a pod pending part-way (a slow pull) carries on from its stored sandbox time', () => withHarness(async (h, restarted) => {
  await h.create(podSpec('slow', { containers: [{ name: 'c', image: 'nginx' }] }, { 'bonsai.dev/pull-seconds': '10' }));
  await h.run(2000);
  const p = h.pod('slow');
  assert.equal(p?.status?.phase, 'Pending');
  const sandbox = Date.parse(p?.status?.conditions?.find((c) => c.type === 'PodReadyToStartContainers')?.lastTransitionTime ?? '');
  restarted(restart(h, 3000));
  await h.run(100);
  assert.equal(h.pod('slow')?.status?.phase, 'Pending');
  await h.run(sandbox + 10_000 + defaultTimings.startMs + 200 - h.clock.nowMs());
  const started = Date.parse(cs(h.pod('slow')).state?.running?.startedAt ?? '');
  assert.equal(h.pod('slow')?.status?.phase, 'Running');
  assert.ok(started <= sandbox + 10_000 + defaultTimings.startMs + 1000, 'the pull was timed from the stored sandbox, not the restart');
}));

test('adoptPod rebuilds a container record from its status; back-off helpers read and extend upstream\'s sequence', () => {
  const pod = {
    metadata: { name: 'x', namespace: 'd', uid: 'u' },
    spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '1' } } }] },
    status: {
      phase: 'Running', podIP: '10.0.0.9', startTime: '2026-01-01T12:00:00Z',
      containerStatuses: [{
        name: 'c', ready: false, restartCount: 4, image: 'busybox', imageID: '', containerID: 'containerd://abc',
        state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 1m20s restarting failed container=c pod=x_d(u)' } },
        lastState: { terminated: { exitCode: 1, finishedAt: '2026-01-01T12:05:00Z' } },
      }],
    },
  };
  const now = Date.UTC(2026, 0, 1, 12, 5, 30);
  const { run, images } = adoptPod(pod, 'n', now);
  const c = run.containers[0];
  assert.equal(c.stage, 'backoff');
  assert.equal(c.dueMs, Date.UTC(2026, 0, 1, 12, 6, 20));
  assert.equal(c.waitingBackoffMs, 80_000);
  assert.equal(c.backoffMs, 160_000);
  assert.equal(run.podIP, '10.0.0.9');
  assert.deepEqual(images, ['busybox']);
  assert.equal(backoffOfMessage('back-off 5m0s restarting failed container=c'), 300_000);
  assert.equal(backoffOfMessage('something else'), undefined);
  assert.deepEqual([0, 1, 2, 3, 8].map(backoffAfterRestarts), [0, 10_000, 20_000, 40_000, 300_000]);
});

test('a fresh node status and a valid Lease are adopted; stale, changed or foreign ones are not', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  const id = { name: 'n1', internalIP: '172.18.0.5', bootSeed: '' };
  const status = (beatMs: number) => kubeletStatus({ ...id, current: undefined, heartbeat: new Date(beatMs), now: new Date(beatMs) });
  const node = (beatMs: number, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status: { ...status(beatMs), ...extra } });
  const report = 300_000;
  assert.equal(adoptNodeStatus(node(now - 60_000), id, now, report)?.nextReportMs, now - 60_000 + report);
  assert.equal(adoptNodeStatus(node(now - report - 1), id, now, report), undefined, 'stale');
  assert.equal(adoptNodeStatus(node(now - 1000, { nodeInfo: { kubeletVersion: 'v0' } }), id, now, report), undefined, 'not what the kubelet reports');
  const notReady = node(now - 1000);
  (notReady as unknown as { status: { conditions: Array<{ type: string; status: string }> } }).status.conditions.find((c) => c.type === 'Ready')!.status = 'Unknown';
  assert.equal(adoptNodeStatus(notReady, id, now, report), undefined, 'not Ready');
  const lease = (renewMs: number, holder = 'n1') => ({ metadata: { name: 'n1' }, spec: { holderIdentity: holder, leaseDurationSeconds: 40, renewTime: rfc3339Micro(new Date(renewMs)) } });
  for (let i = 0; i < 20; i++) {
    const at = adoptLease(lease(now - 5000), 'n1', now, 10_000);
    assert.ok(at !== undefined && at > now && at <= now + 10_000, 'renewed within the spread');
  }
  assert.equal(adoptLease(lease(now - 35_000), 'n1', now, 10_000), undefined, 'expires within the spread: renew at once');
  assert.equal(adoptLease(lease(now - 1000, 'other'), 'n1', now, 10_000), undefined);
  assert.equal(adoptLease(undefined, 'n1', now, 10_000), undefined);
});

test('adoptedStatusCurrent: true only when the status buildStatus would write equals the stored one; any changed field makes it false', () => withHarness(async (h) => {
  await h.create(podSpec('web', { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '32Mi' } } }] }));
  await h.create(podSpec('two', { containers: [{ name: 'b', image: 'nginx' }, { name: 'a', image: 'registry.k8s.io/pause:3.10' }] }));
  await h.create(podSpec('probed', { containers: [{ name: 'c', image: 'nginx', readinessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 5 } }] }));
  await h.create(podSpec('init', { initContainers: [{ name: 'i', image: 'busybox', command: ['true'] }], containers: [{ name: 'c', image: 'nginx' }] }));
  await h.create(podSpec('job', { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['true'] }] }));
  await h.run(5000);
  const now = h.clock.nowMs() + 20_000;
  const hostIP = h.agent('node-1')!.hostIP;
  const current = (p: Pod, ip = hostIP) => adoptedStatusCurrent(p, adoptPod(p, 'node-1', now).run, now, ip);
  for (const n of ['web', 'two', 'probed', 'init', 'job']) {
    const p = h.pod(n)!;
    const { run } = adoptPod(p, 'node-1', now);
    const fast = adoptedStatusCurrent(p, run, now, hostIP);
    // Whenever the check answers true, the full build agrees with it.
    if (fast) assert.ok(jsonEqual(buildStatus(p, run, now, hostIP), p.status, 32), `${n}: built status equals the stored one`);
    assert.equal(fast, ['web', 'two', 'probed'].includes(n), `${n}: fast path taken only for steady pods`);
  }
  const web = h.pod('web')!;
  const alter = (f: (p: Pod) => void) => {
    const p = JSON.parse(JSON.stringify(web)) as Pod;
    f(p);
    return current(p);
  };
  assert.equal(current(web, '10.9.9.9'), false, 'another host IP');
  assert.equal(alter((p) => { p.status!.containerStatuses![0].ready = false; }), false, 'readiness');
  assert.equal(alter((p) => { p.status!.containerStatuses![0].restartCount = 3; p.status!.containerStatuses![0].state = { waiting: { reason: 'ContainerCreating' } }; }), false, 'state');
  assert.equal(alter((p) => { p.spec!.containers[0].image = 'nginx:2'; }), false, 'image changed');
  assert.equal(alter((p) => { p.status!.containerStatuses![0].resources = { requests: { cpu: '20m' } }; }), false, 'resources');
  assert.equal(alter((p) => { p.status!.conditions![2].status = 'False'; }), false, 'Ready condition');
  assert.equal(alter((p) => { (p.metadata as { generation?: number }).generation = 7; }), false, 'generation');
  assert.equal(alter((p) => { p.status!.reason = 'x'; }), false, 'reason');
  assert.equal(alter(() => undefined), true, 'a plain copy');
}));
