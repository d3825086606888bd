// Golden files for the simulated pod lifecycle: one per stage, input pod -> status (and kubelet events) after the
// stage, with volatile fields normalised. UPDATE_GOLDEN=1 rewrites them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Harness, podSpec } from './kubelet-harness.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'fixtures', 'kubelet');
const update = process.env.UPDATE_GOLDEN === '1';

const nginx = (extra: Record<string, unknown> = {}) => ({ containers: [{ name: 'web', image: 'nginx', ...extra }] });
const shell = (script: string, restartPolicy: string, extra: Record<string, unknown> = {}) => ({
  restartPolicy, containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', script], ...extra }],
});

interface Case {
  name: string;
  pod: Record<string, unknown>;
  /** Clock time to run after creating the pod. */
  runMs: number;
  then?: (h: Harness) => Promise<void>;
}

const cases: Case[] = [
  { name: 'pending-bound', pod: podSpec('web', nginx()), runMs: 0 },
  // A pull long enough to be seen: the sandbox is up while the image is pulled (a quick pull is written with the start).
  { name: 'container-creating', pod: podSpec('web', nginx(), { 'bonsai.dev/pull-seconds': '2' }), runMs: 100 },
  {
    name: 'init-running',
    pod: podSpec('web', { initContainers: [{ name: 'init', image: 'busybox', command: ['sh', '-c', 'echo init; sleep 5'] }], ...nginx() }),
    runMs: 1000,
  },
  { name: 'running-ready', pod: podSpec('web', nginx()), runMs: 1000 },
  {
    name: 'readiness-probe-not-ready',
    pod: podSpec('web', nginx({ readinessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 5 } }), { 'bonsai.dev/never-ready': 'true' }),
    runMs: 30_000,
  },
  { name: 'completed', pod: podSpec('job', shell('echo done', 'Never')), runMs: 2000 },
  { name: 'error-exit-3', pod: podSpec('job', shell('echo hi; exit 3', 'Never')), runMs: 2000 },
  { name: 'crashloop-backoff', pod: podSpec('crash', shell('echo hi; exit 3', 'Always')), runMs: 5000 },
  {
    name: 'oomkilled',
    pod: podSpec('hog', shell('sleep 3600', 'Never', { resources: { limits: { memory: '100Mi' } } }), { 'bonsai.dev/memory-usage': '200Mi' }),
    runMs: 3000,
  },
  {
    name: 'terminating',
    pod: podSpec('web', nginx({ lifecycle: { preStop: { sleep: { seconds: 5 } } } })),
    runMs: 1000,
    then: async (h) => {
      await h.reg.delete(h.reg.find('', 'v1', 'pods')!, 'default', 'web', {});
      await h.run(1000);
    },
  },
  {
    name: 'resize-infeasible',
    pod: podSpec('web', nginx({ resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '2', memory: '1Gi' } } })),
    runMs: 1000,
    then: async (h) => {
      await resize(h, 'web', { requests: { cpu: '8', memory: '1Gi' }, limits: { cpu: '9', memory: '1Gi' } });
      await h.run(100);
    },
  },
  {
    name: 'resize-deferred',
    pod: podSpec('web', nginx({ resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '2', memory: '1Gi' } } })),
    runMs: 1000,
    then: async (h) => {
      await h.create(podSpec('other', nginx({ resources: { requests: { cpu: '2' } } })));
      await h.run(1000);
      await resize(h, 'web', { requests: { cpu: '3', memory: '1Gi' }, limits: { cpu: '4', memory: '1Gi' } });
      await h.run(100);
    },
  },
];

async function resize(h: Harness, name: string, resources: Record<string, unknown>): Promise<void> {
  await h.reg.update(h.reg.find('', 'v1', 'pods')!, 'default', name, (cur) => {
    const spec = structuredClone(cur.spec) as { containers: Array<Record<string, unknown>> };
    spec.containers[0].resources = resources;
    return { ...cur, spec };
  }, { subresource: 'resize' });
}

/** Replaces timestamps, uids, IPs and container ids so the output is stable. */
function normalise(value: unknown, uid: string): unknown {
  const text = JSON.stringify(value, null, 2)
    .replaceAll(uid, '<uid>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
    .replace(/containerd:\/\/[0-9a-f]{64}/g, 'containerd://<id>')
    .replace(/"(10\.244|172\.18)\.\d+\.\d+"/g, '"<ip>"');
  return JSON.parse(text);
}

for (const c of cases) {
  test(`golden: ${c.name}`, async () => {
    const h = await Harness.start();
    try {
      const created = await h.create(c.pod);
      await h.run(c.runMs);
      await c.then?.(h);
      const pod = h.pod(String((c.pod.metadata as { name: string }).name));
      assert.ok(pod, 'pod still exists');
      const rank = ['Pulling', 'Pulled', 'Created', 'Started', 'Unhealthy', 'Killing', 'BackOff'];
      const events = h.events(pod.metadata!.name!).filter((e) => e.source?.component === 'kubelet')
        .sort((a, b) => (a.firstTimestamp ?? '').localeCompare(b.firstTimestamp ?? '') || rank.indexOf(a.reason ?? '') - rank.indexOf(b.reason ?? ''))
        .map((e) => ({ type: e.type, reason: e.reason, fieldPath: e.involvedObject.fieldPath, message: e.message, count: e.count }));
      const actual = normalise({ input: c.pod, status: pod.status, events }, created.metadata!.uid!);
      const file = join(fixtures, `${c.name}.json`);
      if (update || !existsSync(file)) writeFileSync(file, `${JSON.stringify(actual, null, 2)}\n`);
      assert.deepEqual(actual, JSON.parse(readFileSync(file, 'utf8')));
    } finally {
      h.close();
    }
  });
}
