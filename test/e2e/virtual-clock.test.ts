// `--clock virtual`: simulated time jumps to the next timer whenever the server is idle, so an hourly CronJob and a
// 5-minute CrashLoopBackOff resolve in seconds of wall time (not asserted: how fast is the machine's business),
// with the same events in the same order on every run; the clock is read and changed over HTTP (kubectl get --raw,
// a plain POST) and from code.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withServer, type ServerHandle } from '../helpers/server.js';
import { eventually, Kubectl } from '../helpers/kubectl.js';
import { startBonsai } from '../../src/main.js';

interface ClockState { mode: string; now: string; speed: number; paused: boolean }
interface EventItem {
  metadata: { name: string };
  reason: string;
  message: string;
  involvedObject: { kind: string; name: string };
}
interface JobItem { metadata: { name: string }; status?: { succeeded?: number; conditions?: Array<{ type: string; status: string }> } }

// One worker node: every node's kubelet renews its lease and reports, so fewer nodes mean fewer writes per simulated hour.
const clusterFile = join(mkdtempSync(join(tmpdir(), 'bonsai-vclock-')), 'cluster.yaml');
writeFileSync(clusterFile, 'nodePools:\n  - name: worker\n    count: 1\n');

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

async function getJson<T>(url: string): Promise<T> {
  const r = await fetch(url);
  assert.equal(r.status, 200, `GET ${url}`);
  return (await r.json()) as T;
}

async function postClock(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: ClockState & { message?: string } }> {
  const r = await fetch(`${url}/bonsai/v1/clock`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as ClockState & { message?: string } };
}

