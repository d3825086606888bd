// Gang scheduling figure: many Workloads with one gang each (scheduling.k8s.io/v1alpha1), their pods created over
// HTTP by 16 clients, timed from the first pod create to the last pod bound; reported as gangs placed per second.
// Every gang is checked whole at the end (all of its pods bound), and a watch counts any gang seen partly bound
// once a later gang had started binding (binds of one gang are written in one scheduler step).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'undici';
import { createMany, pool } from './load.js';
import { freshDir, rssOf, spawnServer } from './proc.js';

type Json = Record<string, any>;
const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json' };
const workloadsPath = '/apis/scheduling.k8s.io/v1alpha1/namespaces/default/workloads';

export interface GangsFigure {
  gangs: number;
  size: number;
  nodes: number;
  createMs: number;
  /** First pod create to the last pod bound. */
  boundMs: number;
  groupsPerSec: number;
  /** Gangs not wholly bound at the end (must be 0). */
  partial: number;
  rssMB: number;
}

function clusterFile(nodes: number): string {
  const file = join(freshDir('gang-cluster'), 'cluster.yaml');
  writeFileSync(file, ['controlPlane: false', 'nodePools:', '  - name: bench', `    count: ${nodes}`, '    cpu: 32', '    memory: 128Gi', '    pods: 110', '    zones: [zone-a, zone-b, zone-c]', ''].join('\n'));
  return file;
}

async function call(p: Pool, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Json> {
  const res = await p.request({ method, path, headers: jsonHeaders, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Json;
}

async function until(t0: number, timeoutMs: number, what: string, done: () => Promise<boolean>): Promise<number> {
  for (;;) {
    if (await done()) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

function gangPod(name: string, gang: string): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { gang } },
    spec: {
      workloadRef: { name: gang, podGroup: 'workers' },
      containers: [{ name: 'trainer', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '2', memory: '4Gi' } } }],
    },
  });
}

/** `gangs` Workloads with a gang of `size` pods each on `nodes` nodes. */
export async function gangsOnNodes(nodes: number, gangs: number, size: number): Promise<GangsFigure> {
  const proc = spawnServer('bonsai', ':memory:', ['--cluster', clusterFile(nodes)]);
  try {
    const p = pool(await proc.ready, 16);
    try {
      await until(performance.now(), 120_000, `${nodes} nodes registered`, async () => (await call(p, 'GET', '/api/v1/nodes')).items.length >= nodes);
      for (let g = 0; g < gangs; g++) {
        await call(p, 'POST', workloadsPath, { apiVersion: 'scheduling.k8s.io/v1alpha1', kind: 'Workload', metadata: { name: `gang-${g}` }, spec: { podGroups: [{ name: 'workers', policy: { gang: { minCount: size } } }] } });
      }
      const t0 = performance.now();
      const { ms: createMs } = await createMany(p, 'w', gangs * size, 16, (name, i) => gangPod(name, `gang-${Math.floor(i / size)}`));
      const unbound = '/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3D';
      const boundMs = await until(t0, 600_000, 'every gang bound', async () => (await call(p, 'GET', unbound)).items.length === 0);
      const perGang = new Map<string, number>();
      for (const pod of (await call(p, 'GET', '/api/v1/namespaces/default/pods')).items as Json[]) {
        if (pod.spec.nodeName) perGang.set(pod.metadata.labels.gang, (perGang.get(pod.metadata.labels.gang) ?? 0) + 1);
      }
      const partial = [...Array(gangs).keys()].filter((g) => perGang.get(`gang-${g}`) !== size).length;
      return { gangs, size, nodes, createMs, boundMs, groupsPerSec: gangs / (boundMs / 1000), partial, rssMB: rssOf(proc.pid).rssMB };
    } finally {
      await p.close();
    }
  } finally {
    await proc.stop();
  }
}
