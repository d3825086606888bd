// `bonsai lesson NAME` as a learner meets it: each lesson runs as a child process against a `bonsai serve` (clock
// 10x), and the test plays the learner, reading the lesson's output and running the kubectl (and `bonsai node`)
// commands it asks for, then checks the ✓ lines and the exit code.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer } from '../helpers/cluster.js';
import { LessonRun } from '../helpers/lesson-learner.js';
import { runBonsai } from '../helpers/server.js';

type Json = Record<string, any>;

describe('bonsai lesson', () => {
  const env = useKubectlServer({ args: ['--clock-speed', '10'] });
  const lesson = (name: string) => new LessonRun(name, env.server.kubeconfig);

  it('lists the three lessons', async () => {
    const r = await runBonsai(['lesson']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}rolling-update {2}.*\n {2}node-failure {4}.*\n {2}gpu-gang {8}/m);
    const unknown = await runBonsai(['lesson', 'nope', '--kubeconfig', env.server.kubeconfig]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no lesson named "nope"/);
  });

  it('rolling-update: the learner watches the stalled rollout, inspects the failing pod and rolls back', async () => {
    const run = lesson('rolling-update');
    await run.waitFor(/✓ web is Available: 3\/3 replicas available on nginx:1\.27/);
    await run.waitFor(/Step 2\/3: A broken release/);
    // The learner watches the rollout, which does not finish.
    const status = await env.k.run(['rollout', 'status', 'deployment/web', '--timeout=2s']);
    assert.notEqual(status.code, 0);
    // Waiting, or (on a slow machine, past the 60 s deadline at 10x) giving up on the deadline.
    assert.match(`${status.stdout}${status.stderr}`, /Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated|deployment "web" exceeded its progress deadline/);
    const [, failing] = await run.waitFor(/✓ the new version does not run: (\S+) is (ErrImagePull|ImagePullBackOff)/);
    const describePod = await env.k.ok(['describe', 'pod', failing]);
    assert.match(describePod, /Image:\s+nginx:1\.72/);
    assert.match(describePod, /Warning\s+Failed\s+.*Failed to pull image "nginx:1\.72"/);
    // The old pods kept serving meanwhile.
    const deploy = JSON.parse(await env.k.ok(['get', 'deployment', 'web', '-o', 'json'])) as Json;
    assert.equal(deploy.status.availableReplicas, 3);
    await run.waitFor(/Step 3\/3: Roll back\n(?: {2}.*\n)*? {2}kubectl rollout undo deployment\/web/);
    await env.k.ok(['rollout', 'undo', 'deployment/web']);
    assert.equal(await run.finished(), 0, run.output());
    assert.deepEqual(run.checks().map((l) => l.split(':')[0]), [
      '✓ web is Available', '✓ the new version does not run', '✓ rolled back', '✓ web is Available on the good revision',
    ]);
    assert.match(run.output(), /✓ web is Available on the good revision: 3\/3 available on nginx:1\.27, ReplicaSet web-\S+ scaled to 0/);
    assert.match(run.output(), /Lesson rolling-update complete\.\n$/);
    assert.match(await env.k.ok(['rollout', 'status', 'deployment/web', '--timeout=10s']), /successfully rolled out/);
  });

  it('node-failure: a node is stopped, its pods move, a drain keeps the budget, both nodes come back', async () => {
    const run = lesson('node-failure');
    await run.waitFor(/✓ frontend is Available: 4 pods on /);
    const [, failed] = await run.waitFor(/npx bonsai node stop (\S+) /);
    const stop = await runBonsai(['node', 'stop', failed, '--kubeconfig', env.server.kubeconfig]);
    assert.equal(stop.code, 0, stop.stderr);
    await run.waitFor(new RegExp(`✓ the node failed: ${failed} is NotReady`));
    assert.match(await env.k.ok(['get', 'node', failed]), new RegExp(`${failed}\\s+NotReady`));
    await run.waitFor(/✓ its pods were evicted and replaced: \d+ pods? evicted from/);
    const [, other] = await run.waitFor(/kubectl drain (\S+) --ignore-daemonsets --delete-emptydir-data/);
    assert.notEqual(other, failed);
    const drain = await env.k.run(['drain', other, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=60s']);
    assert.equal(drain.code, 0, drain.stderr);
    assert.match(drain.stdout, new RegExp(`node/${other} drained`));
    const [, lowest] = await run.waitFor(/✓ the node is drained: \S+ is cordoned and empty; never fewer than (\d) ready/);
    assert.ok(Number(lowest) >= 3);
    await run.waitFor(/Step 4\/4: Bring the nodes back/);
    await env.k.ok(['uncordon', other]);
    const start = await runBonsai(['node', 'start', failed, '--kubeconfig', env.server.kubeconfig]);
    assert.equal(start.code, 0, start.stderr);
    assert.equal(await run.finished(), 0, run.output());
    assert.deepEqual(run.checks().map((l) => l.split(':')[0]), [
      '✓ frontend is Available', '✓ the node failed', '✓ its pods were evicted and replaced', '✓ the node is drained', '✓ both nodes are back', '✓ the evicted pods are gone',
    ]);
    const pdb = JSON.parse(await env.k.ok(['get', 'pdb', 'frontend', '-o', 'json'])) as Json;
    assert.ok(pdb.status.currentHealthy >= 3);
  });

  it('gpu-gang: the gang stays Pending whole until the learner adds a GPU node, then is placed whole', async () => {
    const run = lesson('gpu-gang');
    const [, size] = await run.waitFor(/gang of (\d+), minCount/);
    const [, saying] = await run.waitFor(/✓ the gang is Pending: (train-\d+) says "0\/\d+ nodes are available: .*Insufficient nvidia\.com\/gpu/);
    const describePod = await env.k.ok(['describe', 'pod', saying]);
    assert.match(describePod, /Warning\s+FailedScheduling\s+.*Insufficient nvidia\.com\/gpu/);
    await run.waitFor(new RegExp(`✓ no pod holds a GPU: all ${size} pods PodScheduled=False, none bound`));
    const [, json] = await run.waitFor(/^ {2}echo '(\{.*\})' \| kubectl apply -f -$/m);
    await env.k.ok(['apply', '-f', '-'], { input: json });
    assert.equal(await run.finished(), 0, run.output());
    assert.match(run.output(), /✓ there is room for the gang/);
    assert.match(run.output(), /✓ the gang is placed whole: \d+ on bonsai-gpu-1, \d+ on bonsai-gpu-2/);
    const pods = JSON.parse(await env.k.ok(['get', 'pods', '-l', 'app=train', '-o', 'json'])).items as Json[];
    assert.equal(pods.length, Number(size));
    assert.ok(pods.every((p) => p.spec.nodeName), 'every pod bound');
  });

  it('Ctrl-C ends a lesson cleanly; running it again starts over', async () => {
    const run = lesson('rolling-update');
    await run.waitFor(/Step 1\/3: Watch web roll out/);
    run.interrupt();
    assert.equal(await run.finished(), 130);
    assert.match(run.output(), /Lesson rolling-update stopped; what it created stays in the cluster/);
    assert.doesNotMatch(run.output(), /at .*\.js:\d+/, 'no stack trace');
  });
});
