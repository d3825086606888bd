// Watch fan-out figures: pod create throughput with many watchers open, and the memory that watchers which never
// read hold while a burst of writes goes on (the server cuts them off once they fall 100 events behind).
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import type { Pool } from 'undici';
import { withServer, concurrency } from './figures.js';
import { closedLoopCreates, createMany, podsPath, pool, type Throughput } from './load.js';
import { rssOf } from './proc.js';
import { neverReadingWatch, readingWatch, type RawWatch } from './raw-watch.js';

async function currentRv(p: Pool): Promise<string> {
  const res = await p.request({ method: 'GET', path: `${podsPath}?limit=1`, headers: { accept: 'application/json' } });
  return ((await res.body.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
}

async function podCount(p: Pool): Promise<number> {
  const res = await p.request({ method: 'GET', path: `${podsPath}?limit=1`, headers: { accept: 'application/json' } });
  const list = (await res.body.json()) as { items: unknown[]; metadata: { remainingItemCount?: number } };
  return list.items.length + (list.metadata.remainingItemCount ?? 0);
}

/** Opens `n` watches (path per index), 100 at a time so that the server's accept backlog never overflows. */
async function openMany(n: number, open: (i: number) => Promise<RawWatch>): Promise<RawWatch[]> {
  const out: RawWatch[] = [];
  for (let i = 0; i < n; i += 100) out.push(...await Promise.all(Array.from({ length: Math.min(100, n - i) }, (_, j) => open(i + j))));
  return out;
}

/** A pod bound to one of `nodes` (nonexistent) nodes, so that one kubelet-style watcher selects it. */
function boundPod(name: string, i: number, nodes: number): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'bench' } },
    spec: { nodeName: `bench-node-${i % nodes}`, containers: [{ name: 'app', image: 'nginx:1.27' }] },
  });
}

export interface FanoutCreates extends Throughput {
  watchers: number;
  /** Events the watchers received, of those the creates owed them. */
  delivered: number;
  expected: number;
  /** Watchers the server had not cut off by the end. */
  open: number;
  /** Bytes the watchers received per second of the measured window (all creates' events included). */
  watchBytesPerSec: number;
}

/**
 * Closed-loop pod creates (as figure 2) while `watchers` watches read every event they are sent. `perNode`: each
 * watcher selects `spec.nodeName=bench-node-i` as a kubelet does and each pod is bound to one of those nodes;
 * otherwise every watcher watches all pods of the namespace and is owed every create.
 */
export async function fanoutCreates(watchers: number, warmupMs: number, measureMs: number, perNode = false): Promise<FanoutCreates> {
  return withServer('bonsai', 'dir', async (url) => {
    const p = pool(url, concurrency);
    try {
      const rv = await currentRv(p);
      let delivered = 0;
      const path = (i: number) => `${podsPath}?watch=true&resourceVersion=${rv}${perNode ? `&fieldSelector=spec.nodeName%3Dbench-node-${i}` : ''}`;
      const ws = await openMany(watchers, (i) => readingWatch(url, path(i), () => { delivered++; }));
      const body = perNode ? (name: string, i: number) => boundPod(name, i, watchers) : undefined;
      const creates = await closedLoopCreates(p, 'fan', concurrency, warmupMs, measureMs, body);
      const made = await podCount(p);
      const expected = perNode ? made : made * watchers;
      const deadline = performance.now() + 15_000;
      while (delivered < expected && ws.some((w) => !w.closed) && performance.now() < deadline) await sleep(50);
      const open = ws.filter((w) => !w.closed).length;
      const bytes = ws.reduce((n, w) => n + w.bytes, 0);
      for (const w of ws) w.socket.destroy();
      return { ...creates, watchers, delivered, expected, open, watchBytesPerSec: bytes / ((warmupMs + measureMs) / 1000) };
    } finally {
      await p.close();
    }
  });
}

export interface SlowRun { growthMB: number; peakMB: number; perSec: number; cutOff: number }
export interface SlowWatchers { watchers: number; writes: number; with: SlowRun; without: SlowRun; addedMB: number }

/** One server: RSS growth over a burst of `writes` creates with `watchers` watches that never read. */
async function slowRun(watchers: number, writes: number): Promise<SlowRun> {
  return withServer('bonsai', 'dir', async (url, pid) => {
    const p = pool(url, concurrency);
    try {
      await createMany(p, 'warm', 200, concurrency);
      await sleep(1000);
      const before = rssOf(pid).rssMB;
      const rv = await currentRv(p);
      const ws = await openMany(watchers, () => neverReadingWatch(url, `${podsPath}?watch=true&resourceVersion=${rv}`));
      const t0 = performance.now();
      await createMany(p, 'burst', writes, concurrency);
      const perSec = writes / ((performance.now() - t0) / 1000);
      await sleep(2000); // let GC settle before sampling
      const after = rssOf(pid);
      // A watcher the server cut off has its socket reset: reading again, the client sees it closed.
      for (const w of ws) w.socket.resume();
      const deadline = performance.now() + 5000;
      while (ws.some((w) => !w.closed) && performance.now() < deadline) await sleep(50);
      const cutOff = ws.filter((w) => w.closed).length;
      for (const w of ws) w.socket.destroy();
      return { growthMB: after.rssMB - before, peakMB: after.hwmMB, perSec, cutOff };
    } finally {
      await p.close();
    }
  });
}

/** The same burst on two fresh servers, with and without the never-reading watchers; the difference is theirs. */
export async function slowWatchersFigure(watchers: number, writes: number): Promise<SlowWatchers> {
  const withW = await slowRun(watchers, writes);
  const without = await slowRun(0, writes);
  return { watchers, writes, with: withW, without, addedMB: withW.growthMB - without.growthMB };
}
