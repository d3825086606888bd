// `npm run bench -- scale`: the upstream envelope in one process (issue 14). Every count is multiplied by
// BENCH_SCALE (default 1; 0.05 with BENCH_QUICK=1) so the section can be developed at a fraction of its size;
// the targets are stated for the full size. Figures: S1 envelope (:memory: and file mode), S2 lists at that size,
// S3 restart from the file-mode data dir, S4 in-flight limits, S5 bytes per pod and per node, S6 workloads.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { envelope, type Envelope } from './scale-envelope.js';
import { inflightFigure } from './scale-inflight.js';
import { listFigures, type Lists } from './scale-lists.js';
import { restartFigure, type Restart } from './scale-restart.js';
import { startProbed } from './scale-proc.js';
import { scaleWorkloadRows } from './scale-workloads.js';
import { join, mb, rate, target, type Row } from './table.js';

const GiB = 1024; // MB
const nN = (n: number) => n.toLocaleString('en-US');
const scaledNote = () => (factor === 1 ? '' : `at BENCH_SCALE=${factor}`);
const secs = (v: number) => (Number.isFinite(v) ? `${(v / 1000).toFixed(v < 10_000 ? 2 : 1)} s` : 'n/a');
const kb = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 1024).toFixed(1)} KB` : 'n/a');

export interface ScaleConfig {
  factor: number;
  nodes: number;
  pods: number;
  clients: number;
  /** Pods of the file-mode run (its data dir is the restart figure's). */
  filePods: number;
  inflightPods: number;
}

export function scaleConfig(quick: boolean): ScaleConfig {
  const factor = Number(process.env.BENCH_SCALE ?? (quick ? 0.05 : 1));
  if (!(factor > 0 && factor <= 2)) throw new Error(`BENCH_SCALE must be in (0, 2], got ${process.env.BENCH_SCALE}`);
  const n = (x: number) => Math.max(1, Math.round(x * factor));
  // The file-mode run creates as many pods as the restart figure asks for (100k); BENCH_SCALE_FILE=full makes it
  // the whole envelope (150k) at the cost of about a minute more.
  const fileFull = process.env.BENCH_SCALE_FILE === 'full';
  return { factor, nodes: n(5000), pods: n(150_000), clients: 24, filePods: n(fileFull ? 150_000 : 100_000), inflightPods: n(20_000) };
}

/** Runs `fn`; on failure returns one row saying so (the section goes on). */
async function guarded(what: string, log: (m: string) => void, fn: () => Promise<Row[]>): Promise<Row[]> {
  try {
    return await fn();
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    log(`   ${what} FAILED: ${msg}`);
    return [{ figure: `${what}`, value: 'FAILED', baseline: '-', verdict: msg.slice(0, 160) }];
  }
}

/** A target judged at full size only: at a reduced BENCH_SCALE the figure is shown next to it, unjudged. */
let factor = 1;
function goal(ok: boolean, text: string): string {
  return factor === 1 ? target(ok, text) : `${text} (not judged at BENCH_SCALE=${factor})`;
}

function envelopeRows(e: Envelope): Row[] {
  const mode = e.data === ':memory:' ? ':memory:' : 'file';
  const what = `${nN(e.pods)} pods, ${nN(e.nodes)} nodes, ${mode}`;
  const heapShare = e.heapLiveMB / e.heapLimitMB;
  return [
    { figure: `S1. ${nN(e.nodes)} nodes Ready (spawn to last Ready), ${mode}`, value: secs(e.nodesReadyMs), baseline: '-', verdict: join(goal(e.nodesReadyMs < 1000, 'target < 1 s')) },
    { figure: `S1. ${nN(e.pods)} pods created over HTTP by ${e.clients} clients on ${nN(e.nodes)} nodes, all Running, ${mode}`, value: secs(e.runningMs), baseline: '-', verdict: join(goal(e.runningMs < 120_000, 'target < 120 s'), `created in ${secs(e.create.ms)}`) },
    { figure: `S1. create rate, first vs last tenth of the pods, ${mode}`, value: `${rate(e.create.rateStart)} -> ${rate(e.create.rateEnd)}`, baseline: '-', verdict: join(`${((e.create.rateEnd / e.create.rateStart) * 100).toFixed(0)}% at the end`, e.create.retried ? `${e.create.retried} retried (429/5xx)` : '') },
    { figure: `S1. RSS peak / steady, ${what}`, value: `${mb(e.rssPeakMB)} / ${mb(e.rssSteadyMB)}`, baseline: '-', verdict: join(goal(e.rssPeakMB < 4 * GiB, 'target < 4 GiB'), `steady after ${secs(e.settleMs)} settling`) },
    { figure: `S1. V8 heap used peak / steady / live (after GC), ${mode}`, value: `${mb(e.heapPeakMB)} / ${mb(e.heapSteadyMB)} / ${mb(e.heapLiveMB)}`, baseline: '-', verdict: `live ${(heapShare * 100).toFixed(0)}% of the ${mb(e.heapLimitMB)} heap limit` },
  ];
}

function listRows(l: Lists, pods: number): Row[] {
  const n = nN(pods);
  const best = Math.min(...l.json.ms);
  const worst = Math.max(...l.json.ms);
  const gc = (ms: number | undefined) => (ms !== undefined && ms >= 1 ? `major GC ${secs(ms)} during it` : '');
  const worstGc = l.json.majorGcMs[l.json.ms.indexOf(worst)];
  const rows: Row[] = [
    { figure: `S2. full list of ${n} pods, JSON (best / worst of ${l.json.ms.length})`, value: l.json.ms.length ? `${secs(best)} / ${secs(worst)}` : 'n/a', baseline: '-', verdict: join(goal(worst < 2000, 'target < 2 s'), `${(l.json.bytes / 2 ** 20).toFixed(0)} MiB`, gc(worstGc)) },
    { figure: `S2. full list of ${n} pods, Table (kubectl's Accept)`, value: secs(l.table.ms), baseline: '-', verdict: join(goal(l.table.ms < 2000, 'target < 2 s'), `${(l.table.bytes / 2 ** 20).toFixed(0)} MiB`, gc(l.table.majorGcMs)) },
    { figure: `S2. limit=500 paging through ${n} pods`, value: secs(l.paged.ms), baseline: '-', verdict: join(goal(l.paged.ms < 3000, 'target < 3 s'), `${nN(l.paged.pages)} pages, ${nN(l.paged.items)} items`, gc(l.paged.majorGcMs)) },
    { figure: `S2. RSS during ${l.concurrent.n} concurrent full lists of ${n} pods`, value: mb(l.concurrent.rssPeakMB), baseline: '-', verdict: join(goal(l.concurrent.rssPeakMB < 4 * GiB && l.concurrent.ok === l.concurrent.n, 'target < 4 GiB, all answered'), `before ${mb(l.concurrent.rssBeforeMB)}`, l.concurrent.statuses, `slowest ${secs(l.concurrent.maxMs)}`) },
  ];
  if (l.errors.length) rows.push({ figure: 'S2. list errors', value: String(l.errors.length), baseline: '-', verdict: l.errors.join('; ').slice(0, 200) });
  return rows;
}

