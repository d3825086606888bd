// `npm run bench`: measures Bonsai against a bare Fastify + better-sqlite3 baseline and prints a table.
// Every server (Bonsai and baseline) runs as a spawned child process; the load generator (undici) runs
// in this process. Data lives in a temp dir removed at the end; the only file written is docs/performance.md, whose
// marked sections get each section's table (bench/perf-doc.ts), except in smoke runs (BENCH_QUICK=1, which shrinks
// every figure, or BENCH_SCALE for the scale section) or with BENCH_DOC=0.
// Sections: `npm run bench` runs the everyday figures (about 3-4 minutes), `npm run bench -- scale` only the scale
// section (bench/scale.ts: the 5,000-node / 150,000-pod envelope, minutes at full CPU; BENCH_SCALE=0.1 shrinks it),
// `npm run bench -- storage` only the storage figures (bench/storage.ts: SQLite and etcd under 16 writers, also part
// of the default run), `npm run bench -- all` everything.
import { cpus, loadavg, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { cleanup, killAllSync } from './proc.js';
import { concurrency, createRate, listFigure, memoryFigure, startup, watchFigure, writeRead } from './figures.js';
import { nodesReady, podsOnNodes } from './cluster.js';
import { fanoutCreates, slowWatchersFigure } from './fanout.js';
import { workloadRows } from './workloads.js';
import { crdApplyFigure, customResourceCreates } from './extensions.js';
import { gangsOnNodes } from './gangs.js';
import { jobSetRows } from './jobset.js';
import { draRows } from './dra.js';
import { karpenterRows } from './karpenter.js';
import { karpenterConsolidationRows } from './karpenter-consolidation.js';
import { timeTravelRows } from './time-travel.js';
import { dashboardRows } from './dashboard.js';
import { execBudgetRows } from './exec-budget.js';
import { hostileStallRows } from './hostile-stall.js';
import { timingRows } from './timing-figures.js';
import { containerCommandRows } from './container-command.js';
import { ecosystemInstallRows } from './ecosystem-install.js';
import { median } from './load.js';
import { scaleConfig, scaleRows } from './scale.js';
import { flowControlRows } from './flowcontrol.js';
import { storageRows } from './storage.js';
import { join, mb, ms, rate, ratio, render, target, type Row } from './table.js';
import { perfDocPath, sectionBody, writeSection, type BenchSection } from './perf-doc.js';

const quick = process.env.BENCH_QUICK === '1';
const cfg = {
  startupRuns: quick ? 3 : 11,
  warmupMs: quick ? 300 : 1000,
  measureMs: quick ? 1000 : 5000,
  gets: 2000,
  listPods: quick ? 2000 : 10_000,
  listRuns: 10,
  watchers: 100,
  watchWrites: 200,
  watchRate: 50,
  fanWatchers: quick ? 100 : 1000,
  slowWatchers: quick ? 100 : 500,
  slowWrites: quick ? 4000 : 20_000,
  memPods: quick ? 10_000 : 100_000,
  schedNodes: quick ? 100 : 1000,
  schedPods: quick ? 1000 : 10_000,
  gangNodes: quick ? 20 : 200,
  gangs: quick ? 10 : 100,
  gangSize: 16,
  readyNodes: quick ? 500 : 5000,
};

const t0 = performance.now();
const loadAvg = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const log = (msg: string) => process.stderr.write(`[bench +${((performance.now() - t0) / 1000).toFixed(1)}s] ${msg}\n`);

const sections = { default: ['everyday', 'storage'], scale: ['scale'], storage: ['storage'], all: ['everyday', 'storage', 'scale'] } as const;
type SectionArg = keyof typeof sections;

function sectionArg(): SectionArg {
  const args = process.argv.slice(2).filter((a) => a !== '--');
  if (args.length === 0) return 'default';
  if (args.length === 1 && (args[0] === 'scale' || args[0] === 'storage' || args[0] === 'all')) return args[0];
  process.stderr.write('usage: npm run bench [-- scale | storage | all]   (BENCH_QUICK=1 for a smoke run; BENCH_SCALE=<factor> shrinks the scale section)\n');
  process.exit(2);
}

async function main(): Promise<void> {
  const which: readonly string[] = sections[sectionArg()];
  log(`node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, load average ${loadAvg()}${quick ? ', QUICK mode' : ''}; sections: ${which.join(', ')}`);
  const loadAtStart = loadAvg();
  const done: { section: BenchSection; rows: Row[]; seconds: number }[] = [];
  const measure = async (section: BenchSection, fill: (rows: Row[]) => Promise<void>) => {
    const start = performance.now();
    const rows: Row[] = [];
    await fill(rows);
    done.push({ section, rows, seconds: (performance.now() - start) / 1000 });
  };
  if (which.includes('everyday')) await measure('everyday', everydayRows);
  if (which.includes('storage')) await measure('storage', async (rows) => { rows.push(...(await storageRows(quick, log))); });
  if (which.includes('scale')) await measure('scale', async (rows) => { rows.push(...(await scaleRows(quick, log))); });
  const rows = done.flatMap((d) => d.rows);

  process.stdout.write(`\nBonsai benchmark — ${cpus().length} CPUs, node ${process.version}; servers are child processes, the undici load generator runs in the bench process.\n`);
  if (which.includes('everyday')) process.stdout.write(`${baselineNote}\n`);
  process.stdout.write(`\n${render(rows)}\n`);
  process.stdout.write(`\nTotal bench time: ${((performance.now() - t0) / 1000).toFixed(0)} s; load average at the end ${loadAvg()} (other work on this shared machine skews figures).${which.includes('everyday') ? ` p99 of ${cfg.listRuns} samples is their maximum.` : ''}\n`);
  for (const d of done) writeDoc(d.section, d.rows, d.seconds, loadAtStart);
}

const baselineNote = 'Baseline: bare Fastify + one better-sqlite3 insert per create (WAL, synchronous=NORMAL, temp file); its GET/list routes read SQLite directly.';

/** Writes a section's table into docs/performance.md, unless this is a smoke run or BENCH_DOC=0. */
function writeDoc(section: BenchSection, rows: Row[], seconds: number, loadAtStart: string): void {
  const shrunk = quick || (section === 'scale' && scaleConfig(quick).factor !== 1);
  if (shrunk || process.env.BENCH_DOC === '0') {
    log(`${section}: docs/performance.md left as it was (${shrunk ? 'shrunk figures' : 'BENCH_DOC=0'})`);
    return;
  }
  const info = { date: new Date(), nodeVersion: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '?', loadAtStart, loadAtEnd: loadAvg(), seconds };
  const notes = section === 'everyday' ? [baselineNote] : [];
  writeSection(perfDocPath, section, sectionBody(section, info, notes, render(rows)));
  log(`${section}: table written into ${perfDocPath}`);
}

/**
 * Figure 2's room: how much longer than on the bound server a create may take (µs of the server's time, at the rates
 * measured) for Bonsai to still make 0.6x the baseline; "no time" when the bound itself is under it.
 */
function budgetUs(baselinePerSec: number, boundPerSec: number): string {
  const us = 1e6 / (0.6 * baselinePerSec) - 1e6 / boundPerSec;
  return us > 0 ? us.toFixed(0) : 'no time';
}

/** The everyday figures (1-17 and the add-on rows): what `npm run bench` has always run. */
async function everydayRows(rows: Row[]): Promise<void> {
  log(`1. start-up: 1 warm-up + ${cfg.startupRuns} runs each of bonsai :memory:, bonsai data dir, baseline`);
  const st = await startup(cfg.startupRuns);
  const base1 = median(st.baseline);
  const fmtRuns = (v: number[]) => v.map((x) => x.toFixed(0)).join(', ');
  log(`   runs (ms) memory [${fmtRuns(st.memory)}] dir [${fmtRuns(st.dir)}] baseline [${fmtRuns(st.baseline)}]`);
  rows.push({ figure: `1. start-up to first /healthz 200, :memory: (median of ${cfg.startupRuns})`, value: ms(median(st.memory)), baseline: ms(base1), verdict: join(ratio(median(st.memory), base1), target(median(st.memory) <= 1.2 * base1, 'rule <= 1.2x the bare Fastify server'), target(median(st.memory) < 200, 'target < 200 ms')) });
  rows.push({ figure: `1. start-up to first /healthz 200, fresh data dir (median of ${cfg.startupRuns})`, value: ms(median(st.dir)), baseline: ms(base1), verdict: join(ratio(median(st.dir), base1), target(median(st.dir) <= 1.2 * base1, 'rule <= 1.2x the bare Fastify server'), target(median(st.dir) < 200, 'target < 200 ms')) });

  log(`2+3. creates: ${concurrency} clients, ${cfg.warmupMs} ms warm-up + ${cfg.measureMs} ms; then ${cfg.gets} sequential GETs`);
  const bw = await writeRead('bonsai', cfg.warmupMs, cfg.measureMs, cfg.gets);
  const cpu = (r: { serverCpu: number; clientCpu: number }) => `CPU (1.0 = one core): server ${r.serverCpu.toFixed(2)}, load generator ${r.clientCpu.toFixed(2)}`;
  log(`   bonsai: ${bw.creates.count} creates in window, ${cpu(bw)}, ${bw.creates.errors} errors${bw.creates.firstError ? ` (first: ${bw.creates.firstError})` : ''}`);
  const xw = await writeRead('baseline', cfg.warmupMs, cfg.measureMs, cfg.gets);
  log(`   baseline: ${xw.creates.count} inserts in window, ${cpu(xw)}, ${xw.creates.errors} errors${xw.creates.firstError ? ` (first: ${xw.creates.firstError})` : ''}`);
  const tpRatio = bw.creates.perSec / xw.creates.perSec;
  rows.push({ figure: `2. pod creates/s over HTTP, ${concurrency} clients, file data dir`, value: rate(bw.creates.perSec), baseline: rate(xw.creates.perSec), verdict: join(`${tpRatio.toFixed(2)}x baseline`, target(tpRatio >= 0.6, 'target >= 0.6x a bare Fastify route doing one SQLite insert per request, with managedFields recorded on every write')) });
  // The bound runs after both, so a machine slower at the end of the pair shows as a lower bound, not a higher one.
  const bound = await createRate('bound', cfg.warmupMs, cfg.measureMs);
  const boundRatio = bound.perSec / xw.creates.perSec;
  log(`   bound (Bonsai, a pod create cut down to the baseline's insert): ${bound.count} creates in window, ${bound.errors} errors`);
  rows.push({ figure: `2. bound: Bonsai with a pod create cut down to the baseline's one insert (bench/create-bound-server.ts)`, value: rate(bound.perSec), baseline: rate(xw.creates.perSec), verdict: `${boundRatio.toFixed(2)}x baseline: for 0.6x, the rest of a create must fit in ${budgetUs(xw.creates.perSec, bound.perSec)} µs (Bonsai's full create: ${(1e6 / bw.creates.perSec - 1e6 / bound.perSec).toFixed(0)} µs more than the bound)` });
  rows.push({ figure: `3. GET one pod, p50 (${cfg.gets} sequential)`, value: ms(bw.get.p50), baseline: ms(xw.get.p50), verdict: ratio(bw.get.p50, xw.get.p50) });
  rows.push({ figure: `3. GET one pod, p99 (${cfg.gets} sequential)`, value: ms(bw.get.p99), baseline: ms(xw.get.p99), verdict: ratio(bw.get.p99, xw.get.p99) });

  log(`4. list: create ${cfg.listPods} pods over HTTP (${concurrency} clients), then ${cfg.listRuns} timed GETs of the list`);
  const bl = await listFigure('bonsai', cfg.listPods, cfg.listRuns);
  log(`   bonsai: created in ${(bl.createMs / 1000).toFixed(1)} s; list has ${bl.items} items, ${(bl.bytes / 2 ** 20).toFixed(1)} MiB`);
  const xl = await listFigure('baseline', cfg.listPods, cfg.listRuns);
  log(`   baseline: created in ${(xl.createMs / 1000).toFixed(1)} s; list has ${xl.items} items, ${(xl.bytes / 2 ** 20).toFixed(1)} MiB`);
  const listN = cfg.listPods.toLocaleString('en-US');
  rows.push({ figure: `4. list ${listN} pods (JSON), median of ${cfg.listRuns}`, value: ms(bl.median), baseline: ms(xl.median), verdict: join(ratio(bl.median, xl.median), target(bl.median < 150, 'target < 150 ms'), `body ${(bl.bytes / 2 ** 20).toFixed(1)} vs ${(xl.bytes / 2 ** 20).toFixed(1)} MiB`) });
  rows.push({ figure: `4. list ${listN} pods (JSON), p99 of ${cfg.listRuns} (= max)`, value: ms(bl.p99), baseline: ms(xl.p99), verdict: join(ratio(bl.p99, xl.p99), target(bl.p99 < 150, 'target < 150 ms')) });

  log(`5. watch: ${cfg.watchers} watchers, ${cfg.watchWrites} writes (create/patch alternating) at ${cfg.watchRate}/s`);
  const w = await watchFigure(cfg.watchers, cfg.watchWrites, cfg.watchRate);
  log(`   ${w.deliveries}/${w.expected} deliveries; max ${w.max.toFixed(1)} ms; from write response: p50 ${w.p50FromResponse.toFixed(2)} ms, p99 ${w.p99FromResponse.toFixed(2)} ms`);
  const delivered = `${w.deliveries.toLocaleString('en-US')}/${w.expected.toLocaleString('en-US')} delivered`;
  rows.push({ figure: `5. watch delivery p50, ${w.watchers} watchers (from write request start)`, value: ms(w.p50), baseline: '-', verdict: delivered });
  rows.push({ figure: `5. watch delivery p99, ${w.watchers} watchers (from write request start)`, value: ms(w.p99), baseline: '-', verdict: delivered });

  const fw = cfg.fanWatchers;
  const fwN = fw.toLocaleString('en-US');
  log(`5b. fan-out: creates (${concurrency} clients, ${cfg.warmupMs} ms warm-up + ${cfg.measureMs} ms) with no watcher, ${fwN} pod watchers reading every pod, ${fwN} kubelet-style watchers`);
  const f0 = await fanoutCreates(0, cfg.warmupMs, cfg.measureMs);
  const fAll = await fanoutCreates(fw, cfg.warmupMs, cfg.measureMs);
  const fNode = await fanoutCreates(fw, cfg.warmupMs, cfg.measureMs, true);
  const fan = (f: typeof fAll) => {
    const share = f.perSec / f0.perSec;
    log(`   ${f.watchers} watchers: ${f.count} creates in window, ${f.errors} errors; ${f.delivered}/${f.expected} events delivered (${(f.watchBytesPerSec / 2 ** 20).toFixed(0)} MiB/s to watchers); ${f.open}/${f.watchers} watchers still open`);
    return join(`${(share * 100).toFixed(0)}% of no watcher`, target(share >= 0.5, 'target >= 50%'), `${f.delivered.toLocaleString('en-US')}/${f.expected.toLocaleString('en-US')} events delivered`, `${f.watchers - f.open} cut off`);
  };
  rows.push({ figure: `5b. pod creates/s, ${concurrency} clients, no watcher`, value: rate(f0.perSec), baseline: '-', verdict: '' });
  rows.push({ figure: `5b. pod creates/s, ${concurrency} clients, ${fwN} pod watchers each sent every pod`, value: rate(fAll.perSec), baseline: '-', verdict: fan(fAll) });
  rows.push({ figure: `5b. pod creates/s, ${concurrency} clients, ${fwN} watchers by spec.nodeName (kubelets)`, value: rate(fNode.perSec), baseline: '-', verdict: fan(fNode) });

  log(`5c. watch delivery: ${fwN} watchers on raw sockets, ${cfg.watchWrites} writes at ${cfg.watchRate}/s`);
  const wf = await watchFigure(fw, cfg.watchWrites, cfg.watchRate, 'raw');
  const wfDelivered = `${wf.deliveries.toLocaleString('en-US')}/${wf.expected.toLocaleString('en-US')} delivered`;
  rows.push({ figure: `5c. watch delivery p50, ${fwN} watchers (from write request start)`, value: ms(wf.p50), baseline: '-', verdict: wfDelivered });
  rows.push({ figure: `5c. watch delivery p99, ${fwN} watchers (from write request start)`, value: ms(wf.p99), baseline: '-', verdict: join(wfDelivered, target(wf.p99 < 50, 'target < 50 ms')) });

  const sN = cfg.slowWatchers.toLocaleString('en-US');
  const sW = cfg.slowWrites.toLocaleString('en-US');
  log(`5d. slow watchers: ${sN} pod watchers that never read, a burst of ${sW} creates (${concurrency} clients); the same burst without them`);
  const sw = await slowWatchersFigure(cfg.slowWatchers, cfg.slowWrites);
  log(`   with: RSS +${sw.with.growthMB.toFixed(1)} MB (peak ${sw.with.peakMB.toFixed(1)} MB), ${rate(sw.with.perSec)}, ${sw.with.cutOff} cut off; without: RSS +${sw.without.growthMB.toFixed(1)} MB, ${rate(sw.without.perSec)}`);
  rows.push({
    figure: `5d. RSS added by ${sN} never-reading watchers, ${sW}-create burst`, value: mb(sw.addedMB), baseline: '-',
    verdict: join(target(sw.addedMB < 100, 'target < 100 MB'), `${sw.with.cutOff}/${sw.watchers} cut off`, `burst RSS growth ${mb(sw.with.growthMB)} vs ${mb(sw.without.growthMB)} without`),
  });

  log(`6. memory: create ${cfg.memPods} pods over HTTP (${concurrency} clients) into a spawned server, then read VmRSS`);
  const bm = await memoryFigure('bonsai', cfg.memPods);
  log(`   bonsai: idle ${bm.idleMB.toFixed(1)} MB, after ${bm.rssMB.toFixed(1)} MB (peak ${bm.hwmMB.toFixed(1)} MB), ${(bm.createMs / 1000).toFixed(1)} s`);
  const xm = await memoryFigure('baseline', cfg.memPods);
  log(`   baseline: idle ${xm.idleMB.toFixed(1)} MB, after ${xm.rssMB.toFixed(1)} MB (peak ${xm.hwmMB.toFixed(1)} MB), ${(xm.createMs / 1000).toFixed(1)} s`);
  const memN = cfg.memPods.toLocaleString('en-US');
  rows.push({ figure: `6. RSS with ${memN} pods stored (VmRSS)`, value: mb(bm.rssMB), baseline: mb(xm.rssMB), verdict: join(ratio(bm.rssMB, xm.rssMB, 1), `idle: ${mb(bm.idleMB)} vs ${mb(xm.idleMB)}; peak ${mb(bm.hwmMB)}`) });
  rows.push({ figure: `6. time to create ${memN} pods (${concurrency} clients)`, value: `${(bm.createMs / 1000).toFixed(1)} s`, baseline: `${(xm.createMs / 1000).toFixed(1)} s`, verdict: join(ratio(bm.createMs, xm.createMs, 1), `${rate(cfg.memPods / (bm.createMs / 1000))} vs ${rate(cfg.memPods / (xm.createMs / 1000))}`) });

  const nN = (n: number) => n.toLocaleString('en-US');
  const secs = (v: number) => `${(v / 1000).toFixed(1)} s`;
  log(`7. scheduler: ${nN(cfg.schedPods)} bare pods onto ${nN(cfg.schedNodes)} nodes (16 clients create; time to every pod bound, then Running)`);
  const basic = await podsOnNodes(cfg.schedNodes, cfg.schedPods, { waitRunning: true });
  const basicRate = cfg.schedPods / (basic.boundMs / 1000);
  log(`   created in ${secs(basic.createMs)}, all bound after ${secs(basic.boundMs)}, all Running after ${secs(basic.runningMs ?? NaN)}, RSS ${mb(basic.rssMB)}`);
  rows.push({ figure: `7. scheduler throughput, ${nN(cfg.schedPods)} basic pods on ${nN(cfg.schedNodes)} nodes (first create to last bind)`, value: rate(basicRate), baseline: '-', verdict: target(basicRate >= 700, "kube-scheduler's floor ~700/s (5,000 nodes)") });
  log(`8. scheduler: ${nN(cfg.schedPods)} pods with required anti-affinity on hostname (10 groups) onto ${nN(cfg.schedNodes)} nodes`);
  const anti = await podsOnNodes(cfg.schedNodes, cfg.schedPods, { antiAffinityGroups: 10 });
  const antiRate = cfg.schedPods / (anti.boundMs / 1000);
  log(`   created in ${secs(anti.createMs)}, all bound after ${secs(anti.boundMs)}`);
  rows.push({ figure: `8. scheduler throughput, ${nN(cfg.schedPods)} pods with pod anti-affinity on ${nN(cfg.schedNodes)} nodes`, value: rate(antiRate), baseline: '-', verdict: target(antiRate >= 60, "kube-scheduler's floor ~60/s") });
  rows.push({ figure: `9. ${nN(cfg.schedPods)} bare pods Running on ${nN(cfg.schedNodes)} nodes (first create to last Running)`, value: secs(basic.runningMs ?? NaN), baseline: '-', verdict: join(target((basic.runningMs ?? Infinity) < 5000 * (cfg.schedPods / 10_000), 'target < 5 s for 10,000 on 1,000 nodes'), "kwok's CI bar 60 s") });
  rows.push({ figure: `9. RSS with ${nN(cfg.schedNodes)} nodes and ${nN(cfg.schedPods)} running pods`, value: mb(basic.rssMB), baseline: '-', verdict: '' });
  log(`10. ${nN(cfg.readyNodes)} nodes: spawn to every node Ready`);
  const nr = await nodesReady(cfg.readyNodes);
  rows.push({ figure: `10. ${nN(cfg.readyNodes)} nodes Ready (spawn to last Ready)`, value: secs(nr.readyMs), baseline: '-', verdict: join(target(nr.readyMs < 1000 * (cfg.readyNodes / 5000), 'target < 1 s for 5,000'), "kwok's bar 60 s") });
  rows.push({ figure: `10. RSS with ${nN(cfg.readyNodes)} nodes`, value: mb(nr.rssMB), baseline: '-', verdict: '' });
  rows.push(...(await workloadRows(quick, log)));

  log('15. CRDs: server-side apply of every fixture CRD (JobSet, LWS, Karpenter, KEDA, VPA, Agent Sandbox) until all are Established');
  const ca = await crdApplyFigure();
  log(`   ${ca.crds} CRDs, ${(ca.bytes / 2 ** 20).toFixed(1)} MiB of JSON, Established after ${ms(ca.ms)}`);
  rows.push({ figure: `15. apply ${ca.crds} CRDs (${(ca.bytes / 2 ** 20).toFixed(1)} MiB) server-side to all Established`, value: ms(ca.ms), baseline: '-', verdict: target(ca.ms < 1000, 'target < 1 s') });
  rows.push({ figure: '15. longest wait of a GET /version sent every 2 ms during those applies', value: ms(ca.probe.max), baseline: '-', verdict: join(target(ca.probe.max < 100, 'no request holds the event loop > 100 ms'), `p99 ${ms(ca.probe.p99)} of ${ca.probe.n}`) });
  log(`16. creates/s: ConfigMaps, then a custom resource with a CEL rule (${concurrency} clients, same server)`);
  const cr = await customResourceCreates(cfg.warmupMs, cfg.measureMs);
  const crShare = cr.custom.perSec / cr.configMaps.perSec;
  log(`   ConfigMaps ${rate(cr.configMaps.perSec)} (${cr.configMaps.errors} errors), custom ${rate(cr.custom.perSec)} (${cr.custom.errors} errors${cr.custom.firstError ? `, first: ${cr.custom.firstError}` : ''})`);
  rows.push({ figure: `16. custom resource (CEL rule) creates/s, ${concurrency} clients`, value: rate(cr.custom.perSec), baseline: rate(cr.configMaps.perSec), verdict: join(`${(crShare * 100).toFixed(0)}% of ConfigMap creates`, target(crShare >= 0.7, 'target >= 70%')) });

  log(`17. gang scheduling: ${cfg.gangs} Workloads with a gang of ${cfg.gangSize} pods each on ${cfg.gangNodes} nodes (16 clients create; first create to last bind)`);
  const gs = await gangsOnNodes(cfg.gangNodes, cfg.gangs, cfg.gangSize);
  log(`   created in ${ms(gs.createMs)}, all bound after ${ms(gs.boundMs)}; ${gs.partial} gangs not whole; RSS ${mb(gs.rssMB)}`);
  rows.push({
    figure: `17. gangs placed/s, ${nN(cfg.gangs)} gangs of ${cfg.gangSize} (${nN(cfg.gangs * cfg.gangSize)} pods) on ${nN(cfg.gangNodes)} nodes`, value: `${gs.groupsPerSec.toFixed(1)}/s`, baseline: '-',
    verdict: join(target(gs.groupsPerSec >= 20 && gs.partial === 0, 'target >= 20 gangs/s, every gang whole'), `${gs.partial} partial`),
  });
  rows.push(...(await draRows(quick, log)));
  rows.push(...(await jobSetRows(quick, log)));
  rows.push(...(await karpenterRows(log)));
  rows.push(...karpenterConsolidationRows(quick, log));
  rows.push(...(await timeTravelRows(quick, log)));
  rows.push(...(await dashboardRows(quick, log)));
  rows.push(...(await flowControlRows(quick, log)));
  rows.push(...(await execBudgetRows(quick, log)));
  rows.push(...(await hostileStallRows(quick, log)));
  rows.push(...(await timingRows(log)));
  rows.push(...containerCommandRows(quick, log));
  rows.push(...(await ecosystemInstallRows(log)));
}

process.on('exit', killAllSync);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    killAllSync();
    process.exit(130);
  });
}

let code = 0;
try {
  await main();
} catch (e) {
  process.stderr.write(`bench failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  code = 1;
} finally {
  await cleanup();
}
process.exit(code);
