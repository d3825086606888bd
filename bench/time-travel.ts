// Time travel figure (issue 13): a 100,000-change log (pods created, updated and deleted, with Deployments and
// ReplicaSets alongside, ~5,000 pods live at any time) in a file data directory, then the state at revisions spread
// over the log rebuilt through GET /bonsai/v1/history/state (nodes, pods and the workload kinds), timed from request
// to last byte; and one page of 5,000 changes. In-process Bonsai with no nodes and no controllers: the figure
// measures the change-log query and the answer, not the cluster. Run alone: `node dist/bench/time-travel.js`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startBonsai } from '../src/main.js';
import type { KObject } from '../src/machinery/types.js';
import { median, percentile } from './load.js';
import { ms, target, type Row } from './table.js';

const resources = 'nodes,pods,deployments,replicasets,statefulsets,daemonsets,jobs,cronjobs';

function pod(i: number, gen: number): KObject {
  const name = `web-${(i % 500).toString(36)}-${i}`;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: `ns-${i % 10}`, uid: `uid-${i}`, labels: { app: `web-${i % 500}`, 'pod-template-hash': 'abc123' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `web-${i % 500}-abc123`, uid: `rs-${i % 500}`, controller: true }] },
    spec: { nodeName: `node-${i % 100}`, schedulerName: 'bench-none', containers: [{ name: 'c', image: 'nginx:1.27', resources: { requests: { cpu: '100m', memory: '128Mi' } }, ports: [{ containerPort: 80 }] }] },
    status: { phase: gen % 2 ? 'Running' : 'Pending', podIP: `10.0.${i % 250}.${gen % 250}`, conditions: [{ type: 'Ready', status: gen % 2 ? 'True' : 'False', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
  } as KObject;
}

function workload(kind: 'Deployment' | 'ReplicaSet', i: number, replicas: number): KObject {
  const name = kind === 'Deployment' ? `web-${i}` : `web-${i}-abc123`;
  return {
    apiVersion: 'apps/v1', kind, metadata: { name, namespace: `ns-${i % 10}`, uid: `${kind}-${i}` },
    spec: { replicas, selector: { matchLabels: { app: `web-${i}` } }, template: { metadata: { labels: { app: `web-${i}` } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } },
    status: { replicas, readyReplicas: replicas },
  } as KObject;
}

export interface TimeTravelFigure {
  changes: number;
  live: number;
  stateMs: number[];
  stateBytes: number;
  pageMs: number;
}

export async function timeTravelFigure(totalChanges = 100_000, runs = 20): Promise<TimeTravelFigure> {
  const dir = mkdtempSync(join(tmpdir(), 'bonsai-time-travel-'));
  const b = await startBonsai({ port: 0, data: dir, logLevel: 'silent', cluster: { nodes: 0 }, controllers: [], addons: [], compactEveryMs: 0 });
  try {
    const s = b.store;
    const start = s.revision();
    for (let i = 0; i < 500; i++) {
      await s.create('apps/deployments', workload('Deployment', i, 10));
      await s.create('apps/replicasets', workload('ReplicaSet', i, 10));
    }
    // A rolling window of live pods: create, update a few times, delete.
    const live = new Map<number, number>();
    let next = 0;
    let turn = 0;
    while (s.revision() - start < totalChanges) {
      const r = turn++ % 10;
      if (live.size < 5000 || r === 0) {
        live.set(next, 0);
        await s.create('core/pods', pod(next, 0));
        next++;
      } else if (r < 8) {
        const i = next - 1 - ((turn * 7919) % live.size);
        const gen = live.get(i);
        if (gen === undefined) continue;
        live.set(i, gen + 1);
        await s.update('core/pods', pod(i, gen + 1));
      } else {
        const oldest = live.keys().next().value as number;
        live.delete(oldest);
        await s.delete('core/pods', `ns-${oldest % 10}`, pod(oldest, 0).metadata.name ?? '');
      }
      if (turn % 2000 === 0) await s.committed();
    }
    await s.committed();
    const newest = s.revision();
    const headers = { authorization: `Bearer ${b.credentials.token}` };
    const stateMs: number[] = [];
    let stateBytes = 0;
    for (let k = 0; k < runs; k++) {
      const rv = start + Math.round(((k + 1) / runs) * (newest - start));
      const t0 = performance.now();
      const res = await fetch(`${b.url}/bonsai/v1/history/state?revision=${rv}&resources=${resources}`, { headers });
      const text = await res.text();
      stateMs.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`state at ${rv}: ${res.status} ${text.slice(0, 200)}`);
      stateBytes = Math.max(stateBytes, text.length);
    }
    const t1 = performance.now();
    const page = await fetch(`${b.url}/bonsai/v1/history/changes?from=${start + Math.round((newest - start) / 2)}&resources=pods`, { headers });
    const pageText = await page.text();
    const pageMs = performance.now() - t1;
    if (page.status !== 200) throw new Error(`changes page: ${page.status} ${pageText.slice(0, 200)}`);
    return { changes: newest - start, live: live.size, stateMs, stateBytes, pageMs };
  } finally {
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function timeTravelRows(quick: boolean, log: (msg: string) => void): Promise<Row[]> {
  const n = quick ? 20_000 : 100_000;
  log(`21. time travel: a ${n.toLocaleString('en-US')}-change log, state rebuilt at 20 revisions over HTTP, one page of changes`);
  const f = await timeTravelFigure(n);
  const p50 = median(f.stateMs);
  const worst = Math.max(...f.stateMs);
  log(`   ${f.changes} changes, ${f.live} pods live at the end; state runs (ms) [${f.stateMs.map((x) => x.toFixed(0)).join(', ')}], largest answer ${(f.stateBytes / 2 ** 20).toFixed(1)} MiB`);
  const nN = n.toLocaleString('en-US');
  return [
    { figure: `21. time travel: state at a revision of a ${nN}-change log (HTTP, 8 kinds), median of 20`, value: ms(p50), baseline: '-', verdict: target(p50 < 200, 'target < 200 ms') },
    { figure: `21. time travel: state at a revision of a ${nN}-change log, worst of 20 (p95 ${ms(percentile(f.stateMs, 95))})`, value: ms(worst), baseline: '-', verdict: target(worst < 200, 'target < 200 ms') },
    { figure: '21. time travel: one page of 5,000 pod changes (HTTP)', value: ms(f.pageMs), baseline: '-', verdict: '' },
  ];
}

// Run alone: node dist/bench/time-travel.js
if (process.argv[1]?.endsWith('time-travel.js')) {
  const { render } = await import('./table.js');
  const rows = await timeTravelRows(process.env.BENCH_QUICK === '1', (m) => process.stderr.write(`${m}\n`));
  process.stdout.write(`${render(rows)}\n`);
}