function restartRows(r: Restart): Row[] {
  const per10k = (b: number) => (b / r.pods) * 10_000;
  const total = r.files.db + r.files.wal;
  return [
    { figure: `S3. restart with ${nN(r.pods)} pods on disk: spawn to first answered request (GET one pod)`, value: secs(r.firstAnswerMs), baseline: '-', verdict: join(goal(r.firstAnswerMs < 2000, 'target < 2 s for 100,000 pods')) },
    { figure: `S3. restart: spawn to steady (full list answered, all Running, CPU at idle)`, value: secs(r.steadyMs), baseline: '-', verdict: join(goal(r.steady && r.steadyMs < 5000, 'target < 5 s for 100,000 pods'), r.steady ? '' : 'CPU never settled within 60 s', `first full list at ${secs(r.listMs)}`) },
    { figure: `S3. database size per 10,000 pods (bonsai.db + -wal after a clean stop)`, value: mb(per10k(total) / 2 ** 20), baseline: '-', verdict: `db ${mb(r.files.db / 2 ** 20)}, wal ${mb(r.files.wal / 2 ** 20)} for ${nN(r.pods)} pods with their nodes, events and history` },
    { figure: `S3. RSS / live heap after restart, ${nN(r.pods)} pods`, value: `${mb(r.rssSteadyMB)} / ${mb(r.heapLiveMB)}`, baseline: '-', verdict: '' },
  ];
}

