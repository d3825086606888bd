// The measurements, one function per figure; each spawns its own server processes and stops them.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'undici';
import { cpuSecondsOf, spawnServer, rssOf, type ServerKind } from './proc.js';
import { closedLoopCreates, createMany, median, percentile, podsPath, pool, sequentialGets, timedList, type Throughput } from './load.js';
import { watchLatency, type WatchResult } from './watch.js';

export const concurrency = 16;

// The API figures run Bonsai with no simulated nodes: they measure the API server, not the cluster.
export async function withServer<T>(kind: ServerKind, data: ':memory:' | 'dir', fn: (url: string, pid: number) => Promise<T>, args: string[] = []): Promise<T> {
  const proc = spawnServer(kind, data, ['--nodes', '0', ...args]);
  try {
    return await fn(await proc.ready, proc.pid);
  } finally {
    await proc.stop();
  }
}

// 1. Start-up to first served request -----------------------------------------------------------

/** ms from spawn() to the first 200 from GET /healthz (polled as soon as the URL line appears). */
export async function startupOnce(kind: ServerKind, data: ':memory:' | 'dir'): Promise<number> {
  const proc = spawnServer(kind, data);
  let client: Client | undefined;
  try {
    const url = await proc.ready;
    client = new Client(url);
    for (;;) {
      try {
        const res = await client.request({ method: 'GET', path: '/healthz' });
        await res.body.dump();
        if (res.statusCode === 200) return performance.now() - proc.spawnedAt;
      } catch { /* not accepting yet */ }
      if (performance.now() - proc.spawnedAt > 20_000) throw new Error(`${kind}: /healthz never answered 200`);
      await sleep(1);
    }
  } finally {
    await client?.close().catch(() => {});
    await proc.stop();
  }
}

export interface Startup { memory: number[]; dir: number[]; baseline: number[] }

/** One unmeasured warm-up spawn of each kind (file cache), then `runs` interleaved measured rounds. */
export async function startup(runs: number): Promise<Startup> {
  const out: Startup = { memory: [], dir: [], baseline: [] };
  await startupOnce('bonsai', ':memory:');
  await startupOnce('bonsai', 'dir');
  await startupOnce('baseline', 'dir');
  for (let i = 0; i < runs; i++) {
    out.memory.push(await startupOnce('bonsai', ':memory:'));
    out.dir.push(await startupOnce('bonsai', 'dir'));
    out.baseline.push(await startupOnce('baseline', 'dir'));
  }
  return out;
}

// 2 + 3. Create throughput, then GET-one latency on the same server ------------------------------

export interface WriteRead { creates: Throughput; serverCpu: number; clientCpu: number; get: { p50: number; p99: number; n: number } }

export async function writeRead(kind: ServerKind, warmupMs: number, measureMs: number, gets: number): Promise<WriteRead> {
  return withServer(kind, 'dir', async (url, pid) => {
    const p = pool(url, concurrency);
    try {
      const wall0 = performance.now();
      const server0 = cpuSecondsOf(pid);
      const client0 = process.cpuUsage();
      const creates = await closedLoopCreates(p, 'tp', concurrency, warmupMs, measureMs);
      const wall = (performance.now() - wall0) / 1000;
      const serverCpu = (cpuSecondsOf(pid) - server0) / wall;
      const c = process.cpuUsage(client0);
      const clientCpu = (c.user + c.system) / 1e6 / wall;
      if (creates.count === 0) throw new Error(`${kind}: no pod was created: ${creates.firstError}`);
      const lat = await sequentialGets(p, `${podsPath}/tp-0`, gets, 200);
      return { creates, serverCpu, clientCpu, get: { p50: percentile(lat, 50), p99: percentile(lat, 99), n: lat.length } };
    } finally {
      await p.close();
    }
  });
}

/** Creates/s alone, measured as figure 2 measures them (figure 2's bound runs on the `bound` server). */
export async function createRate(kind: ServerKind, warmupMs: number, measureMs: number): Promise<Throughput> {
  return withServer(kind, 'dir', async (url) => {
    const p = pool(url, concurrency);
    try {
      const creates = await closedLoopCreates(p, 'tp', concurrency, warmupMs, measureMs);
      if (creates.count === 0) throw new Error(`${kind}: no pod was created: ${creates.firstError}`);
      return creates;
    } finally {
      await p.close();
    }
  });
}

// 4. List of N pods -------------------------------------------------------------------------------

export interface ListFigure { createMs: number; items: number; bytes: number; median: number; p99: number; runs: number }

export async function listFigure(kind: ServerKind, n: number, runs: number): Promise<ListFigure> {
  return withServer(kind, 'dir', async (url) => {
    const p = pool(url, concurrency);
    try {
      const { ms: createMs } = await createMany(p, 'list', n, concurrency);
      const warm = await timedList(p, podsPath); // unmeasured warm-up; also checks the count
      if (warm.items < n) throw new Error(`${kind}: list returned ${warm.items} items, expected >= ${n}`);
      const times: number[] = [];
      for (let i = 0; i < runs; i++) times.push((await timedList(p, podsPath)).ms);
      return { createMs, items: warm.items, bytes: warm.bytes, median: median(times), p99: percentile(times, 99), runs };
    } finally {
      await p.close();
    }
  });
}

// 5. Watch delivery latency -----------------------------------------------------------------------

export async function watchFigure(watchers: number, writes: number, ratePerSec: number, client: 'undici' | 'raw' = 'undici'): Promise<WatchResult> {
  return withServer('bonsai', 'dir', (url) => watchLatency(url, watchers, writes, ratePerSec, client));
}

// 6. Memory with N pods stored --------------------------------------------------------------------

export interface MemoryFigure { n: number; idleMB: number; rssMB: number; hwmMB: number; createMs: number }

export async function memoryFigure(kind: ServerKind, n: number): Promise<MemoryFigure> {
  return withServer(kind, 'dir', async (url, pid) => {
    await sleep(500);
    const idleMB = rssOf(pid).rssMB;
    const p = pool(url, concurrency);
    try {
      const { ms: createMs } = await createMany(p, 'mem', n, concurrency);
      await sleep(2000); // let controllers and GC settle before sampling
      const { rssMB, hwmMB } = rssOf(pid);
      return { n, idleMB, rssMB, hwmMB, createMs };
    } finally {
      await p.close();
    }
  });
}
