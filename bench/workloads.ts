// Workload figures of the simulated cluster, driven over HTTP as kubectl would: a large Deployment from create to
// rollout complete and through a rolling update, a Job of many short pods to Complete, and the rate at which
// many small Deployments become Available. Each figure gets its own `bonsai serve --cluster <file>` at real speed.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'undici';
import { pool } from './load.js';
import { freshDir, rssOf, spawnServer, type ServerProc } from './proc.js';
import { mb, rate, target, type Row } from './table.js';

type Json = Record<string, any>;
const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json' };
const deploymentsPath = '/apis/apps/v1/namespaces/default/deployments';
const jobsPath = '/apis/batch/v1/namespaces/default/jobs';

function clusterFile(nodes: number): string {
  const file = join(freshDir('workload-cluster'), 'cluster.yaml');
  writeFileSync(file, ['nodePools:', '  - name: bench', `    count: ${nodes}`, '    cpu: 32', '    memory: 128Gi', '    pods: 110', '    zones: [zone-a, zone-b, zone-c]', ''].join('\n'));
  return file;
}

export async function call(p: Pool, method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown, contentType = 'application/json'): Promise<Json> {
  const res = await p.request({ method, path, headers: { ...jsonHeaders, 'content-type': contentType }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Json;
}

/** Polls until `done` holds; returns ms since `t0`. */
export async function until(t0: number, timeoutMs: number, what: string, done: () => Promise<boolean>): Promise<number> {
  for (;;) {
    if (await done()) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

/** A server with `nodes` Ready nodes, a pool of `connections`, run `fn`, stop. */
export async function withCluster<T>(nodes: number, connections: number, fn: (p: Pool, proc: ServerProc) => Promise<T>, extraArgs: string[] = []): Promise<T> {
  const proc = spawnServer('bonsai', ':memory:', ['--cluster', clusterFile(nodes), ...extraArgs]);
  try {
    const p = pool(await proc.ready, connections);
    try {
      await until(performance.now(), 300_000, `${nodes} nodes Ready`, async () => {
        const list = await call(p, 'GET', '/api/v1/nodes');
        return (list.items as Json[]).filter((n) => n.status?.conditions?.some((c: Json) => c.type === 'Ready' && c.status === 'True')).length >= nodes;
      });
      return await fn(p, proc);
    } finally {
      await p.close();
    }
  } finally {
    await proc.stop();
  }
}

export function deployment(name: string, replicas: number): Json {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
    spec: {
      replicas, selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } },
    },
  };
}

/** What `kubectl rollout status` waits for: the spec observed, every replica updated and available, no old ones left. */
export function rolloutComplete(d: Json): boolean {
  const s = d.status ?? {};
  const want = d.spec?.replicas ?? 1;
  return (s.observedGeneration ?? 0) >= d.metadata.generation && (s.updatedReplicas ?? 0) === want && (s.replicas ?? 0) === want && (s.availableReplicas ?? 0) === want;
}

export interface RolloutFigure {
  nodes: number;
  replicas: number;
  /** POST of the Deployment to rollout complete. */
  createMs: number;
  /** PATCH of the pod template to rollout complete. */
  updateMs: number;
  rssMB: number;
}

/** (a) a Deployment of `replicas` to rollout complete; (b) a template change rolled out (default 25% surge/unavailable). */
export async function deploymentRollout(nodes: number, replicas: number): Promise<RolloutFigure> {
  return withCluster(nodes, 4, async (p, proc) => {
    const path = `${deploymentsPath}/big`;
    const t0 = performance.now();
    await call(p, 'POST', deploymentsPath, deployment('big', replicas));
    const createMs = await until(t0, 600_000, 'rollout complete', async () => rolloutComplete(await call(p, 'GET', path)));
    const t1 = performance.now();
    await call(p, 'PATCH', path, { spec: { template: { metadata: { annotations: { 'bench.bonsai.dev/revision': '2' } } } } }, 'application/merge-patch+json');
    const updateMs = await until(t1, 600_000, 'rolling update complete', async () => rolloutComplete(await call(p, 'GET', path)));
    return { nodes, replicas, createMs, updateMs, rssMB: rssOf(proc.pid).rssMB };
  });
}

export interface JobFigure {
  completions: number;
  parallelism: number;
  ms: number;
  podsPerSec: number;
}

/** (c) a Job of `completions` pods that each run 0.1 s, `parallelism` at a time, from POST to condition Complete. */
export async function jobCompletions(nodes: number, completions: number, parallelism: number): Promise<JobFigure> {
  return withCluster(nodes, 4, async (p) => {
    const job = {
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'burst' },
      spec: {
        completions, parallelism, backoffLimit: 10,
        template: {
          metadata: { annotations: { 'bonsai.dev/run-seconds': '0.1' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox' }] },
        },
      },
    };
    const t0 = performance.now();
    await call(p, 'POST', jobsPath, job);
    const ms = await until(t0, 1_800_000, 'job Complete', async () => {
      const j = await call(p, 'GET', `${jobsPath}/burst`);
      const conds = (j.status?.conditions ?? []) as Json[];
      if (conds.some((c) => c.type === 'Failed' && c.status === 'True')) throw new Error(`job failed: ${JSON.stringify(j.status)}`);
      return conds.some((c) => c.type === 'Complete' && c.status === 'True');
    });
    return { completions, parallelism, ms, podsPerSec: completions / (ms / 1000) };
  });
}

export interface ReadyRateFigure {
  deployments: number;
  pods: number;
  ms: number;
  perSec: number;
}

/** (d) `count` Deployments of 1-2 replicas created by 16 clients; time from the first POST to the last one Available. */
export async function deploymentsReady(nodes: number, count: number): Promise<ReadyRateFigure> {
  return withCluster(nodes, 16, async (p) => {
    let next = 0;
    let pods = 0;
    const t0 = performance.now();
    const worker = async () => {
      while (next < count) {
        const i = next++;
        const replicas = 1 + (i % 2);
        pods += replicas;
        await call(p, 'POST', deploymentsPath, deployment(`small-${i}`, replicas));
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const ms = await until(t0, 600_000, `${count} deployments Available`, async () => {
      const items = (await call(p, 'GET', deploymentsPath)).items as Json[];
      const available = items.filter((d) => (d.status?.conditions ?? []).some((c: Json) => c.type === 'Available' && c.status === 'True') && rolloutComplete(d));
      return available.length >= count;
    });
    return { deployments: count, pods, ms, perSec: count / (ms / 1000) };
  });
}

/** Figures 11-14 as table rows (BENCH_QUICK=1: a tenth of the sizes). */
export async function workloadRows(quick: boolean, log: (msg: string) => void): Promise<Row[]> {
  const cfg = {
    nodes: quick ? 10 : 100,
    replicas: quick ? 100 : 1000,
    completions: quick ? 1000 : 10_000,
    parallelism: quick ? 50 : 500,
    deployments: quick ? 20 : 100,
  };
  const n = (v: number) => v.toLocaleString('en-US');
  const secs = (v: number) => `${(v / 1000).toFixed(1)} s`;
  const rows: Row[] = [];
  log(`11. Deployment of ${n(cfg.replicas)} replicas on ${n(cfg.nodes)} nodes: create to rollout complete, then a rolling update`);
  const d = await deploymentRollout(cfg.nodes, cfg.replicas);
  log(`   created and rolled out in ${secs(d.createMs)}, template change rolled out in ${secs(d.updateMs)}, RSS ${mb(d.rssMB)}`);
  rows.push({ figure: `11. Deployment, ${n(cfg.replicas)} replicas on ${n(cfg.nodes)} nodes: create to rollout complete`, value: secs(d.createMs), baseline: '-', verdict: `${rate(cfg.replicas / (d.createMs / 1000))} pods` });
  rows.push({ figure: `12. rolling update of it (25% surge / 25% unavailable) to complete`, value: secs(d.updateMs), baseline: '-', verdict: `RSS ${mb(d.rssMB)}` });
  log(`13. Job of ${n(cfg.completions)} completions, parallelism ${n(cfg.parallelism)}, pods running 0.1 s`);
  const j = await jobCompletions(cfg.nodes, cfg.completions, cfg.parallelism);
  log(`   Complete after ${secs(j.ms)} (${rate(j.podsPerSec)} pods)`);
  rows.push({ figure: `13. Job, ${n(cfg.completions)} completions / parallelism ${n(cfg.parallelism)}: create to Complete`, value: secs(j.ms), baseline: '-', verdict: `${rate(j.podsPerSec)} pods` });
  log(`14. ${n(cfg.deployments)} Deployments of 1-2 replicas (16 clients): first create to last Available`);
  const r = await deploymentsReady(cfg.nodes, cfg.deployments);
  log(`   ${n(r.deployments)} Deployments (${n(r.pods)} pods) Available after ${secs(r.ms)}`);
  rows.push({ figure: `14. Deployments becoming Available, ${n(r.deployments)} of 1-2 replicas on ${n(cfg.nodes)} nodes`, value: `${r.perSec.toFixed(1)}/s`, baseline: '-', verdict: target(r.perSec >= 5, "kwok's ~5 Deployments/s on a full control plane") });
  return rows;
}
