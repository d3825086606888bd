// The Job controller through real kubectl: parallelism, Indexed pods, backoffLimit, podFailurePolicy (named rules,
// Ignore on DisruptionTarget across a drain), backoffLimitPerIndex, successPolicy, activeDeadlineSeconds, suspend.
// The server runs its clock 10x, so the 10 s/20 s pod re-creation backoff passes in a few real seconds.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;

interface JobOpts {
  command?: string;
  annotations?: Record<string, string>;
  env?: Record<string, string>;
  pod?: Json;
  container?: Json;
}

function job(name: string, spec: Json, o: JobOpts = {}): string {
  return JSON.stringify({
    apiVersion: 'batch/v1', kind: 'Job', metadata: { name },
    spec: {
      ...spec,
      template: {
        metadata: { annotations: o.annotations ?? {} },
        spec: {
          restartPolicy: 'Never', ...o.pod,
          containers: [{
            name: 'main', image: 'busybox', ...(o.command ? { command: ['sh', '-c', o.command] } : {}),
            env: Object.entries(o.env ?? {}).map(([n, value]) => ({ name: n, value })), ...o.container,
          }],
        },
      },
    },
  });
}

const cond = (j: Json, type: string): Json | undefined => (j.status?.conditions ?? []).find((c: Json) => c.type === type && c.status === 'True');

