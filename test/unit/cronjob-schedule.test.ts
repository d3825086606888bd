import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from '../../src/generated/k8s/batch/v1.js';
import { parseSchedule } from '../../src/controllers/cronjob/schedule.js';
import { parseGoDuration } from '../../src/util/duration.js';
import { dueScheduleTime, mostRecentScheduleTime, nextRequeueDelay } from '../../src/controllers/cronjob/schedule-math.js';
import { jobFromTemplate, jobNameFor, rfc1123z, rfc3339InZone } from '../../src/controllers/cronjob/job-from-template.js';
import { jobsBeyondHistory } from '../../src/controllers/cronjob/finished-jobs.js';
import { ttlRemainingMs } from '../../src/controllers/ttl-after-finished-controller.js';
import { ManualClock } from '../../src/util/clock.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const everyMinute = parseSchedule('*/1 * * * *');

test('cron schedules: next start strictly after a time, descriptors, @every, time zones', () => {
  assert.equal(iso(everyMinute.next(at('2026-01-01T10:00:30Z'))), '2026-01-01T10:01:00.000Z');
  assert.equal(iso(everyMinute.next(at('2026-01-01T10:01:00Z'))), '2026-01-01T10:02:00.000Z');
  assert.equal(iso(parseSchedule('@hourly').next(at('2026-01-01T10:00:00Z'))), '2026-01-01T11:00:00.000Z');
  assert.equal(iso(parseSchedule('@midnight').next(at('2026-01-01T10:00:00Z'))), '2026-01-02T00:00:00.000Z');
  // @every counts from the whole second the reference time falls in.
  assert.equal(iso(parseSchedule('@every 90s').next(at('2026-01-01T10:00:00.700Z'))), '2026-01-01T10:01:30.000Z');
  assert.equal(parseGoDuration('1h30m'), 5_400_000);
  assert.equal(parseGoDuration('1.5s'), 1500);
  assert.equal(parseGoDuration('5 m'), undefined);
  // 09:00 in Berlin is 08:00Z in winter and 07:00Z in summer.
  const berlin = parseSchedule('0 9 * * *', 'Europe/Berlin');
  assert.equal(iso(berlin.next(at('2026-01-10T00:00:00Z'))), '2026-01-10T08:00:00.000Z');
  assert.equal(iso(berlin.next(at('2026-07-10T00:00:00Z'))), '2026-07-10T07:00:00.000Z');
  assert.equal(iso(parseSchedule('TZ=Asia/Tokyo 0 9 * * *').next(at('2026-01-10T00:00:00Z'))), '2026-01-11T00:00:00.000Z');
  assert.throws(() => parseSchedule('61 * * * *'), /end of range \(61\) above maximum \(59\)/);
  assert.throws(() => parseSchedule('* * * *'), /expected exactly 5 fields/);
  // Grammatical but never due.
  assert.equal(parseSchedule('0 0 31 2 *').next(at('2026-01-01T00:00:00Z')), undefined);
});

test('missed-schedule math: none, one, a few, too many, and the starting deadline', () => {
  const created = at('2026-01-01T10:00:30Z');
  // Before the first start time: nothing due; look again 100ms after 10:01.
  let now = at('2026-01-01T10:00:50Z');
  assert.deepEqual(dueScheduleTime({ creationMs: created }, now, everyMinute), { missed: 'none', error: undefined });
  assert.equal(nextRequeueDelay({ creationMs: created }, now, everyMinute), 10_100);
  // Exactly one due.
  now = at('2026-01-01T10:01:10Z');
  assert.deepEqual(dueScheduleTime({ creationMs: created }, now, everyMinute), { dueMs: at('2026-01-01T10:01:00Z'), missed: 'none', error: undefined });
  // Several missed: only the most recent is due.
  now = at('2026-01-01T10:05:10Z');
  let r = mostRecentScheduleTime({ creationMs: created }, now, everyMinute, true);
  assert.equal(iso(r.mostRecentMs), '2026-01-01T10:05:00.000Z');
  assert.equal(r.missed, 'few');
  // Once 10:05 is handled, the next look is at 10:06 (+100ms).
  assert.equal(nextRequeueDelay({ creationMs: created, lastScheduleMs: at('2026-01-01T10:05:00Z') }, now, everyMinute), 50_100);
  // Three hours behind: more than 100 missed; still the most recent is due.
  now = at('2026-01-01T13:00:20Z');
  r = mostRecentScheduleTime({ creationMs: created }, now, everyMinute, true);
  assert.equal(r.missed, 'many');
  assert.equal(iso(r.mostRecentMs), '2026-01-01T13:00:00.000Z');
  // A deadline bounds the search: the same lag with startingDeadlineSeconds 200 misses only a few.
  r = mostRecentScheduleTime({ creationMs: created, startingDeadlineSeconds: 200 }, now, everyMinute, true);
  assert.equal(r.missed, 'few');
  assert.equal(iso(r.mostRecentMs), '2026-01-01T13:00:00.000Z');
  // A start older than the deadline is not run.
  const hourly = parseSchedule('0 * * * *');
  const state = { creationMs: created, lastScheduleMs: at('2026-01-01T10:00:00Z'), startingDeadlineSeconds: 30 };
  assert.equal(dueScheduleTime(state, at('2026-01-01T11:00:45Z'), hourly).dueMs, undefined);
  assert.equal(dueScheduleTime(state, at('2026-01-01T11:00:20Z'), hourly).dueMs, at('2026-01-01T11:00:00Z'));
  // Without the deadline the 11:00 start is still due late.
  assert.equal(dueScheduleTime({ ...state, startingDeadlineSeconds: undefined }, at('2026-01-01T11:40:00Z'), hourly).dueMs, at('2026-01-01T11:00:00Z'));
  // An impossible date reports the upstream error instead of looping.
  assert.match(dueScheduleTime({ creationMs: created }, now, parseSchedule('0 0 31 2 *')).error ?? '', /less than 1 second/);
});

