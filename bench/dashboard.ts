// Dashboard figures, measured in headless Chromium (Debian's /usr/bin/chromium through playwright-core):
//  - first meaningful paint of the cluster map with N nodes and M pods: from navigation start to the frame after
//    the listed nodes and pods were drawn (the page's `bonsai-map-painted` mark);
//  - live updates: a watch delivering R pod changes a second for S seconds; how far behind the page falls (events
//    received but not yet applied, sampled every 100 ms), how long it takes to catch up after the last change,
//    and the frame rate meanwhile.
// The page talks to a synthetic API (lists and watch streams of generated objects) so that the browser's side is
// what is measured; the real server's list and watch figures are rows of their own.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { root } from './proc.js';
import { join as joinParts, target, type Row } from './table.js';

export interface DashboardOptions {
  nodes: number;
  pods: number;
  changesPerSec: number;
  seconds: number;
  chromium?: string;
}

export interface DashboardFigures {
  paintMs: number;
  /** The most events received but not yet drawn, at any sample. */
  maxLagEvents: number;
  /** From the last change sent to the page having applied it. */
  catchUpMs: number;
  framesPerSec: number;
  sent: number;
}

const nodeName = (i: number) => `node-${String(i).padStart(4, '0')}`;

function node(i: number): unknown {
  return {
    apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName(i), resourceVersion: '1', labels: { 'topology.kubernetes.io/zone': `zone-${'abc'[i % 3]}` } },
    spec: {}, status: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] },
  };
}

function pod(i: number, nodes: number, rv: number, phase = 'Running', ready = true): unknown {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: `pod-${i}`, namespace: 'default', resourceVersion: String(rv), labels: { app: `app-${i % 50}` }, ownerReferences: [{ kind: 'ReplicaSet', name: `app-${i % 50}-x` }] },
    spec: { nodeName: nodeName(i % nodes), containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m', memory: '128Mi' } } }] },
    status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

/** A synthetic API: node and pod lists, a silent node watch, and a pod watch that streams changes on demand. */
function syntheticApi(o: DashboardOptions) {
  const ui = join(root, 'dist', 'ui');
  const files = new Map([['/ui/', 'index.html'], ['/ui/app.js', 'app.js'], ['/ui/app.css', 'app.css']].map(([p, f]) => [p!, readFileSync(join(ui, f!))]));
  const types: Record<string, string> = { html: 'text/html', js: 'text/javascript', css: 'text/css' };
  const baseRv = 100;
  const nodesList = JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: String(baseRv) }, items: Array.from({ length: o.nodes }, (_, i) => node(i)) });
  const podsList = JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: String(baseRv) }, items: Array.from({ length: o.pods }, (_, i) => pod(i, o.nodes, baseRv)) });
  const podWatchers = new Set<ServerResponse>();
  const open = new Set<ServerResponse>();
  let rv = baseRv;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const file = files.get(url.pathname);
    if (file) {
      res.writeHead(200, { 'Content-Type': types[url.pathname.split('.').pop() === '/ui/' ? 'html' : (url.pathname.split('.').pop() ?? '')] ?? 'text/html' });
      return res.end(file);
    }
    const watch = url.searchParams.get('watch') === '1';
    if (url.pathname === '/api/v1/nodes' || url.pathname === '/api/v1/pods') {
      if (!watch) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.end(url.pathname.endsWith('nodes') ? nodesList : podsList);
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.flushHeaders();
      open.add(res);
      if (url.pathname.endsWith('pods')) podWatchers.add(res);
      res.on('close', () => {
        podWatchers.delete(res);
        open.delete(res);
      });
      return;
    }
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not served by the bench' }));
  });
  /** Streams `rate` pod changes a second for `seconds`, in 20 ms ticks; resolves with the last revision sent. */
  const stream = (rate: number, seconds: number) => new Promise<{ last: number; sent: number; endedAt: number }>((resolve) => {
    const perTick = rate / 50;
    const total = rate * seconds;
    let sent = 0;
    let carry = 0;
    const t = setInterval(() => {
      carry += perTick;
      const lines: string[] = [];
      while (carry >= 1 && sent < total) {
        carry -= 1;
        const i = (sent * 7919) % o.pods;
        rv++;
        lines.push(JSON.stringify({ type: 'MODIFIED', object: pod(i, o.nodes, rv, sent % 3 === 0 ? 'Pending' : 'Running', sent % 2 === 0) }));
        sent++;
      }
      if (lines.length) for (const w of podWatchers) w.write(`${lines.join('\n')}\n`);
      if (sent >= total) {
        clearInterval(t);
        resolve({ last: rv, sent, endedAt: performance.now() });
      }
    }, 20);
  });
  return { server, stream, sentRv: () => rv, close: () => { for (const r of open) r.destroy(); server.close(); } };
}