describe('Job controller', () => {
  const env = useKubectlServer({ args: [...noAddons, '--clock-speed', '10'] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const apply = (manifest: string) => env.k.ok(['apply', '-f', '-'], { input: manifest });
  const podsOf = async (name: string) => (await getJson('pods', '-l', `batch.kubernetes.io/job-name=${name}`)).items as Json[];
  const waitFor = (name: string, type: string, ms = 20_000) => eventually(async () => cond(await getJson('job', name), type) && getJson('job', name), ms, `job ${name} ${type}`);

  it('runs completions 5 with parallelism 2: never more than 2 active, then Complete', async () => {
    const watch = env.k.start(['get', 'pods', '-l', 'batch.kubernetes.io/job-name=par', '-w', '-o',
      'jsonpath={.metadata.name} {.status.phase} {.metadata.deletionTimestamp}{"\\n"}']);
    const latest = new Map<string, string>();
    let maxActive = 0;
    let buf = '';
    watch.proc.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const line of lines) {
        const [podName, phase = '', deleting = ''] = line.trim().split(' ');
        if (!podName) continue;
        latest.set(podName, deleting ? 'Deleting' : phase || 'Pending');
        maxActive = Math.max(maxActive, [...latest.values()].filter((p) => p === 'Pending' || p === 'Running').length);
      }
    });
    try {
      await eventually(async () => (await env.k.run(['get', 'pods'])).code === 0, 5_000, 'watch started');
      await apply(job('par', { completions: 5, parallelism: 2 }, { annotations: { 'bonsai.dev/run-seconds': '2' } }));
      await env.k.ok(['wait', '--for=condition=complete', 'job/par', '--timeout=30s']);
      await eventually(() => latest.size >= 5, 5_000, 'watch saw 5 pods');
    } finally {
      watch.stop();
    }
    assert.equal(maxActive, 2, `at most 2 active pods at once (saw ${maxActive})`);
    const j = await getJson('job', 'par');
    assert.equal(j.status.succeeded, 5);
    assert.equal(cond(j, 'SuccessCriteriaMet')?.reason, 'CompletionsReached');
    assert.equal(cond(j, 'Complete')?.message, 'Reached expected number of succeeded pods');
    assert.ok(j.status.completionTime && j.status.startTime);
    const pods = await podsOf('par');
    assert.equal(pods.length, 5);
    for (const p of pods) assert.ok(!(p.metadata.finalizers ?? []).includes('batch.kubernetes.io/job-tracking'), 'finalizer removed once counted');
    assert.match(await env.k.ok(['get', 'jobs', 'par']), /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\npar\s+Complete\s+5\/5\s+\S+\s+\S+/);
    assert.match(await env.k.ok(['describe', 'job', 'par']), /Pods Statuses:\s+0 Active \(0 Ready\) \/ 5 Succeeded \/ 0 Failed/);
    const events = await env.k.ok(['get', 'events', '--field-selector', 'involvedObject.name=par']);
    assert.match(events, /SuccessfulCreate\s+job\/par\s+Created pod: par-/);
    assert.match(events, /Completed\s+job\/par\s+Job completed/);
  });

  it('gives Indexed pods their index: annotation, label, env, hostname and name', async () => {
    await apply(job('idx', { completions: 3, parallelism: 3, completionMode: 'Indexed' }, {
      command: 'echo index $JOB_COMPLETION_INDEX on $HOSTNAME', annotations: { 'bonsai.dev/run-seconds': '1' },
    }));
    await env.k.ok(['wait', '--for=condition=complete', 'job/idx', '--timeout=30s']);
    const pods = await podsOf('idx');
    assert.deepEqual(pods.map((p) => p.metadata.annotations['batch.kubernetes.io/job-completion-index']).sort(), ['0', '1', '2']);
    for (const p of pods) {
      const ix = p.metadata.annotations['batch.kubernetes.io/job-completion-index'];
      assert.equal(p.metadata.labels['batch.kubernetes.io/job-completion-index'], ix);
      assert.match(p.metadata.name, new RegExp(`^idx-${ix}-[a-z0-9]{5}$`));
      assert.equal(p.spec.hostname, `idx-${ix}`);
      assert.deepEqual(p.spec.containers[0].env.find((e: Json) => e.name === 'JOB_COMPLETION_INDEX').valueFrom.fieldRef.fieldPath,
        "metadata.labels['batch.kubernetes.io/job-completion-index']");
      assert.equal((await env.k.ok(['logs', p.metadata.name])).trim(), `index ${ix} on idx-${ix}`);
    }
    const j = await getJson('job', 'idx');
    assert.equal(j.status.completedIndexes, '0-2');
    assert.match(await env.k.ok(['describe', 'job', 'idx']), /Completed Indexes:\s+0-2/);
  });

  it('fails a Job that keeps failing with BackoffLimitExceeded after backoffLimit retries', async () => {
    await apply(job('flaky', { backoffLimit: 2 }, { command: 'echo boom; exit 3', annotations: { 'bonsai.dev/run-seconds': '1' } }));
    const j = await waitFor('flaky', 'Failed', 30_000);
    assert.equal(cond(j, 'FailureTarget')?.reason, 'BackoffLimitExceeded');
    assert.equal(cond(j, 'Failed')?.reason, 'BackoffLimitExceeded');
    assert.equal(cond(j, 'Failed')?.message, 'Job has reached the specified backoff limit');
    assert.equal(j.status.failed, 3);
    assert.equal(j.status.active ?? 0, 0);
    assert.equal((await podsOf('flaky')).length, 3);
    assert.ok((await podsOf('flaky')).every((p) => !p.metadata.finalizers?.length), 'tracking finalizers removed');
    // Re-creations waited for the backoff: 10 s then 20 s of (10x) clock time between the pods' creations.
    const created = (await podsOf('flaky')).map((p) => Date.parse(p.metadata.creationTimestamp)).sort((a, b) => a - b);
    assert.ok(created[2] - created[0] >= 30_000, `backoff between re-creations (${created[2] - created[0]} ms)`);
    assert.match(await env.k.ok(['get', 'job', 'flaky']), /flaky\s+Failed\s+0\/1/);
    assert.match(await env.k.ok(['get', 'events', '--field-selector', 'involvedObject.name=flaky']), /Warning\s+BackoffLimitExceeded\s+job\/flaky\s+Job has reached the specified backoff limit/);
  });

  it('fails at once on a FailJob rule, with the rule name in the reason when it has one', async () => {
    const rule = (name?: string) => ({ ...(name ? { name } : {}), action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } });
    const opts = { command: 'exit 42', annotations: { 'bonsai.dev/run-seconds': '1' } };
    await apply(job('pfp', { backoffLimit: 6, podFailurePolicy: { rules: [rule()] } }, opts));
    await apply(job('pfp-named', { backoffLimit: 6, podFailurePolicy: { rules: [rule('fatal-config')] } }, opts));
    const plain = await waitFor('pfp', 'Failed');
    const [pod] = await podsOf('pfp');
    assert.equal(cond(plain, 'FailureTarget')?.reason, 'PodFailurePolicy');
    assert.equal(cond(plain, 'Failed')?.reason, 'PodFailurePolicy');
    assert.equal(cond(plain, 'Failed')?.message, `Container main for pod default/${pod.metadata.name} failed with exit code 42 matching FailJob rule at index 0`);
    assert.equal(plain.status.failed, 1, 'no retry');
    const named = await waitFor('pfp-named', 'Failed');
    assert.equal(cond(named, 'FailureTarget')?.reason, 'PodFailurePolicy_fatal-config');
    assert.equal(cond(named, 'Failed')?.reason, 'PodFailurePolicy_fatal-config');
    assert.match(cond(named, 'Failed')?.message, /failed with exit code 42 matching FailJob rule at index 0$/);
    assert.equal((await podsOf('pfp-named')).length, 1);
  });

  it('keeps a Job alive through kubectl drain with an Ignore rule on DisruptionTarget', async () => {
    // terminationGracePeriodSeconds 1 with a longer preStop: the evicted pod is killed (exit 137) and ends Failed.
    await apply(job('drained', { backoffLimit: 0, podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] } }, {
      command: 'sleep 3600', pod: { terminationGracePeriodSeconds: 1 }, container: { lifecycle: { preStop: { sleep: { seconds: 30 } } } },
    }));
    const first = await eventually(async () => (await podsOf('drained')).find((p) => p.status?.phase === 'Running'), 20_000, 'pod running');
    const node = first.spec.nodeName as string;
    try {
      await env.k.ok(['drain', node, '--ignore-daemonsets', '--timeout=30s']);
      const replacement = await eventually(async () => (await podsOf('drained')).find((p) => p.metadata.name !== first.metadata.name && p.status?.phase === 'Running'), 20_000, 'replacement running');
      assert.notEqual(replacement.spec.nodeName, node);
      const j = await getJson('job', 'drained');
      assert.equal(j.status.failed ?? 0, 0, 'the disrupted pod is not counted');
      assert.equal(cond(j, 'Failed'), undefined);
      assert.equal(j.status.active, 1);
    } finally {
      await env.k.ok(['uncordon', node]);
    }
  });

  it('fails only the index that used up backoffLimitPerIndex; the others complete', async () => {
    await apply(job('per-index', { completions: 3, parallelism: 3, completionMode: 'Indexed', backoffLimitPerIndex: 1 }, {
      command: 'printenv FAIL_$JOB_COMPLETION_INDEX && exit 1; echo ok', env: { FAIL_1: 'yes' }, annotations: { 'bonsai.dev/run-seconds': '1' },
    }));
    const j = await waitFor('per-index', 'Failed', 30_000);
    assert.equal(j.status.failedIndexes, '1');
    assert.equal(j.status.completedIndexes, '0,2');
    assert.equal(j.status.succeeded, 2);
    assert.equal(j.status.failed, 2, 'index 1 ran twice');
    assert.equal(cond(j, 'Failed')?.reason, 'FailedIndexes');
    assert.equal(cond(j, 'Failed')?.message, 'Job has failed indexes');
    const retried = (await podsOf('per-index')).filter((p) => p.metadata.annotations['batch.kubernetes.io/job-completion-index'] === '1');
    assert.deepEqual(retried.map((p) => p.metadata.annotations['batch.kubernetes.io/job-index-failure-count']).sort(), ['0', '1']);
  });

  it('completes early when the successPolicy is met', async () => {
    await apply(job('leader', { completions: 4, parallelism: 4, completionMode: 'Indexed', successPolicy: { rules: [{ succeededIndexes: '0' }] } }, {
      command: 'printenv LEADER_$JOB_COMPLETION_INDEX || sleep 3600', env: { LEADER_0: 'yes' }, annotations: { 'bonsai.dev/run-seconds': '1' },
    }));
    const j = await waitFor('leader', 'Complete');
    assert.equal(cond(j, 'SuccessCriteriaMet')?.reason, 'SuccessPolicy');
    assert.equal(cond(j, 'SuccessCriteriaMet')?.message, 'Matched rules at index 0');
    assert.equal(cond(j, 'Complete')?.reason, 'SuccessPolicy');
    assert.ok(j.status.completedIndexes.split(',')[0].startsWith('0'));
    assert.equal(j.status.active ?? 0, 0);
    assert.ok((await podsOf('leader')).every((p) => p.metadata.deletionTimestamp || ['Succeeded', 'Failed'].includes(p.status.phase)), 'the other workers were stopped');
  });

  it('fails a Job active longer than activeDeadlineSeconds', async () => {
    await apply(job('slow', { activeDeadlineSeconds: 5, parallelism: 2, completions: 2 }, { command: 'sleep 3600' }));
    const j = await waitFor('slow', 'Failed');
    assert.equal(cond(j, 'Failed')?.reason, 'DeadlineExceeded');
    assert.equal(cond(j, 'Failed')?.message, 'Job was active longer than specified deadline');
    const took = Date.parse(cond(j, 'FailureTarget')!.lastTransitionTime) - Date.parse(j.status.startTime);
    assert.ok(took >= 5_000, `failed after ${took} ms of clock time, before the deadline`);
    assert.equal(j.status.failed, 2, 'the running pods were stopped and counted');
    await eventually(async () => (await podsOf('slow')).every((p) => ['Succeeded', 'Failed'].includes(p.status.phase) || !p.metadata.finalizers?.length), 10_000, 'pods stopped');
  });

  it('suspends and resumes: pods deleted, Suspended condition, startTime reset', async () => {
    await apply(job('paused', { suspend: true, parallelism: 2, completions: 4 }, { command: 'sleep 3600' }));
    let j = await waitFor('paused', 'Suspended');
    assert.equal(cond(j, 'Suspended')?.reason, 'JobSuspended');
    assert.equal(j.status.startTime, undefined);
    assert.equal((await podsOf('paused')).length, 0);
    assert.match(await env.k.ok(['get', 'job', 'paused']), /paused\s+Suspended\s+0\/4/);

    await env.k.ok(['patch', 'job', 'paused', '--type', 'merge', '-p', '{"spec":{"suspend":false}}']);
    j = await eventually(async () => {
      const cur = await getJson('job', 'paused');
      return cur.status?.active === 2 && cur;
    }, 20_000, 'resumed with 2 active');
    const resumed = (j.status.conditions as Json[]).find((c) => c.type === 'Suspended');
    assert.deepEqual([resumed?.status, resumed?.reason, resumed?.message], ['False', 'JobResumed', 'Job resumed']);
    const started = j.status.startTime as string;
    assert.ok(started);

    await env.k.ok(['patch', 'job', 'paused', '--type', 'merge', '-p', '{"spec":{"suspend":true}}']);
    j = await eventually(async () => {
      const cur = await getJson('job', 'paused');
      return cond(cur, 'Suspended') && (cur.status.active ?? 0) === 0 && cur;
    }, 20_000, 'suspended again');
    assert.equal(j.status.failed ?? 0, 0, 'pods removed by suspension are not failures');
    await eventually(async () => (await podsOf('paused')).length === 0, 20_000, 'suspended pods deleted');
    // Let the server clock pass the first start's second, so a reset startTime is visibly later.
    let tick = 0;
    await eventually(async () => {
      const cm = JSON.parse(await env.k.ok(['create', 'configmap', `tick-${tick++}`, '-o', 'json'])) as Json;
      return Date.parse(cm.metadata.creationTimestamp) > Date.parse(started);
    }, 10_000, 'server clock past startTime');
    await env.k.ok(['patch', 'job', 'paused', '--type', 'merge', '-p', '{"spec":{"suspend":false}}']);
    j = await eventually(async () => {
      const cur = await getJson('job', 'paused');
      return cur.status?.active === 2 && cur;
    }, 20_000, 'resumed again');
    assert.ok(Date.parse(j.status.startTime) > Date.parse(started), 'startTime reset on resume');
    const events = await env.k.ok(['get', 'events', '--field-selector', 'involvedObject.name=paused']);
    assert.match(events, /Suspended\s+job\/paused\s+Job suspended/);
    assert.match(events, /Resumed\s+job\/paused\s+Job resumed/);
    assert.match(events, /SuccessfulDelete\s+job\/paused\s+Deleted pod: paused-/);
  });

  it('replaces a deleted pod at once, or (podReplacementPolicy Failed) only once it has failed', async () => {
    // A preStop longer than the 20 s grace period: each deleted pod terminates for 20 s of clock time, then is killed (Failed).
    const slowStop = { command: 'sleep 3600', pod: { terminationGracePeriodSeconds: 20 }, container: { lifecycle: { preStop: { sleep: { seconds: 60 } } } } };
    await apply(job('eager', { podReplacementPolicy: 'TerminatingOrFailed' }, slowStop));
    // The patient one terminates for 120 s of clock time (12 s of wall time at 10x): long enough that a busy
    // machine's kubectl still sees it terminating.
    await apply(job('patient', { podReplacementPolicy: 'Failed' }, { ...slowStop, pod: { terminationGracePeriodSeconds: 120 }, container: { lifecycle: { preStop: { sleep: { seconds: 300 } } } } }));
    const running = async (name: string) => eventually(async () => (await podsOf(name)).find((p) => p.status?.phase === 'Running'), 20_000, `${name} running`);
    const [eager, patient] = [await running('eager'), await running('patient')];
    const deletedBy = Date.parse((JSON.parse(await env.k.ok(['get', '--raw', '/bonsai/v1/clock'])) as Json).now as string);
    await env.k.ok(['delete', 'pod', eager.metadata.name, patient.metadata.name, '--wait=false']);
    await eventually(async () => (await podsOf('eager')).some((p) => p.metadata.name !== eager.metadata.name && !p.metadata.deletionTimestamp), 5_000, 'eager replacement');
    let j = await eventually(async () => {
      const cur = await getJson('job', 'patient');
      return cur.status?.terminating === 1 && cur;
    }, 5_000, 'patient job counts its terminating pod');
    assert.equal(j.status.active ?? 0, 0);
    assert.equal((await podsOf('patient')).length, 1, 'no replacement while the old pod terminates');
    j = await eventually(async () => {
      const cur = await getJson('job', 'patient');
      return cur.status?.active === 1 && cur.status.failed === 1 && cur;
    }, 20_000, 'patient replacement after the pod failed');
    assert.equal(j.status.terminating, 0);
    // In clock time: the replacement came only after the old pod's grace period (creationTimestamp has seconds).
    const replacement = (await podsOf('patient')).find((p) => p.metadata.name !== patient.metadata.name)!;
    assert.ok(Date.parse(replacement.metadata.creationTimestamp) - deletedBy >= 119_000, `replaced ${Date.parse(replacement.metadata.creationTimestamp) - deletedBy} ms of clock time after the delete`);
    assert.equal((await getJson('job', 'eager')).status.failed, 1, 'the deleted pod counts as failed');
    await env.k.ok(['delete', 'job', 'eager', 'patient', '--wait=false']);
  });

  it('leaves a Job managed by another controller alone', async () => {
    await apply(job('external', { managedBy: 'example.com/queue' }, { annotations: { 'bonsai.dev/run-seconds': '1' } }));
    await apply(job('internal', {}, { annotations: { 'bonsai.dev/run-seconds': '1' } }));
    await waitFor('internal', 'Complete');
    const j = await getJson('job', 'external');
    assert.equal(j.status?.startTime, undefined);
    assert.equal((await podsOf('external')).length, 0);
  });
});