test('schedule math driven by a ManualClock: the requeue delay lands on each start time', () => {
  const clock = new ManualClock(at('2026-03-01T23:58:10Z'));
  const sched = parseSchedule('0 0 * * *', 'America/New_York');
  const state = { creationMs: clock.nowMs() };
  const fired: string[] = [];
  let lastScheduleMs: number | undefined;
  const tick = () => {
    const due = dueScheduleTime({ ...state, lastScheduleMs }, clock.nowMs(), sched).dueMs;
    if (due !== undefined && due !== lastScheduleMs) {
      fired.push(rfc3339InZone(due, 'America/New_York'));
      lastScheduleMs = due;
    }
    const delay = nextRequeueDelay({ ...state, lastScheduleMs }, clock.nowMs(), sched);
    if (delay !== undefined) clock.setTimeout(tick, delay);
  };
  tick();
  clock.advance(3 * 24 * 3600 * 1000);
  assert.deepEqual(fired, ['2026-03-02T00:00:00-05:00', '2026-03-03T00:00:00-05:00', '2026-03-04T00:00:00-05:00']);
  assert.equal(clock.pending(), 1);
});

test('jobs from the template: minute name, zone-aware scheduled timestamp, controller reference', () => {
  const t = at('2026-01-01T10:05:00Z');
  assert.equal(jobNameFor('hello', t), `hello-${t / 60_000}`);
  assert.equal(rfc1123z(t), 'Thu, 01 Jan 2026 10:05:00 +0000');
  assert.equal(rfc3339InZone(t), '2026-01-01T10:05:00Z');
  assert.equal(rfc3339InZone(t, 'America/St_Johns'), '2026-01-01T06:35:00-03:30');
  const job = jobFromTemplate({
    apiVersion: 'batch/v1', kind: 'CronJob',
    metadata: { name: 'hello', namespace: 'ns', uid: 'u1' },
    spec: { schedule: '*/5 * * * *', timeZone: 'Asia/Kolkata', jobTemplate: { metadata: { labels: { app: 'x' }, annotations: { a: 'b' } }, spec: { template: { spec: { containers: [] } } } } },
  }, t);
  assert.equal(job.metadata?.name, `hello-${t / 60_000}`);
  assert.deepEqual(job.metadata?.labels, { app: 'x' });
  assert.deepEqual(job.metadata?.annotations, { a: 'b', 'batch.kubernetes.io/cronjob-scheduled-timestamp': '2026-01-01T15:35:00+05:30' });
  assert.deepEqual(job.metadata?.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'hello', uid: 'u1', controller: true, blockOwnerDeletion: true }]);
});

const finished = (name: string, type: 'Complete' | 'Failed', start: string): Job => ({
  metadata: { name }, status: { startTime: start, conditions: [{ type, status: 'True', lastTransitionTime: start }] },
});

test('history limits pick the oldest finished jobs; TTL counts from the finish time', () => {
  const jobs = [
    finished('c', 'Complete', '2026-01-01T10:03:00Z'), finished('a', 'Complete', '2026-01-01T10:01:00Z'),
    finished('b', 'Complete', '2026-01-01T10:02:00Z'), finished('f1', 'Failed', '2026-01-01T10:00:00Z'),
    { metadata: { name: 'running' }, status: { startTime: '2026-01-01T09:00:00Z' } },
  ];
  assert.deepEqual(jobsBeyondHistory(jobs, 2, 1).map((j) => j.metadata?.name), ['a']);
  assert.deepEqual(jobsBeyondHistory(jobs, 0, 0).map((j) => j.metadata?.name), ['a', 'b', 'c', 'f1']);
  assert.deepEqual(jobsBeyondHistory(jobs, undefined, 0).map((j) => j.metadata?.name), ['f1']);
  const job = { ...finished('t', 'Complete', '2026-01-01T10:00:00Z'), spec: { ttlSecondsAfterFinished: 30, template: {} } };
  assert.equal(ttlRemainingMs(job, at('2026-01-01T10:00:10Z')), 20_000);
  assert.equal(ttlRemainingMs(job, at('2026-01-01T10:00:40Z')), -10_000);
  assert.equal(ttlRemainingMs({ ...job, spec: { template: {} } }, at('2026-01-01T10:00:40Z')), undefined);
  assert.equal(ttlRemainingMs({ ...job, status: {} }, at('2026-01-01T10:00:40Z')), undefined);
});
