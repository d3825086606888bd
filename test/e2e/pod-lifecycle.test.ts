// The simulated kubelet through real kubectl: run -> Running/Ready, wide columns, events, logs (-f, --previous,
// --tail), exit codes, CrashLoopBackOff, graceful deletion and in-place resize.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, type KubectlEnv, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;

const shellPod = (name: string, script: string, restartPolicy: string, extra: Json = {}) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { restartPolicy, terminationGracePeriodSeconds: 5, containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', script], ...extra }] },
});

function helpers(env: KubectlEnv) {
  const pod = async (name: string) => JSON.parse(await env.k.ok(['get', 'pod', name, '-o', 'json'])) as Json;
  const row = async (name: string) => (await env.k.ok(['get', 'pod', name, '--no-headers'])).trim().split(/\s+/);
  return { pod, row };
}

describe('pod lifecycle at real speed', () => {
  const env = useKubectlServer({ args: [...noAddons] });
  const { pod, row } = helpers(env);

  it('kubectl run is Running and Ready, with IP, node, events and logs', async () => {
    await eventually(async () => /\sReady\s/.test(await env.k.ok(['get', 'nodes', '--no-headers'])), 15_000, 'a Ready node');
    await env.k.ok(['run', 'web', '--image=nginx']);
    await eventually(async () => {
      const p = await pod('web');
      return p.status?.phase === 'Running' && p.status.conditions?.some((c: Json) => c.type === 'Ready' && c.status === 'True');
    }, 2000, 'Running and Ready');
    const [name, ready, status, restarts] = await row('web');
    assert.deepEqual([name, ready, status, restarts], ['web', '1/1', 'Running', '0']);
    const wide = (await env.k.ok(['get', 'pods', 'web', '-o', 'wide', '--no-headers'])).trim().split(/\s+/);
    const p = await pod('web');
    assert.match(wide[5], /^10\.\d+\.\d+\.\d+$/);
    assert.equal(wide[5], p.status.podIP);
    assert.equal(wide[6], p.spec.nodeName);
    assert.match(p.status.containerStatuses[0].containerID, /^containerd:\/\/[0-9a-f]{64}$/);
    assert.equal(p.status.containerStatuses[0].imageID.startsWith('docker.io/library/nginx@sha256:'), true);
    const describe = await env.k.ok(['describe', 'pod', 'web']);
    for (const reason of ['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started']) assert.match(describe, new RegExp(`Normal\\s+${reason}\\s`), reason);
    assert.match(describe, /Successfully pulled image "nginx" in \d+ms \(\d+ms including waiting\)\. Image size: \d+ bytes\./);
    assert.match(await env.k.ok(['logs', 'web']), /Configuration complete; ready for start up/);
    assert.match(await env.k.ok(['logs', 'web', '--tail=1']), /^\S+ \S+ \[notice\] 1#1: start worker processes\n$/);
  });

  it('a failing command with restartPolicy Never ends in Error with its exit code and output', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: shellPod('fail', 'echo hi; exit 3', 'Never') });
    await eventually(async () => (await pod('fail')).status?.phase === 'Failed', 10_000, 'phase Failed');
    const p = await pod('fail');
    assert.equal(p.status.containerStatuses[0].state.terminated.exitCode, 3);
    assert.equal(p.status.containerStatuses[0].state.terminated.reason, 'Error');
    assert.deepEqual((await row('fail')).slice(1, 4), ['0/1', 'Error', '0']);
    assert.equal(await env.k.ok(['logs', 'fail']), 'hi\n');
    assert.match(await env.k.ok(['logs', 'fail', '--timestamps']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z hi\n$/);
    assert.match(await env.k.fails(['logs', 'fail', '--previous']), /previous terminated container "c" in pod "fail" not found/);
  });

  it('a completed pod shows Completed', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: shellPod('done', 'echo one; echo two', 'Never') });
    await eventually(async () => (await pod('done')).status?.phase === 'Succeeded', 10_000, 'phase Succeeded');
    assert.deepEqual((await row('done')).slice(1, 3), ['0/1', 'Completed']);
    assert.equal(await env.k.ok(['logs', 'done', '--tail=1']), 'two\n');
  });

  it('init containers show Init:0/1, then the pod runs', async () => {
    const manifest = JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'init' },
      // Long enough for the two reads below on a busy machine.
      spec: { initContainers: [{ name: 'wait', image: 'busybox', command: ['sh', '-c', 'echo waiting; sleep 10'] }], containers: [{ name: 'c', image: 'nginx' }] },
    });
    await env.k.ok(['apply', '-f', '-'], { input: manifest });
    await eventually(async () => (await row('init'))[2] === 'Init:0/1', 3000, 'Init:0/1');
    assert.match(await env.k.fails(['logs', 'init']), /container "c" in pod "init" is waiting to start: PodInitializing/);
    await eventually(async () => (await env.k.run(['logs', 'init', '-c', 'wait'])).stdout === 'waiting\n', 3000, 'init container output');
    await eventually(async () => (await row('init'))[2] === 'Running', 10_000, 'Running');
  });

  it('resize through the resize subresource is reported by the kubelet; an impossible one is Infeasible', async () => {
    const manifest = JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'rs' },
      spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } } }] },
    });
    await env.k.ok(['apply', '-f', '-'], { input: manifest });
    await eventually(async () => (await pod('rs')).status?.containerStatuses?.[0]?.ready === true, 10_000, 'ready');
    await env.k.ok(['patch', 'pod', 'rs', '--subresource', 'resize', '-p', '{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"150m"}}}]}}']);
    await eventually(async () => (await pod('rs')).status?.containerStatuses?.[0]?.resources?.requests?.cpu === '150m', 10_000, 'resized cpu reported');
    const err = await env.k.fails(['patch', 'pod', 'rs', '--subresource', 'resize', '-p', '{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"200m","memory":"128Mi"}}}]}}']);
    assert.match(err, /Pod QOS Class may not change as a result of resizing/);
    await env.k.ok(['patch', 'pod', 'rs', '--subresource', 'resize', '-p', '{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"500"},"limits":{"cpu":"600"}}}]}}']);
    const cond = await eventually(async () => (await pod('rs')).status?.conditions?.find((c: Json) => c.type === 'PodResizePending'), 10_000, 'PodResizePending');
    assert.equal(cond.reason, 'Infeasible');
    assert.match(cond.message, /^Node didn't have enough capacity: cpu, requested: 500000, capacity: \d+$/);
  });

  it('delete runs the graceful stop and removes the pod', async () => {
    await env.k.ok(['delete', 'pod', 'web', '--wait=true', '--timeout=20s']);
    assert.equal((await env.k.run(['get', 'pod', 'web'])).code, 1);
    const events = await env.k.ok(['get', 'events', '--field-selector', 'involvedObject.name=web', '-o', 'json']);
    assert.ok((JSON.parse(events).items as Json[]).some((e) => e.reason === 'Killing' && e.message === 'Stopping container web'));
  });
});

