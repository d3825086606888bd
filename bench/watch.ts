// Watch delivery latency: many concurrent watch streams, a paced stream of writes, per-delivery latency.
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { LoadError, podBody, podsPath, percentile } from './load.js';
import { readingWatch } from './raw-watch.js';

export interface WatchResult {
  watchers: number;
  writes: number;
  deliveries: number;
  expected: number;
  p50: number;
  p99: number;
  max: number;
  /** Same deliveries measured from the write's response instead of its request start. */
  p50FromResponse: number;
  p99FromResponse: number;
}

interface Arrival { rv: string; t: number }

/** Opens one watch stream; records the arrival time of every event's resourceVersion. */
async function openWatch(p: Pool, rv: string, signal: AbortSignal, arrivals: Arrival[], onEvent: () => void): Promise<() => Promise<void>> {
  const res = await p.request({ method: 'GET', path: `${podsPath}?watch=true&resourceVersion=${rv}`, headers: { accept: 'application/json' }, signal });
  if (res.statusCode !== 200) throw new LoadError(`watch: ${res.statusCode} ${await res.body.text()}`);
  res.body.setEncoding('utf8');
  let buf = '';
  const done = (async () => {
    try {
      for await (const chunk of res.body as AsyncIterable<string>) {
        const t = performance.now();
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (!line.trim()) continue;
          const ev = JSON.parse(line) as { type: string; object?: { metadata?: { resourceVersion?: string } } };
          if (ev.type === 'BOOKMARK' || ev.type === 'ERROR') continue;
          arrivals.push({ rv: ev.object?.metadata?.resourceVersion ?? '', t });
          onEvent();
        }
      }
    } catch (e) {
      if (!signal.aborted) throw e;
    }
  })();
  return () => done;
}

/** The same on a raw socket (bench/raw-watch.ts): no JSON parse per event, so many watchers cost the load generator less. */
async function openRawWatch(url: string, rv: string, signal: AbortSignal, arrivals: Arrival[], onEvent: () => void): Promise<() => Promise<void>> {
  const w = await readingWatch(url, `${podsPath}?watch=true&resourceVersion=${rv}`, (eventRv, t) => {
    arrivals.push({ rv: String(eventRv), t });
    onEvent();
  });
  signal.addEventListener('abort', () => w.socket.destroy(), { once: true });
  return async () => {};
}

/**
 * Opens `watchers` watch streams at the current resourceVersion, then performs `writes` writes at
 * `ratePerSec` (alternating: create pod k, then merge-patch pod k's labels), and waits for every
 * watcher to see every write (or a timeout). Latency = arrival at a watcher - the write's request start.
 * `client`: undici streams parsed with JSON.parse, or raw sockets (for many watchers).
 */
export async function watchLatency(url: string, watchers: number, writes: number, ratePerSec: number, client: 'undici' | 'raw' = 'undici'): Promise<WatchResult> {
  const watchPool = new Pool(url, { connections: watchers, pipelining: 1 });
  const writePool = new Pool(url, { connections: 1, pipelining: 1 });
  const ac = new AbortController();
  setMaxListeners(watchers + 10, ac.signal); // one listener per watch request
  try {
    const listRes = await writePool.request({ method: 'GET', path: `${podsPath}?limit=1`, headers: { accept: 'application/json' } });
    const list = (await listRes.body.json()) as { metadata: { resourceVersion: string } };
    const rv = list.metadata.resourceVersion;

    const arrivals: Arrival[][] = Array.from({ length: watchers }, () => []);
    let seen = 0;
    let wake: (() => void) | undefined;
    const onEvent = () => { seen++; wake?.(); };
    const waits: Array<() => Promise<void>> = [];
    for (let i = 0; i < watchers; i += 100) {
      // In groups, so that the server's accept backlog never overflows.
      const group = arrivals.slice(i, i + 100);
      waits.push(...await Promise.all(group.map((a) => client === 'raw' ? openRawWatch(url, rv, ac.signal, a, onEvent) : openWatch(watchPool, rv, ac.signal, a, onEvent))));
    }

    const starts = new Map<string, number>();
    const ends = new Map<string, number>();
    const gap = 1000 / ratePerSec;
    const tBegin = performance.now();
    for (let i = 0; i < writes; i++) {
      const due = tBegin + i * gap;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const name = `watch-${Math.floor(i / 2)}`;
      const t = performance.now();
      const res = i % 2 === 0
        ? await writePool.request({ method: 'POST', path: podsPath, headers: { 'content-type': 'application/json' }, body: podBody(name) })
        : await writePool.request({
          method: 'PATCH', path: `${podsPath}/${name}`, headers: { 'content-type': 'application/merge-patch+json' },
          body: JSON.stringify({ metadata: { labels: { round: String(i) } } }),
        });
      const text = await res.body.text();
      const tEnd = performance.now();
      if (res.statusCode >= 300) throw new LoadError(`watch write ${i}: ${res.statusCode} ${text.slice(0, 300)}`);
      const wrote = JSON.parse(text) as { metadata: { resourceVersion: string } };
      starts.set(wrote.metadata.resourceVersion, t);
      ends.set(wrote.metadata.resourceVersion, tEnd);
    }

    // Wait until every watcher saw every write, or 10 s passed.
    const expected = writes * watchers;
    const deadline = performance.now() + 10_000;
    const count = () => arrivals.reduce((n, a) => n + a.filter((x) => starts.has(x.rv)).length, 0);
    while (seen < expected || count() < expected) {
      const left = deadline - performance.now();
      if (left <= 0) break;
      await Promise.race([new Promise<void>((r) => { wake = r; }), sleep(Math.min(left, 200))]);
    }

    const lat: number[] = [];
    const latResp: number[] = [];
    for (const list of arrivals) {
      for (const a of list) {
        const s = starts.get(a.rv);
        if (s === undefined) continue; // an event not caused by our writes (e.g. a controller)
        lat.push(a.t - s);
        latResp.push(a.t - ends.get(a.rv)!);
      }
    }
    ac.abort();
    await Promise.allSettled(waits.map((w) => w()));
    return {
      watchers, writes, deliveries: lat.length, expected,
      p50: percentile(lat, 50), p99: percentile(lat, 99), max: percentile(lat, 100),
      p50FromResponse: percentile(latResp, 50), p99FromResponse: percentile(latResp, 99),
    };
  } finally {
    ac.abort();
    await watchPool.destroy().catch(() => {});
    await writePool.close().catch(() => {});
  }
}