export async function scaleRows(quick: boolean, log: (m: string) => void): Promise<Row[]> {
  const cfg = scaleConfig(quick);
  factor = cfg.factor;
  const rows: Row[] = [];
  const t0 = performance.now();

  log(`S0. an idle server without nodes (the zero point of the per-node and per-pod figures)`);
  let idle = { rssMB: NaN, heapMB: NaN };
  rows.push(...(await guarded('S0. idle server', log, async () => {
    const s = await startProbed(':memory:', ['--nodes', '0'], 1);
    try {
      await sleep(1500);
      idle = { rssMB: s.rssMB(), heapMB: ((await s.liveHeap())?.heapUsed ?? NaN) / 2 ** 20 };
      log(`   RSS ${idle.rssMB.toFixed(0)} MB, live heap ${idle.heapMB.toFixed(0)} MB`);
      return [];
    } finally {
      await s.stop();
    }
  })));

  log(`S1+S2. envelope, :memory:: ${nN(cfg.nodes)} nodes, then ${nN(cfg.pods)} pods by ${cfg.clients} clients; then the lists`);
  let mem: Envelope | undefined;
  rows.push(...(await guarded('S1. envelope :memory:', log, async () => {
    const r = await envelope({ data: ':memory:', nodes: cfg.nodes, pods: cfg.pods, clients: cfg.clients, log }, (s) => listFigures(s, cfg.pods, log));
    mem = r.env;
    return [...envelopeRows(r.env), ...listRows(r.then, cfg.pods)];
  })));

  log(`S4. in-flight limits: ${nN(cfg.inflightPods)} pods, then a burst of 200 full lists + 100 creates`);
  rows.push(...(await guarded('S4. in-flight limits', log, async () => {
    const f = await inflightFigure(cfg.inflightPods, 200, 100, log);
    if (!f.supported) return [{ figure: 'S4. in-flight limits (429 + Retry-After)', value: 'skipped', baseline: '-', verdict: 'this build has no --max-requests-inflight / --max-mutating-requests-inflight' }];
    const bounded = f.rssPeakMB < 4 * GiB;
    return [{
      figure: `S4. burst of ${f.lists} full lists of ${nN(f.pods)} pods + ${f.creates} creates, limits ${f.limits.readOnly} read / ${f.limits.mutating} mutating`, value: `${nN(f.tooMany)} x 429`, baseline: '-',
      verdict: join(target(f.tooMany > 0 && f.noRetryAfter === 0 && bounded, '429s with Retry-After, RSS bounded'), `${f.ok} answered`, f.other, `RSS ${mb(f.rssBeforeMB)} -> peak ${mb(f.rssPeakMB)}`),
    }];
  })));

  log(`S1+S3. envelope, file mode: ${nN(cfg.nodes)} nodes, ${nN(cfg.filePods)} pods; then stop and restart on its data dir`);
  rows.push(...(await guarded('S1. envelope file mode', log, async () => {
    const r = await envelope({ data: 'dir', nodes: cfg.nodes, pods: cfg.filePods, clients: cfg.clients, log }, async () => undefined);
    const out = envelopeRows(r.env);
    out.push(...(await guarded('S3. restart', log, async () => restartRows(await restartFigure(r.dataDir, r.cluster, cfg.filePods, r.env.idleCpu, log)))));
    return out;
  })));

  if (mem) {
    const m = mem;
    const perPodRss = ((m.rssSteadyMB - m.nodesRssMB) * 2 ** 20) / m.pods;
    const perPodHeap = ((m.heapLiveMB - m.nodesHeapMB) * 2 ** 20) / m.pods;
    const perNodeRss = ((m.nodesRssMB - idle.rssMB) * 2 ** 20) / m.nodes;
    const perNodeHeap = ((m.nodesHeapMB - idle.heapMB) * 2 ** 20) / m.nodes;
    log(`S5. per pod: RSS ${kb(perPodRss)}, live heap ${kb(perPodHeap)}; per node: RSS ${kb(perNodeRss)}, live heap ${kb(perNodeHeap)}`);
    rows.push(
      { figure: 'S5. memory per Running pod (its events included), :memory:: RSS / live heap', value: `${kb(perPodRss)} / ${kb(perPodHeap)}`, baseline: '-', verdict: join(`(steady - nodes alone) / ${nN(m.pods)} pods`, scaledNote()) },
      { figure: 'S5. memory per Ready node (node, lease, kubelet), :memory:: RSS / live heap', value: `${kb(perNodeRss)} / ${kb(perNodeHeap)}`, baseline: '-', verdict: join(`(nodes alone - no node) / ${nN(m.nodes)} nodes`, scaledNote()) },
    );
  }

  log('S6. workloads at scale (bench/scale-workloads.ts)');
  // Their rows are numbered within their file; in this section they are all S6.
  rows.push(...(await guarded('S6. workloads', log, async () => (await scaleWorkloadRows({ quick, log })).map((r) => ({ ...r, figure: r.figure.replace(/^S\d+\.\s*/, 'S6. ') })))));
  log(`scale section: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return rows;
}