describe('pod lifecycle on a fast clock', () => {
  const env = useKubectlServer({ args: [...noAddons, '--clock-speed', '20'] });
  const { pod, row } = helpers(env);

  it('restartPolicy Always crash-loops with growing restarts and keeps the previous logs', async () => {
    await eventually(async () => /\sReady\s/.test(await env.k.ok(['get', 'nodes', '--no-headers'])), 15_000, 'a Ready node');
    await env.k.ok(['apply', '-f', '-'], { input: shellPod('crash', 'echo hi; exit 3', 'Always') });
    await eventually(async () => (await row('crash'))[2] === 'CrashLoopBackOff', 15_000, 'CrashLoopBackOff');
    const first = (await pod('crash')).status.containerStatuses[0];
    assert.equal(first.state.waiting.reason, 'CrashLoopBackOff');
    assert.match(first.state.waiting.message, /^back-off \d+s restarting failed container=c pod=crash_default\([0-9a-f-]{36}\)$/);
    assert.equal(first.lastState.terminated.exitCode, 3);
    await eventually(async () => (await pod('crash')).status.containerStatuses[0].restartCount >= first.restartCount + 2, 20_000, 'more restarts');
    assert.equal(await env.k.ok(['logs', 'crash', '--previous']), 'hi\n');
    const describe = await env.k.ok(['describe', 'pod', 'crash']);
    assert.match(describe, /Warning\s+BackOff\s.*Back-off restarting failed container c in pod crash_default\(/);
  });

  it('logs -f streams lines as they are printed and ends when the container stops', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: shellPod('ticker', 'for i in 1 2 3 4; do echo line $i; sleep 20; done', 'Never') });
    await eventually(async () => (await pod('ticker')).status?.phase === 'Running', 10_000, 'Running');
    const r = await env.k.run(['logs', '-f', 'ticker'], { timeoutMs: 20_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'line 1\nline 2\nline 3\nline 4\n');
    await eventually(async () => (await pod('ticker')).status?.phase === 'Succeeded', 10_000, 'Succeeded');
  });
});