/** The namespace's events in the order they were first recorded (their names end in the recording time and a sequence). */
async function eventsOf(url: string, ns: string): Promise<EventItem[]> {
  const list = await getJson<{ items: EventItem[] }>(`${url}/api/v1/namespaces/${ns}/events`);
  const order = (e: EventItem) => BigInt(`0x${e.metadata.name.slice(e.metadata.name.lastIndexOf('.') + 1)}`);
  return list.items.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

/**
 * Events as comparable lines: reason, message and involved object. Names made from the clock's start time (Job
 * names) or at random (pod suffixes) and uids differ between runs by nature: each becomes #1, #2... in order of
 * first appearance, so their identity and order still count.
 */
function normalized(events: EventItem[], namePattern: RegExp): string[] {
  const seen = new Map<string, string>();
  const rename = (s: string) => s.replace(uuid, '<uid>').replace(namePattern, (m) => {
    if (!seen.has(m)) seen.set(m, `#${seen.size + 1}`);
    return seen.get(m) as string;
  });
  return events.map((e) => rename(`${e.involvedObject.kind}/${e.involvedObject.name} ${e.reason}: ${e.message}`));
}

interface RunResult { cronEvents: string[]; crashEvents: string[] }

async function scenario(server: ServerHandle, k: Kubectl): Promise<RunResult> {
  const url = server.url;
  // An hourly CronJob, on a clock that runs by itself: three Jobs complete.
  assert.equal((await k.run(['create', 'namespace', 'cron'])).code, 0);
  const created = await k.run(['create', 'cronjob', 'hourly', '-n', 'cron', '--image=busybox', '--schedule=0 * * * *', '--', 'echo', 'tick']);
  assert.equal(created.code, 0, created.stderr);
  const complete = (j: JobItem) => j.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True');
  const jobs = await eventually(async () => {
    const list = await getJson<{ items: JobItem[] }>(`${url}/apis/batch/v1/namespaces/cron/jobs`);
    return list.items.filter(complete).length >= 3 && list.items;
  }, 60_000, 'three complete Jobs');
  assert.ok(jobs.filter(complete).length >= 3);
  // The first three Jobs, as the CronJob created them, and everything about them and their pods.
  // The CronJob notes a Job's completion on its next sync, after the Job's condition: wait for the third note too.
  const cronAll = await eventually(async () => {
    const evs = await eventsOf(url, 'cron');
    return evs.filter((e) => e.reason === 'SawCompletedJob').length >= 3 && evs;
  }, 60_000, 'the CronJob to note three completed Jobs');
  const firstJobs = cronAll.filter((e) => e.reason === 'SuccessfulCreate' && e.involvedObject.kind === 'CronJob').slice(0, 3).map((e) => e.message.replace('Created job ', ''));
  assert.equal(firstJobs.length, 3, cronAll.map((e) => e.message).join('\n'));
  const about = (e: EventItem) => firstJobs.some((j) => e.involvedObject.name === j || e.involvedObject.name.startsWith(`${j}-`) || (e.involvedObject.kind === 'CronJob' && new RegExp(`\\b${j}\\b`).test(e.message)));
  // Up to the third Job's completion: how far the clock ran on while the test read the events (a fourth Job, the
  // history limit deleting the first) is not part of the comparison.
  const aboutFirst = normalized(cronAll.filter(about), /hourly-\d+(?:-[a-z0-9]{5})?/g);
  const thirdSeen = aboutFirst.map((e, i) => (/SawCompletedJob/.test(e) ? i : -1)).filter((i) => i >= 0)[2] ?? aboutFirst.length - 1;
  const cronEvents = aboutFirst.slice(0, thirdSeen + 1);

  // A crashing pod on a paused clock, stepped 15 minutes over HTTP: its back-off reaches the 5-minute cap.
  const paused = await postClock(url, { action: 'pause' });
  assert.equal(paused.status, 200);
  assert.equal(paused.body.paused, true);
  assert.equal((await k.run(['create', 'namespace', 'crash'])).code, 0);
  const pod = await k.run(['run', 'crasher', '-n', 'crash', '--image=busybox', '--restart=Always', '--command', '--', 'sh', '-c', 'exit 1']);
  assert.equal(pod.code, 0, pod.stderr);
  const before = Date.parse((await getJson<ClockState>(`${url}/bonsai/v1/clock`)).now);
  const stepped = await postClock(url, { action: 'advance', seconds: 900 });
  assert.equal(stepped.status, 200, JSON.stringify(stepped.body));
  assert.equal(stepped.body.paused, true, 'an advance leaves a paused clock paused');
  assert.equal(Date.parse(stepped.body.now), before + 900_000);
  const status = await getJson<{ status: { containerStatuses: Array<{ restartCount: number; state: { waiting?: { reason: string; message: string } } }> } }>(`${url}/api/v1/namespaces/crash/pods/crasher`);
  const cs = status.status.containerStatuses[0];
  assert.ok(cs.restartCount >= 5, `restartCount ${cs.restartCount}`);
  assert.equal(cs.state.waiting?.reason, 'CrashLoopBackOff');
  assert.match(cs.state.waiting?.message ?? '', /^back-off 5m0s restarting failed container=crasher pod=crasher_crash\(/);
  const crashAll = await eventsOf(url, 'crash');
  assert.ok(crashAll.some((e) => e.reason === 'BackOff' && e.message.startsWith('Back-off restarting failed container crasher')), 'a BackOff event');
  // kubectl sees a cluster that moved on: the pod is 15 minutes old.
  const table = await k.run(['get', 'pod', 'crasher', '-n', 'crash', '--no-headers']);
  assert.match(table.stdout, /CrashLoopBackOff\s+\d+ \(\d+m\d*s? ago\)\s+1[45]m/);
  return { cronEvents, crashEvents: normalized(crashAll, /crasher(?!_)/g) };
}

describe('virtual clock (--clock virtual)', () => {
  const runs: RunResult[] = [];

  for (const run of [1, 2]) {
    // Each run's server is stopped when its test ends, whether the test passed or not.
    it(`run ${run}: an hourly CronJob completes three Jobs and a crashing pod reaches its 5-minute back-off`, () =>
      // Three hourly Jobs are hours of cluster time: events kept (the default --event-ttl of 1h would expire the first Job's).
      withServer({ args: ['--clock', 'virtual', '--event-ttl', '0s', '--cluster', clusterFile, '--addons', ''] }, async (server: ServerHandle) => {
      const k = new Kubectl(server.kubeconfig);
      const raw = await k.run(['get', '--raw', '/bonsai/v1/clock']);
      assert.equal(raw.code, 0, raw.stderr);
      const state = JSON.parse(raw.stdout) as ClockState;
      assert.deepEqual({ mode: state.mode, speed: state.speed, paused: state.paused }, { mode: 'virtual', speed: 0, paused: false });
      runs.push(await scenario(server, k));
    }));
  }

  it('both runs recorded the same events in the same order', () => {
    assert.equal(runs.length, 2);
    assert.ok(runs[0].cronEvents.length >= 9, runs[0].cronEvents.join('\n'));
    assert.deepEqual(runs[1].cronEvents, runs[0].cronEvents);
    assert.deepEqual(runs[1].crashEvents, runs[0].crashEvents);
  });
});

describe('the clock from code and its authorization', () => {
  let bonsai: Awaited<ReturnType<typeof startBonsai>> | undefined;
  before(async () => {
    bonsai = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', clock: 'virtual', addons: [], authorizationMode: 'RBAC' });
  });
  after(async () => bonsai?.close());

  it('bonsai.clock.advance(ms) runs a paused cluster forward: a pod sleeping an hour finishes, an hour later by its timestamps', async () => {
    const b = bonsai!;
    b.clock.pause();
    const pods = b.registry.find('', 'v1', 'pods')!;
    await b.registry.create(pods, 'default', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'sleeper' },
      spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }] },
    });
    const start = b.clock.nowMs();
    await b.clock.advance(2 * 3600_000);
    assert.equal(b.clock.nowMs(), start + 2 * 3600_000);
    assert.equal(b.clock.paused, true);
    const pod = b.registry.getStored('core/pods', 'default', 'sleeper') as unknown as { status: { phase: string; containerStatuses: Array<{ state: { terminated?: { startedAt: string; finishedAt: string } } }> } };
    assert.equal(pod.status.phase, 'Succeeded');
    const t = pod.status.containerStatuses[0].state.terminated!;
    assert.equal(Date.parse(t.finishedAt) - Date.parse(t.startedAt), 3600_000);
  });

  it('changing the clock takes update on nodes (or system:masters); bad bodies are 400s', async () => {
    const b = bonsai!;
    const anonymous = await postClock(b.url, { action: 'resume' });
    assert.equal(anonymous.status, 403);
    const admin = { authorization: `Bearer ${b.credentials.token}` };
    const ok = await postClock(b.url, { action: 'step', seconds: 60 }, admin);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.paused, true);
    for (const [body, message] of [
      [{ action: 'explode' }, /action must be one of/],
      [{ action: 'step' }, /seconds is required/],
      [{ action: 'step', seconds: -1 }, /seconds must be a number from 0 to 86400/],
      [{ action: 'advance', seconds: '5' }, /seconds must be a number/],
      [{ action: 'advance', seconds: 1e300 }, /seconds must be a number/],
      [{ action: 'speed', speed: 2 }, /virtual clock has no speed/],
      [['pause'], /JSON object/],
      [JSON.parse('{"__proto__":{"action":"pause"}}'), /action must be one of/],
    ] as const) {
      const r = await postClock(b.url, body, admin);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.body.message ?? '', message);
    }
    assert.equal(b.clock.paused, true);
    const resumed = await postClock(b.url, { action: 'resume' }, admin);
    assert.equal(resumed.body.paused, false);
  });
});
