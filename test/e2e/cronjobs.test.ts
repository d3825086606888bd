// CronJobs through kubectl on a server whose clock runs 60x (one scheduled minute is one real second): Jobs
// created on schedule with minute names, history limits, Forbid, Replace, suspend, and `create job --from`.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;

function cronJob(name: string, spec: Json, podAnnotations: Record<string, string>, command?: string[]): string {
  return JSON.stringify({
    apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name },
    spec: {
      schedule: '*/1 * * * *', ...spec,
      jobTemplate: {
        metadata: { labels: { cron: name } },
        spec: {
          template: {
            metadata: { annotations: podAnnotations },
            spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', ...(command ? { command } : {}) }] },
          },
        },
      },
    },
  });
}

const finishedType = (j: Json): string | undefined =>
  (j.status?.conditions ?? []).find((c: Json) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type;

describe('CronJobs', () => {
  const env = useKubectlServer({ args: [...noAddons, '--clock-speed', '60'] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const jobsOf = async (cj: string) => ((await getJson('jobs', '-l', `cron=${cj}`)).items as Json[]);
  const events = async (cj: string, reason: string) =>
    ((await getJson('events', '--field-selector', `involvedObject.name=${cj},reason=${reason}`)).items as Json[]);

  it('creates a Job per scheduled minute, named after the minute, and keeps only the newest finished ones', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: cronJob('tick', { successfulJobsHistoryLimit: 2 }, { 'bonsai.dev/run-seconds': '5' }) });
    // Four starts: the oldest finished Jobs are deleted as newer ones finish.
    await eventually(async () => (await events('tick', 'SuccessfulCreate')).reduce((n, e) => n + (e.count ?? 1), 0) >= 4, 30_000, 'four scheduled jobs');
    const jobs = await jobsOf('tick');
    assert.ok(jobs.length >= 1);
    for (const j of jobs) {
      const scheduled = j.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp'];
      assert.match(scheduled, /^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/);
      assert.equal(j.metadata.name, `tick-${Date.parse(scheduled) / 60_000}`);
      assert.deepEqual(j.metadata.ownerReferences.map((r: Json) => [r.kind, r.name, r.controller]), [['CronJob', 'tick', true]]);
    }
    await eventually(async () => (await events('tick', 'SuccessfulDelete')).length > 0, 20_000, 'an old job deleted');
    await eventually(async () => {
      const done = (await jobsOf('tick')).filter((j) => finishedType(j) === 'Complete');
      return done.length === 2;
    }, 20_000, 'two completed jobs kept');
    const deleted = (await events('tick', 'SuccessfulDelete'))[0];
    assert.match(deleted.message, /^Deleted job tick-\d+$/);
    const cj = await getJson('cronjob', 'tick');
    assert.ok(cj.status.lastScheduleTime && cj.status.lastSuccessfulTime, JSON.stringify(cj.status));
    const table = await env.k.ok(['get', 'cronjobs', 'tick']);
    assert.match(table, /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE$/m);
    assert.match(table, /^tick\s+\*\/1 \* \* \* \*\s+<none>\s+False\s+\d+\s+\S+\s+\S+$/m);
    await env.k.ok(['delete', 'cronjob', 'tick']);
  });

  it('Forbid skips a start while the previous Job runs', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: cronJob('single', { concurrencyPolicy: 'Forbid' }, { 'bonsai.dev/run-seconds': '100000' }) });
    await eventually(async () => (await events('single', 'JobAlreadyActive')).length > 0, 20_000, 'JobAlreadyActive event');
    const [e] = await events('single', 'JobAlreadyActive');
    assert.equal(e.message, 'Not starting job because prior execution is running and concurrency policy is Forbid');
    const jobs = await jobsOf('single');
    assert.equal(jobs.length, 1);
    const cj = await getJson('cronjob', 'single');
    assert.deepEqual(cj.status.active.map((r: Json) => r.name), [jobs[0].metadata.name]);
    assert.equal(cj.status.active[0].kind, 'Job');
    await env.k.ok(['delete', 'cronjob', 'single']);
  });

  it('Replace deletes the running Job and starts a new one', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: cronJob('swap', { concurrencyPolicy: 'Replace' }, { 'bonsai.dev/run-seconds': '100000' }) });
    const first = await eventually(async () => (await jobsOf('swap'))[0]?.metadata.name as string | undefined, 20_000, 'first job');
    await eventually(async () => (await events('swap', 'SuccessfulDelete')).some((e) => e.message === `Deleted job ${first}`), 20_000, 'first job replaced');
    await eventually(async () => {
      const cj = await getJson('cronjob', 'swap');
      const active = (cj.status.active ?? []) as Json[];
      return active.length === 1 && active[0].name !== first && Number(active[0].name.split('-')[1]) > Number(first.split('-')[1]);
    }, 20_000, 'one active, newer job');
    await eventually(async () => (await env.k.run(['get', 'job', first])).code !== 0, 20_000, 'first job gone');
    await env.k.ok(['delete', 'cronjob', 'swap']);
  });

  it('a suspended CronJob starts nothing until resumed', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: cronJob('paused', { suspend: true }, { 'bonsai.dev/run-seconds': '5' }) });
    const created = Date.now();
    // Three scheduled minutes pass without a Job.
    await eventually(() => Date.now() - created > 3_000, 5_000, 'three simulated minutes');
    assert.deepEqual((await jobsOf('paused')).map((j) => j.metadata.name), []);
    const row = await env.k.ok(['get', 'cronjob', 'paused']);
    assert.match(row, /^paused\s+\S+ \S+ \S+ \S+ \S+\s+<none>\s+True\s+0\s+<none>\s+/m, row);
    await env.k.ok(['patch', 'cronjob', 'paused', '--type', 'merge', '-p', '{"spec":{"suspend":false}}']);
    await eventually(async () => (await jobsOf('paused')).length > 0, 20_000, 'job after resume');
    await env.k.ok(['delete', 'cronjob', 'paused']);
  });

  it('time zones: the scheduled timestamp carries the zone offset', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: cronJob('kolkata', { timeZone: 'Asia/Kolkata' }, { 'bonsai.dev/run-seconds': '5' }) });
    const job = await eventually(async () => (await jobsOf('kolkata'))[0], 20_000, 'job in Asia/Kolkata');
    const stamp = job.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp'] as string;
    assert.match(stamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:00\+05:30$/);
    assert.equal(job.metadata.name, `kolkata-${Date.parse(stamp) / 60_000}`);
    assert.match(await env.k.ok(['get', 'cronjob', 'kolkata']), /^kolkata\s+\*\/1 \* \* \* \*\s+Asia\/Kolkata\s+False\s+/m);
    await env.k.ok(['delete', 'cronjob', 'kolkata']);
  });

  it('kubectl create job --from=cronjob runs the template to completion', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: cronJob('manual', { suspend: true }, { 'bonsai.dev/run-seconds': '3' }) });
    await env.k.ok(['create', 'job', 'manual-run', '--from=cronjob/manual']);
    const job = await getJson('job', 'manual-run');
    assert.equal(job.metadata.annotations['cronjob.kubernetes.io/instantiate'], 'manual');
    assert.equal(job.metadata.ownerReferences[0].kind, 'CronJob');
    await eventually(async () => finishedType(await getJson('job', 'manual-run')) === 'Complete', 30_000, 'manual job complete');
    await env.k.ok(['delete', 'cronjob', 'manual']);
  });
});
