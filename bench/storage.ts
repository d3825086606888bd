// The storage figures (issue 24): the API alone (`--api-only`: no controllers, scheduler or kubelets), 16 clients
// creating pods on SQLite and on etcd in the same run, a GET's latency while they do, and the time a write made
// through one process takes to reach a watch on another process on the same etcd. etcd is Debian's 3.4 binary,
// its data in /dev/shm where the system allows (it fsyncs every write); without the binary the etcd rows say so.
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { etcdBinary, startEtcd, type EtcdHandle } from '../test/helpers/etcd-process.js';
import { spawnServer } from './proc.js';
import { closedLoopCreates, createPod, percentile, podBody, podsPath, pool, type Throughput } from './load.js';
import { readingWatch } from './raw-watch.js';
import { join, ms, rate, ratio, target, type Row } from './table.js';

type Log = (msg: string) => void;
const clients = 16;

interface LoadedReads { creates: Throughput; getP99: number; getP50: number; gets: number }

/** Creates with `clients` clients while one more client GETs one pod back to back; the GETs' latencies. */
async function createsWithGets(url: string, warmupMs: number, measureMs: number): Promise<LoadedReads> {
  const p = pool(url, clients);
  const reader = new Pool(url, { connections: 1 });
  try {
    const seed = await createPod(p, 'probe');
    if (seed.status !== 201) throw new Error(`seed pod: ${seed.status} ${seed.body.slice(0, 300)}`);
    const lat: number[] = [];
    let stop = false;
    const probe = (async () => {
      await sleep(warmupMs);
      while (!stop) {
        const t = performance.now();
        const res = await reader.request({ method: 'GET', path: `${podsPath}/probe`, headers: { accept: 'application/json' } });
        await res.body.arrayBuffer();
        if (res.statusCode === 200) lat.push(performance.now() - t);
        await sleep(2);
      }
    })();
    const creates = await closedLoopCreates(p, 'tp', clients, warmupMs, measureMs);
    stop = true;
    await probe;
    return { creates, getP99: percentile(lat, 99), getP50: percentile(lat, 50), gets: lat.length };
  } finally {
    await p.close();
    await reader.close();
  }
}

async function onBackend(args: string[], warmupMs: number, measureMs: number): Promise<LoadedReads> {
  const proc = spawnServer('bonsai', 'dir', ['--api-only', ...args]);
  try {
    return await createsWithGets(await proc.ready, warmupMs, measureMs);
  } finally {
    await proc.stop();
  }
}

