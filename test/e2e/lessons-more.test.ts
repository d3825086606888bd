// The lessons on probes, JobSet failure policies and GPUs with DRA, each played start to finish by a scripted learner
// against a `bonsai serve` with the default cluster and its add-ons (clock 10x): the learner runs the commands the
// lesson prints (kubectl patch, the apply lines) and the test checks the ✓ lines, what kubectl shows, and the exit code.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer } from '../helpers/cluster.js';
import { checkTitles, LessonRun } from '../helpers/lesson-run.js';

type Json = Record<string, any>;

/** The `echo '…' | kubectl apply -f -` line printed under step `step`'s heading: its JSON. */
const applyLineOf = (step: string) => new RegExp(`Step \\d/\\d: ${step}\\n(?: {2}.*\\n)*? {2}echo '(\\{.*\\})' \\| kubectl apply -f -\\n`);

describe('bonsai lesson (probes, JobSet failure policy, GPUs with DRA)', () => {
  const env = useKubectlServer({ args: ['--clock-speed', '10'] });
  const lesson = (name: string) => new LessonRun(name, env.server.kubeconfig);

  it('probes: pods never Ready and no endpoints until the learner fixes the readiness probe; a liveness probe restarts until fixed', async () => {
    const ns = 'lesson-probes';
    const run = lesson('probes');
    try {
      await run.waitFor(/✓ shop runs but serves nobody: 2 pods Running, 0 Ready; Service shop has no ready endpoints/, 60_000);
      assert.match(await env.k.ok(['get', 'pods', '-l', 'app=shop', '-n', ns]), /shop-\S+\s+0\/1\s+Running/);
      assert.match(await env.k.ok(['describe', 'pod', '-l', 'app=shop', '-n', ns]), /Warning\s+Unhealthy\s+.*Readiness probe failed: Get "http:\/\/[\d.]+:8080\/": dial tcp [\d.]+:8080: connect: connection refused/);
      const [, readiness] = await run.waitFor(/^ {2}kubectl patch deployment shop -n lesson-probes --type=json -p '(.*readinessProbe.*)'$/m);
      await env.k.ok(['patch', 'deployment', 'shop', '-n', ns, '--type=json', '-p', readiness]);
      await run.waitFor(/✓ the pods are Ready: 2\/2 pods Ready/, 60_000);
      await run.waitFor(/✓ the Service has endpoints: Service shop sends traffic to [\d.]+, [\d.]+/, 30_000);
      const [, restarted] = await run.waitFor(/✓ the liveness probe kills the containers: (shop-\S+) restarted \d+ time\(s\), last exit 137/, 60_000);
      const described = await env.k.ok(['describe', 'pod', restarted, '-n', ns]);
      assert.match(described, /Liveness probe failed: dial tcp [\d.]+:8080: connect: connection refused/);
      assert.match(described, /Container shop failed liveness probe, will be restarted/);
      const [, liveness] = await run.waitFor(/^ {2}kubectl patch deployment shop -n lesson-probes --type=json -p '(.*livenessProbe.*)'$/m);
      await env.k.ok(['patch', 'deployment', 'shop', '-n', ns, '--type=json', '-p', liveness]);
      assert.equal(await run.finished(90_000), 0, run.output());
      assert.deepEqual(checkTitles(run), [
        '✓ shop runs but serves nobody', '✓ the pods are Ready', '✓ the Service has endpoints', '✓ the liveness probe kills the containers', '✓ shop is healthy again',
      ]);
      const slices = JSON.parse(await env.k.ok(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=shop', '-n', ns, '-o', 'json'])).items as Json[];
      assert.equal(slices.flatMap((s) => s.endpoints ?? []).filter((e: Json) => e.conditions?.ready).length, 2);
    } finally {
      run.stop();
    }
  });

  it('jobset-failure-policy: an OOM kill restarts the JobSet by rule restartOnOOM, it completes; a bad configuration fails one at once', async () => {
    const ns = 'lesson-jobset-failure-policy';
    const run = lesson('jobset-failure-policy');
    try {
      await run.waitFor(/✓ the JobSet restarted by rule restartOnOOM: status\.restarts is 1/, 90_000);
      const events = await env.k.ok(['get', 'events', '-n', ns, '--field-selector', 'involvedObject.name=train']);
      assert.match(events, /RestartJobSetFailurePolicyAction\s+jobset\/train\s+applying RestartJobSet failure policy action \(first failed job: train-workers-1\)/);
      await run.waitFor(/✓ the second attempt completed: Completed after 1 restart\(s\)/, 90_000);
      assert.match(await env.k.ok(['get', 'jobset', 'train', '-n', ns]), /^train\s+Completed\s+1\s/m);
      const [, json] = await run.waitFor(applyLineOf('A configuration error fails the set at once'));
      await env.k.ok(['apply', '-f', '-'], { input: json });
      assert.equal(await run.finished(60_000), 0, run.output());
      assert.match(run.output(), /✓ rule failOnBadConfig failed the JobSet: train-bad Failed \(FailJobSetFailurePolicyAction: applying FailJobSet failure policy action \(first failed job: train-bad-workers-\d\)\), 0 restarts/);
      assert.deepEqual(checkTitles(run), ['✓ the JobSet restarted by rule restartOnOOM', '✓ the second attempt completed', '✓ rule failOnBadConfig failed the JobSet']);
    } finally {
      run.stop();
    }
  });

  it('gpus-with-dra: a claim no GPU meets, one that fits, one claim shared by two pods, three MIG slices of one GPU', async () => {
    const ns = 'lesson-gpus-with-dra';
    const run = lesson('gpus-with-dra');
    try {
      await run.waitFor(/✓ trainer does not fit: trainer: "0\/\d+ nodes are available: .*cannot allocate all claims/, 60_000);
      assert.match(await env.k.ok(['describe', 'pod', 'trainer', '-n', ns]), /Warning\s+FailedScheduling\s+.*cannot allocate all claims/);
      const [, fits] = await run.waitFor(applyLineOf('Ask for what there is'));
      await env.k.ok(['apply', '-f', '-'], { input: fits });
      await env.k.ok(['delete', 'pod', 'trainer', '-n', ns, '--wait=false']);
      await run.waitFor(/✓ trainer-80gb runs on a GPU of its own: trainer-80gb on bonsai-gpu-1 \(bonsai-gpu-1\/gpu-\d\)/, 60_000);
      assert.match(await env.k.ok(['exec', 'trainer-80gb', '-n', ns, '--', 'nvidia-smi', '-L']), /^GPU 0: NVIDIA H100 80GB HBM3 \(UUID: GPU-[0-9a-f-]+\)$/m);
      const [, shared] = await run.waitFor(applyLineOf('One claim, two pods'));
      await env.k.ok(['apply', '-f', '-'], { input: shared });
      const [, device] = await run.waitFor(/✓ two pods share one GPU: reader-a and reader-b share (bonsai-gpu-1\/gpu-\d)/, 60_000);
      const a = await env.k.ok(['exec', 'reader-a', '-n', ns, '--', 'printenv', 'NVIDIA_VISIBLE_DEVICES']);
      assert.equal(await env.k.ok(['exec', 'reader-b', '-n', ns, '--', 'printenv', 'NVIDIA_VISIBLE_DEVICES']), a);
      assert.notEqual(device, run.output().match(/trainer-80gb on bonsai-gpu-1 \((\S+)\)/)?.[1], 'the shared claim got another GPU');
      const [, mig] = await run.waitFor(applyLineOf('Slices of a GPU \\(MIG\\)'));
      await env.k.ok(['apply', '-f', '-'], { input: mig });
      const [, parts] = await run.waitFor(/✓ three pods on slices of one GPU: three 1g\.5gb partitions of one A100: (.*)/, 90_000);
      assert.equal(new Set(parts.split(', ')).size, 3);
      for (const p of parts.split(', ')) assert.match(p, /^gpu-0-mig-1g5gb-\d$/);
      assert.equal(await run.finished(), 0, run.output());
      const pods = JSON.parse(await env.k.ok(['get', 'pods', 'slice-0', 'slice-1', 'slice-2', '-n', ns, '-o', 'json'])).items as Json[];
      assert.deepEqual(pods.map((p) => p.spec.nodeName), ['bonsai-a100-mig-1', 'bonsai-a100-mig-1', 'bonsai-a100-mig-1']);
    } finally {
      run.stop();
    }
  });
});
