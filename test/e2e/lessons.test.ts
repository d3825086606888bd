// `bonsai lesson NAME` as a learner meets it: each lesson runs as a child process against a `bonsai serve` (clock
// 10x), and the test plays the learner, reading the lesson's output and running the kubectl (and `bonsai node`)
// commands it asks for, then checks the ✓ lines and the exit code.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer } from '../helpers/cluster.js';
import { LessonRun } from '../helpers/lesson-run.js';
import { runBonsai } from '../helpers/server.js';

type Json = Record<string, any>;

const ru = 'lesson-rolling-update';

describe('bonsai lesson', () => {
  const env = useKubectlServer({ args: ['--clock-speed', '10'] });
  const lesson = (name: string) => new LessonRun(name, env.server.kubeconfig);

  it('lists the lessons', async () => {
    const r = await runBonsai(['lesson']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}rolling-update +.*\n {2}node-failure +.*\n {2}gpu-gang +/m);
    const unknown = await runBonsai(['lesson', 'nope', '--kubeconfig', env.server.kubeconfig]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no lesson named "nope"/);
  });

  it('rolling-update: the learner watches the stalled rollout, inspects the failing pod and rolls back', async () => {
    // The learner's own Deployment web in default is not the lesson's: it stays as it is.
    await env.k.ok(['create', 'deployment', 'web', '--image=httpd:2.4', '--replicas=1']);
    const run = lesson('rolling-update');
    await run.waitFor(/namespace\/lesson-rolling-update created\ndeployment\.apps\/web created/);
    await run.waitFor(/✓ web is Available: 3\/3 replicas available on nginx:1\.27/);
    await run.waitFor(/Step 2\/3: A broken release/);
    // The learner watches the rollout, which does not finish.
    const status = await env.k.run(['rollout', 'status', 'deployment/web', '-n', ru, '--timeout=2s']);
    assert.notEqual(status.code, 0);
    // Waiting, or (on a slow machine, past the 60 s deadline at 10x) giving up on the deadline.
    assert.match(`${status.stdout}${status.stderr}`, /Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated|deployment "web" exceeded its progress deadline/);
    const [, failing] = await run.waitFor(/✓ the new version does not run: (\S+) is (ErrImagePull|ImagePullBackOff)/);
    const describePod = await env.k.ok(['describe', 'pod', failing, '-n', ru]);
    assert.match(describePod, /Image:\s+nginx:1\.72/);
    assert.match(describePod, /Warning\s+Failed\s+.*Failed to pull image "nginx:1\.72"/);
    // The old pods kept serving meanwhile.
    const deploy = JSON.parse(await env.k.ok(['get', 'deployment', 'web', '-n', ru, '-o', 'json'])) as Json;
    assert.equal(deploy.status.availableReplicas, 3);
    await run.waitFor(/Step 3\/3: Roll back\n(?: {2}.*\n)*? {2}kubectl rollout undo deployment\/web -n lesson-rolling-update/);
    await env.k.ok(['rollout', 'undo', 'deployment/web', '-n', ru]);
    assert.equal(await run.finished(), 0, run.output());
    assert.deepEqual(run.checks().map((l) => l.split(':')[0]), [
      '✓ web is Available', '✓ the new version does not run', '✓ rolled back', '✓ web is Available on the good revision',
    ]);
    assert.match(run.output(), /✓ web is Available on the good revision: 3\/3 available on nginx:1\.27, ReplicaSet web-\S+ scaled to 0/);
    assert.match(run.output(), /Lesson rolling-update complete\.\n$/);
    assert.match(await env.k.ok(['rollout', 'status', 'deployment/web', '-n', ru, '--timeout=10s']), /successfully rolled out/);
    const mine = JSON.parse(await env.k.ok(['get', 'deployment', 'web', '-o', 'json'])) as Json;
    assert.equal(mine.spec.template.spec.containers[0].image, 'httpd:2.4', 'the learner\'s web in default untouched');
    assert.equal(mine.metadata.labels?.['bonsai.dev/lesson'], undefined);
    // The dashboard's view of it: every step done, the run finished.
    const cm = JSON.parse(await env.k.ok(['get', 'configmap', 'lesson-progress', '-n', ru, '-o', 'json'])) as Json;
    assert.equal(cm.metadata.labels['bonsai.dev/lesson-progress'], 'true');
    const progress = JSON.parse(cm.data['progress.json']) as Json;
    assert.equal(progress.lesson, 'rolling-update');
    assert.equal(progress.finished, true);
    assert.deepEqual(progress.steps.map((s: Json) => [s.heading, s.state]), [
      ['Watch web roll out', 'done'], ['A broken release', 'done'], ['Roll back', 'done'], ['web is Available on the good revision', 'done'],
    ]);
    assert.match(progress.steps[0].instructions[0], /^kubectl get deployment web -n lesson-rolling-update/);
    assert.match(progress.steps[3].detail, /ReplicaSet web-\S+ scaled to 0/);
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
    const pdb = JSON.parse(await env.k.ok(['get', 'pdb', 'frontend', '-n', 'lesson-node-failure', '-o', 'json'])) as Json;
    assert.ok(pdb.status.currentHealthy >= 3);
  });

  it('gpu-gang: the gang stays Pending whole until the learner adds a GPU node, then is placed whole', async () => {
    const run = lesson('gpu-gang');
    const [, size] = await run.waitFor(/gang of (\d+), minCount/);
    const [, saying] = await run.waitFor(/✓ the gang is Pending: (train-\d+) says "0\/\d+ nodes are available: .*Insufficient nvidia\.com\/gpu/);
    const describePod = await env.k.ok(['describe', 'pod', saying, '-n', 'lesson-gpu-gang']);
    assert.match(describePod, /Warning\s+FailedScheduling\s+.*Insufficient nvidia\.com\/gpu/);
    await run.waitFor(new RegExp(`✓ no pod holds a GPU: all ${size} pods PodScheduled=False, none bound`));
    const [, json] = await run.waitFor(/^ {2}echo '(\{.*\})' \| kubectl apply -f -$/m);
    await env.k.ok(['apply', '-f', '-'], { input: json });
    assert.equal(await run.finished(), 0, run.output());
    assert.match(run.output(), /✓ there is room for the gang/);
    assert.match(run.output(), /✓ the gang is placed whole: \d+ on bonsai-gpu-1, \d+ on bonsai-gpu-2/);
    const pods = JSON.parse(await env.k.ok(['get', 'pods', '-l', 'app=train', '-n', 'lesson-gpu-gang', '-o', 'json'])).items as Json[];
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

  it('a learner\'s object of the lesson\'s name in its namespace stops the lesson rather than being replaced', async () => {
    await env.k.ok(['delete', 'deployment', 'web', '-n', ru, '--wait=true']);
    await env.k.ok(['create', 'deployment', 'web', '-n', ru, '--image=httpd:2.4', '--replicas=1']);
    const run = lesson('rolling-update');
    try {
      assert.equal(await run.finished(), 1, run.output());
      assert.match(run.output(), /deployment\.apps\/web exists and was not made by lesson rolling-update \(it has no label bonsai\.dev\/lesson=rolling-update\); the lesson leaves it alone/);
      const d = JSON.parse(await env.k.ok(['get', 'deployment', 'web', '-n', ru, '-o', 'json'])) as Json;
      assert.equal(d.spec.template.spec.containers[0].image, 'httpd:2.4');
    } finally {
      run.stop();
    }
  });
});
