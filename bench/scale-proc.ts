// Servers for the scale bench: a spawned `bonsai serve` with the heap probe preloaded (bench/scale-probe.ts),
// its RSS and CPU sampled from /proc, a cluster file of N identical nodes, and small HTTP helpers that never
// hold a whole large list in the bench process.
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'undici';
import { pool } from './load.js';
import { cpuSecondsOf, freshDir, rssOf, spawnServer, type ServerProc } from './proc.js';
import type { ProbeSample } from './scale-probe.js';

const probeUrl = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'scale-probe.js')).href;
const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json' };
export const MiB = 2 ** 20;

/** A cluster file with one pool of `nodes` identical nodes (the shape bench/cluster.ts uses). */
export function clusterFile(nodes: number): string {
  const file = join(freshDir('scale-cluster'), 'cluster.yaml');
  writeFileSync(file, ['nodePools:', '  - name: scale', `    count: ${nodes}`, '    cpu: 32', '    memory: 128Gi', '    pods: 110', '    zones: [zone-a, zone-b, zone-c]', ''].join('\n'));
  return file;
}

export interface ProbedServer {
  proc: ServerProc;
  url: string;
  pool: Pool;
  dataDir: string;
  /** The probe's last periodic sample. */
  heap(): ProbeSample | undefined;
  /** Forces a full GC in the server and returns the sample taken right after it (the live heap). */
  liveHeap(timeoutMs?: number): Promise<ProbeSample | undefined>;
  rssMB(): number;
  /** Lifetime peak RSS (VmHWM). */
  hwmMB(): number;
  /** Samples VmRSS every 100 ms until the returned function is called; it returns the highest sample. */
  rssPeakDuring(): () => number;
  /** Share of one core the server used over the next `ms`. */
  cpuShare(ms: number): Promise<number>;
  stop(): Promise<void>;
}

/** Spawns Bonsai with the heap probe; resolves once it prints its URL. */
export async function startProbed(data: ':memory:' | 'dir', args: string[], connections: number, dataDir?: string): Promise<ProbedServer> {
  const probeFile = join(freshDir('probe'), 'heap.json');
  const proc = spawnServer('bonsai', data, args, { nodeArgs: ['--expose-gc', '--import', probeUrl], env: { BONSAI_BENCH_PROBE: probeFile }, dataDir });
  const url = await proc.ready;
  const p = pool(url, connections);
  const heap = (): ProbeSample | undefined => {
    try {
      return JSON.parse(readFileSync(probeFile, 'utf8')) as ProbeSample;
    } catch {
      return undefined;
    }
  };
  return {
    proc, url, pool: p, dataDir: proc.dataDir, heap,
    async liveHeap(timeoutMs = 30_000) {
      const before = heap()?.gcSeq ?? 0;
      proc.child.kill('SIGUSR2');
      const t0 = performance.now();
      while (performance.now() - t0 < timeoutMs) {
        const s = heap();
        if (s && s.gcSeq > before) return s;
        await sleep(20);
      }
      return undefined;
    },
    rssMB: () => rssOf(proc.pid).rssMB,
    hwmMB: () => rssOf(proc.pid).hwmMB,
    rssPeakDuring() {
      let peak = rssOf(proc.pid).rssMB;
      const t = setInterval(() => {
        try { peak = Math.max(peak, rssOf(proc.pid).rssMB); } catch { /* exited */ }
      }, 100);
      return () => {
        clearInterval(t);
        try { peak = Math.max(peak, rssOf(proc.pid).rssMB); } catch { /* exited */ }
        return peak;
      };
    },
    async cpuShare(ms) {
      const c0 = cpuSecondsOf(proc.pid);
      const t0 = performance.now();
      await sleep(ms);
      return (cpuSecondsOf(proc.pid) - c0) / ((performance.now() - t0) / 1000);
    },
    async stop() {
      await p.close().catch(() => {});
      await proc.stop();
    },
  };
}

/** Waits until the server's CPU over a 1 s window is at most `share` of a core; returns the ms waited (capped). */
export async function settle(s: ProbedServer, share: number, maxMs: number): Promise<{ ms: number; share: number }> {
  const t0 = performance.now();
  let last = Infinity;
  while (performance.now() - t0 < maxMs) {
    last = await s.cpuShare(1000);
    if (last <= share) break;
  }
  return { ms: performance.now() - t0, share: last };
}

export async function getJson<T>(p: Pool, path: string, accept = 'application/json'): Promise<{ status: number; body: T; headers: Record<string, string | string[] | undefined> }> {
  const res = await p.request({ method: 'GET', path, headers: { accept } });
  const text = await res.body.text();
  if (res.statusCode !== 200) return { status: res.statusCode, body: undefined as T, headers: res.headers };
  return { status: res.statusCode, body: JSON.parse(text) as T, headers: res.headers };
}

/** GETs `path` and counts the body's bytes without keeping it; ms to the last byte. */
export async function streamedGet(p: Pool, path: string, accept = 'application/json'): Promise<{ ms: number; status: number; bytes: number; tail: string }> {
  const t = performance.now();
  const res = await p.request({ method: 'GET', path, headers: { accept, 'accept-encoding': 'identity' } });
  let bytes = 0;
  let last: Buffer | undefined;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    last = chunk;
  }
  return { ms: performance.now() - t, status: res.statusCode, bytes, tail: last ? last.subarray(Math.max(0, last.length - 64)).toString('utf8') : '' };
}

/** Items of a list by a `limit=1` request: 1 + remainingItemCount (no selector), read without the whole list. */
export async function countItems(p: Pool, path: string): Promise<number> {
  const sep = path.includes('?') ? '&' : '?';
  const r = await getJson<{ items: unknown[]; metadata: { remainingItemCount?: number } }>(p, `${path}${sep}limit=1`);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status}`);
  return r.body.items.length + (r.body.metadata.remainingItemCount ?? 0);
}

/** Nodes whose Ready condition is True (one full list of nodes). */
export async function readyNodes(p: Pool): Promise<number> {
  const r = await getJson<{ items: Array<{ status?: { conditions?: Array<{ type: string; status: string }> } }> }>(p, '/api/v1/nodes');
  if (r.status !== 200) return 0;
  return r.body.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
}

/** Polls `done` every `everyMs` until it holds; ms since `t0`. */
export async function until(t0: number, timeoutMs: number, everyMs: number, what: string, done: () => Promise<boolean>): Promise<number> {
  for (;;) {
    if (await done()) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Bytes of the SQLite files (bonsai.db, -wal, -shm) in a data directory. */
export function dbFiles(dir: string): { db: number; wal: number; shm: number } {
  const size = (name: string) => (existsSync(join(dir, name)) ? statSync(join(dir, name)).size : 0);
  return { db: size('bonsai.db'), wal: size('bonsai.db-wal'), shm: size('bonsai.db-shm') };
}

export function listDir(dir: string): string {
  return readdirSync(dir).map((f) => `${f} ${(statSync(join(dir, f)).size / MiB).toFixed(1)} MiB`).join(', ');
}

export { jsonHeaders };
