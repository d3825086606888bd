// Figures of the simulated cluster: scheduler throughput, time for pods to run, nodes to become Ready, memory.
// Each figure spawns `bonsai serve --cluster <file>` with one pool of identical nodes and drives it over HTTP.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'undici';
import { createMany, pool } from './load.js';
import { freshDir, rssOf, spawnServer } from './proc.js';

export interface PodsFigure {
  nodes: number;
  pods: number;
  createMs: number;
  /** From the first create to the last pod bound. */
  boundMs: number;
  /** From the first create to the last pod Running (undefined when not measured). */
  runningMs?: number;
  rssMB: number;
}

export interface NodesFigure {
  nodes: number;
  readyMs: number;
  rssMB: number;
}

function clusterFile(nodes: number): string {
  const dir = freshDir('cluster');
  const file = join(dir, 'cluster.yaml');
  // Pool nodes only, as the recorded figures were measured (no control-plane node).
  writeFileSync(file, [
    'controlPlane: false',
    'nodePools:',
    '  - name: bench',
    `    count: ${nodes}`,
    '    cpu: 32',
    '    memory: 128Gi',
    '    pods: 110',
    '    zones: [zone-a, zone-b, zone-c]',
    '',
  ].join('\n'));
  return file;
}

/** Number of items of a list (the server filters; the body is parsed for its length). */
async function count(p: Pool, path: string): Promise<number> {
  const res = await p.request({ method: 'GET', path, headers: { accept: 'application/json' } });
  const body = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${body.slice(0, 200)}`);
  return (JSON.parse(body) as { items: unknown[] }).items.length;
}

/** Polls until `done` holds; returns ms since `t0`. */
async function until(t0: number, timeoutMs: number, what: string, done: () => Promise<boolean>): Promise<number> {
  for (;;) {
    if (await done()) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

function podJson(name: string, i: number, groups: number): string {
  const group = `g${i % groups}`;
  const affinity = groups > 0
    ? { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { group } }, topologyKey: 'kubernetes.io/hostname' }] } }
    : undefined;
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, labels: { app: 'sched', ...(groups > 0 ? { group } : {}) } },
    spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }], ...(affinity ? { affinity } : {}) },
  });
}

/**
 * Creates `pods` pods on a cluster of `nodes` nodes (16 clients) and times binding and, optionally, Running.
 * With `antiAffinityGroups` > 0 every pod has required anti-affinity on hostname against its own group, so
 * each node takes at most one pod of each group.
 */
export async function podsOnNodes(nodes: number, pods: number, opts: { antiAffinityGroups?: number; waitRunning?: boolean } = {}): Promise<PodsFigure> {
  const proc = spawnServer('bonsai', ':memory:', ['--cluster', clusterFile(nodes)]);
  try {
    const url = await proc.ready;
    const p = pool(url, 16);
    try {
      await until(performance.now(), 120_000, `${nodes} nodes registered`, async () => (await count(p, '/api/v1/nodes')) >= nodes);
      const groups = opts.antiAffinityGroups ?? 0;
      const t0 = performance.now();
      const { ms: createMs } = await createMany(p, 'sched', pods, 16, (name, i) => podJson(name, i, groups));
      const unbound = '/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3D';
      const boundMs = await until(t0, 600_000, 'every pod bound', async () => (await count(p, unbound)) === 0);
      let runningMs: number | undefined;
      if (opts.waitRunning) {
        const notRunning = '/api/v1/namespaces/default/pods?fieldSelector=status.phase%21%3DRunning';
        runningMs = await until(t0, 600_000, 'every pod Running', async () => (await count(p, notRunning)) === 0);
      }
      await sleep(1000);
      return { nodes, pods, createMs, boundMs, runningMs, rssMB: rssOf(proc.pid).rssMB };
    } finally {
      await p.close();
    }
  } finally {
    await proc.stop();
  }
}

/** Starts a server with `nodes` nodes and times spawn -> every node Ready. */
export async function nodesReady(nodes: number): Promise<NodesFigure> {
  const file = clusterFile(nodes);
  const proc = spawnServer('bonsai', ':memory:', ['--cluster', file]);
  try {
    const url = await proc.ready;
    const p = pool(url, 4);
    try {
      const readyMs = await until(proc.spawnedAt, 300_000, `${nodes} nodes Ready`, async () => {
        const res = await p.request({ method: 'GET', path: '/api/v1/nodes', headers: { accept: 'application/json' } });
        const list = JSON.parse(await res.body.text()) as { items: Array<{ status?: { conditions?: Array<{ type: string; status: string }> } }> };
        const ready = list.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
        return ready >= nodes;
      });
      await sleep(1000);
      return { nodes, readyMs, rssMB: rssOf(proc.pid).rssMB };
    } finally {
      await p.close();
    }
  } finally {
    await proc.stop();
  }
}