/** Two processes on one etcd: `writes` creates through A, paced; each one's arrival on a watch through B. */
async function crossProcessWatch(etcd: EtcdHandle, writes: number, perSec: number): Promise<{ p50: number; p99: number; seen: number }> {
  const a = spawnServer('bonsai', 'dir', ['--api-only', '--storage', etcd.storage]);
  const b = spawnServer('bonsai', 'dir', ['--api-only', '--storage', etcd.storage]);
  try {
    const [urlA, urlB] = [await a.ready, await b.ready];
    const arrivals = new Map<number, number>();
    // As an informer watches: from the resourceVersion of a list, so the stream carries changes only, not the initial
    // state of the pods the figures before this one left in etcd (which a watch without one sends first).
    const listed = await fetch(`${urlB}${podsPath}?limit=1`, { headers: { accept: 'application/json' } });
    const listRv = ((await listed.json()) as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion ?? '';
    if (!listRv) throw new Error(`the list through the second process gave no resourceVersion (${listed.status})`);
    const watch = await readingWatch(urlB, `${podsPath}?watch=true&allowWatchBookmarks=false&resourceVersion=${listRv}`, (rv, t) => arrivals.set(rv, t));
    const p = pool(urlA, 1);
    const sent: Array<{ rv: number; t: number }> = [];
    try {
      for (let i = 0; i < writes; i++) {
        const t = performance.now();
        const res = await p.request({ method: 'POST', path: podsPath, headers: { 'content-type': 'application/json' }, body: podBody(`xw-${i}`) });
        const body = await res.body.json() as { metadata?: { resourceVersion?: string } };
        if (res.statusCode === 201) sent.push({ rv: Number(body.metadata?.resourceVersion), t });
        await sleep(Math.max(0, 1000 / perSec - (performance.now() - t)));
      }
      const until = performance.now() + 5000;
      while (performance.now() < until && sent.some((s) => !arrivals.has(s.rv))) await sleep(20);
    } finally {
      await p.close();
      watch.socket.destroy();
    }
    const lat = sent.filter((s) => arrivals.has(s.rv)).map((s) => arrivals.get(s.rv)! - s.t);
    return { p50: percentile(lat, 50), p99: percentile(lat, 99), seen: lat.length };
  } finally {
    await a.stop();
    await b.stop();
  }
}

export async function storageRows(quick: boolean, log: Log): Promise<Row[]> {
  const warmupMs = quick ? 300 : 1000;
  const measureMs = quick ? 1500 : 5000;
  const rows: Row[] = [];
  log(`S. storage: ${clients} clients creating pods (--api-only) for ${measureMs} ms on SQLite, then on etcd; one more client GETs a pod meanwhile`);
  const sqlite = await onBackend([], warmupMs, measureMs);
  log(`   sqlite: ${sqlite.creates.count} creates, ${sqlite.creates.errors} errors; ${sqlite.gets} GETs, p50 ${ms(sqlite.getP50)}, p99 ${ms(sqlite.getP99)}`);
  rows.push({ figure: `S1. pod creates/s, ${clients} clients, API only, SQLite (file)`, value: rate(sqlite.creates.perSec), baseline: '-', verdict: '' });
  rows.push({ figure: 'S2. GET one pod during those creates, p99, SQLite', value: ms(sqlite.getP99), baseline: '-', verdict: join(`p50 ${ms(sqlite.getP50)}, ${sqlite.gets} GETs`, target(sqlite.getP99 < 20, 'target < 20 ms')) });
  if (!existsSync(etcdBinary)) {
    rows.push({ figure: 'S3-S5. etcd figures', value: 'n/a', baseline: '-', verdict: `no etcd binary at ${etcdBinary}` });
    return rows;
  }
  const etcd = await startEtcd();
  try {
    const e = await onBackend(['--storage', etcd.storage], warmupMs, measureMs);
    log(`   etcd: ${e.creates.count} creates, ${e.creates.errors} errors${e.creates.firstError ? ` (first: ${e.creates.firstError})` : ''}; ${e.gets} GETs, p50 ${ms(e.getP50)}, p99 ${ms(e.getP99)}`);
    const r = e.creates.perSec / sqlite.creates.perSec;
    rows.push({ figure: `S3. pod creates/s, ${clients} clients, API only, etcd 3.4`, value: rate(e.creates.perSec), baseline: rate(sqlite.creates.perSec), verdict: join(`${r.toFixed(2)}x SQLite`, target(r >= 0.5, 'target >= 0.5x SQLite')) });
    rows.push({ figure: 'S4. GET one pod during those creates, p99, etcd', value: ms(e.getP99), baseline: ms(sqlite.getP99), verdict: join(ratio(e.getP99, sqlite.getP99), `p50 ${ms(e.getP50)}`, target(e.getP99 < 20, 'target < 20 ms')) });
    const writes = quick ? 50 : 200;
    log(`   two processes on one etcd: ${writes} creates through one at 50/s, each timed to its event on a watch through the other`);
    const x = await crossProcessWatch(etcd, writes, 50);
    rows.push({ figure: 'S5. write through one process to its watch event on another (one etcd), p99', value: ms(x.p99), baseline: '-', verdict: join(`p50 ${ms(x.p50)}`, `${x.seen}/${writes} seen`, target(x.seen === writes && x.p99 < 100, 'target < 100 ms')) });
  } finally {
    await etcd.stop();
  }
  return rows;
}
