// JobSet figures (issue 11): a JobSet of 1,000 pods (100 Jobs of 10) from create to every pod Running, and a full
// restart of it (one pod deleted fails its Job, the failure policy restarts the set) to every pod of the new attempt
// Running. Driven over HTTP against `bonsai serve` at real speed, which installs the JobSet add-on at start.
import { performance } from 'node:perf_hooks';
import type { Pool } from 'undici';
import { call, until, withCluster } from './workloads.js';
import { target, type Row } from './table.js';

type Json = Record<string, any>;
const jobSetsPath = '/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets';
const podsPath = '/api/v1/namespaces/default/pods';

export interface JobSetFigure {
  pods: number;
  jobs: number;
  runningMs: number;
  restartMs: number;
}

function jobSet(jobs: number, podsPerJob: number): Json {
  return {
    apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'bench' },
    spec: {
      failurePolicy: { maxRestarts: 3 },
      replicatedJobs: [{
        name: 'workers', replicas: jobs,
        template: {
          spec: {
            parallelism: podsPerJob, completions: podsPerJob, backoffLimit: 0,
            template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox', command: ['sleep', '3600'] }] } },
          },
        },
      }],
    },
  };
}

async function runningOfAttempt(p: Pool, attempt: number): Promise<Json[]> {
  const sel = encodeURIComponent(`jobset.sigs.k8s.io/jobset-name=bench,jobset.sigs.k8s.io/restart-attempt=${attempt}`);
  const list = await call(p, 'GET', `${podsPath}?labelSelector=${sel}&fieldSelector=status.phase%3DRunning`);
  return (list.items as Json[]).filter((x) => !x.metadata.deletionTimestamp);
}

export async function jobSetFigure(nodes: number, jobs: number, podsPerJob: number): Promise<JobSetFigure> {
  const pods = jobs * podsPerJob;
  return withCluster(nodes, 4, async (p) => {
    // The add-on installs its CRD after the server listens: wait until JobSets are served.
    await until(performance.now(), 60_000, 'the JobSet CRD served', async () => {
      try {
        await call(p, 'GET', jobSetsPath);
        return true;
      } catch {
        return false;
      }
    });
    const t0 = performance.now();
    await call(p, 'POST', jobSetsPath, jobSet(jobs, podsPerJob));
    const runningMs = await until(t0, 600_000, `${pods} pods Running`, async () => (await runningOfAttempt(p, 0)).length >= pods);
    const victim = (await runningOfAttempt(p, 0))[0];
    return { pods, jobs, runningMs, restartMs: await restart(p, victim, pods) };
  }, ['--addons', 'jobset']);
}

/** Deletes one pod: its Job (backoffLimit 0) fails and the failure policy restarts the set. */
async function restart(p: Pool, victim: Json, pods: number): Promise<number> {
  const t1 = performance.now();
  const res = await p.request({ method: 'DELETE', path: `${podsPath}/${victim.metadata.name}`, headers: { accept: 'application/json' } });
  await res.body.text();
  if (res.statusCode >= 300) throw new Error(`DELETE pod: ${res.statusCode}`);
  return until(t1, 600_000, `restart: ${pods} pods of attempt 1 Running`, async () => (await runningOfAttempt(p, 1)).length >= pods);
}

export async function jobSetRows(quick: boolean, log: (msg: string) => void): Promise<Row[]> {
  const cfg = quick ? { nodes: 4, jobs: 10, podsPerJob: 10 } : { nodes: 20, jobs: 100, podsPerJob: 10 };
  const n = (v: number) => v.toLocaleString('en-US');
  log(`18. JobSet: ${n(cfg.jobs)} Jobs of ${cfg.podsPerJob} pods on ${cfg.nodes} nodes: create to all Running, then a full restart (one pod deleted) to all Running`);
  const r = await jobSetFigure(cfg.nodes, cfg.jobs, cfg.podsPerJob);
  log(`   all ${n(r.pods)} Running after ${(r.runningMs / 1000).toFixed(2)} s; restarted and Running after ${(r.restartMs / 1000).toFixed(2)} s`);
  const secs = (v: number) => `${(v / 1000).toFixed(2)} s`;
  return [
    { figure: `18. JobSet of ${n(r.pods)} pods (${n(r.jobs)} Jobs) on ${cfg.nodes} nodes, create to all Running`, value: secs(r.runningMs), baseline: '-', verdict: target(r.runningMs < 5000, 'target < 5 s') },
    { figure: `18. JobSet of ${n(r.pods)} pods, full restart (a pod deleted) to all Running again`, value: secs(r.restartMs), baseline: '-', verdict: target(r.restartMs < 5000, 'target < 5 s') },
  ];
}