export async function dashboardFigures(o: DashboardOptions): Promise<DashboardFigures> {
  const api = syntheticApi(o);
  await new Promise<void>((r) => api.server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: o.chromium ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    await page.goto(`${url}/ui/`);
    await page.waitForFunction(() => document.body.dataset.painted === '1', undefined, { timeout: 60_000 });
    const paintMs = await page.evaluate(() => performance.getEntriesByName('bonsai-map-painted')[0]?.startTime ?? NaN);
    if (process.env.BENCH_DEBUG) process.stderr.write(`${JSON.stringify(await page.evaluate(() => performance.getEntries().map((e) => [e.name.slice(-40), Math.round(e.startTime), Math.round((e as PerformanceResourceTiming).responseEnd ?? 0)])))}\n`);
    // The map holds every pod and draws the boxes in view (it renders only those).
    const drawn = await page.evaluate(() => [Number(document.querySelector('.nodes')?.getAttribute('data-pods')), document.querySelectorAll('.node [data-pod]').length]);
    if (drawn[0] !== o.pods || !drawn[1]) throw new Error(`map holds ${drawn[0]} pods, draws ${drawn[1]}`);
    // Count frames and sample the applied revision in the page while the stream runs.
    await page.evaluate(() => {
      const w = window as unknown as { __frames: number; __samples: number[] };
      w.__frames = 0;
      w.__samples = [];
      const tick = () => {
        w.__frames++;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    const started = performance.now();
    const samples: number[] = [];
    let streaming = true;
    const sampler = (async () => {
      while (streaming) {
        const sent = api.sentRv();
        const applied = Number(await page.evaluate(() => (window as unknown as { __bonsai?: { podsRv(): string } }).__bonsai?.podsRv() ?? '0'));
        samples.push(Math.max(0, sent - applied));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const end = await api.stream(o.changesPerSec, o.seconds);
    await page.waitForFunction((last) => Number((window as unknown as { __bonsai?: { podsRv(): string } }).__bonsai?.podsRv() ?? 0) >= last, end.last, { timeout: 30_000, polling: 10 });
    const catchUpMs = performance.now() - end.endedAt;
    streaming = false;
    await sampler;
    const frames = await page.evaluate(() => (window as unknown as { __frames: number }).__frames);
    const elapsed = (performance.now() - started) / 1000;
    return { paintMs, maxLagEvents: Math.max(0, ...samples), catchUpMs, framesPerSec: frames / elapsed, sent: end.sent };
  } finally {
    await browser.close();
    api.close();
  }
}

/** The bench rows (figure 21): paint, and live updates. */
export async function dashboardRows(quick: boolean, log: (msg: string) => void): Promise<Row[]> {
  const o = { nodes: 1000, pods: 10_000, changesPerSec: 500, seconds: quick ? 4 : 10 };
  log(`22. dashboard in headless Chromium: first meaningful paint with ${o.nodes} nodes / ${o.pods} pods; ${o.changesPerSec} pod changes/s for ${o.seconds} s`);
  const f = await dashboardFigures(o);
  log(`   paint ${f.paintMs.toFixed(0)} ms; ${f.sent} changes, at most ${f.maxLagEvents} behind, caught up ${f.catchUpMs.toFixed(0)} ms after the last; ${f.framesPerSec.toFixed(0)} frames/s`);
  const behind = f.maxLagEvents <= o.changesPerSec && f.catchUpMs < 1000;
  return [
    { figure: `22. dashboard first meaningful paint, ${o.nodes} nodes / ${o.pods} pods (headless Chromium)`, value: `${f.paintMs.toFixed(0)} ms`, baseline: '-', verdict: target(f.paintMs < 1000, 'target < 1 s') },
    {
      figure: `22. dashboard live updates at ${o.changesPerSec} pod changes/s: most events behind; catch-up after the last`,
      value: `${f.maxLagEvents} events; ${f.catchUpMs.toFixed(0)} ms`, baseline: '-',
      verdict: joinParts(target(behind, 'target: never 1 s of changes behind, caught up < 1 s'), `${f.framesPerSec.toFixed(0)} frames/s`),
    },
  ];
}

// `node dist/bench/dashboard.js` runs this figure alone.
if (process.argv[1]?.endsWith('dashboard.js')) {
  const f = await dashboardFigures({ nodes: 1000, pods: 10_000, changesPerSec: 500, seconds: 10 });
  process.stdout.write(`${JSON.stringify(f)}\n`);
}
