// Load generation with undici: pod bodies, closed-loop create throughput, bulk creation, latency samples.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export const podsPath = '/api/v1/namespaces/default/pods';

/**
 * A small valid pod. The API figures name a scheduler nobody runs, so they measure the API server alone
 * (with the default scheduler the pod would be bound, run and reported on by the simulated cluster).
 */
export function podBody(name: string, schedulerName = 'bench-unscheduled'): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'bench' } },
    spec: { schedulerName, containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
  });
}

export function pool(url: string, connections: number): Pool {
  return new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
}

const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json' };

export class LoadError extends Error {}

/** POST one pod; resolves with status and (on success) the response body text. */
export async function createPod(p: Pool, name: string): Promise<{ status: number; body: string }> {
  const res = await p.request({ method: 'POST', path: podsPath, headers: jsonHeaders, body: podBody(name) });
  return { status: res.statusCode, body: await res.body.text() };
}

export interface Throughput { perSec: number; count: number; errors: number; firstError?: string; seconds: number }

/**
 * `concurrency` clients each POST unique pods back to back. Requests finishing during the warm-up are
 * not counted; the figure is completions in the measured window divided by its length.
 */
export async function closedLoopCreates(p: Pool, prefix: string, concurrency: number, warmupMs: number, measureMs: number, body: (name: string, i: number) => string = (name) => podBody(name), path = podsPath): Promise<Throughput> {
  let seq = 0;
  let count = 0;
  let errors = 0;
  let firstError: string | undefined;
  const t0 = performance.now();
  const tStart = t0 + warmupMs;
  const tEnd = tStart + measureMs;
  const worker = async () => {
    for (;;) {
      const now = performance.now();
      if (now >= tEnd) return;
      const i = seq++;
      const res = await p.request({ method: 'POST', path, headers: jsonHeaders, body: body(`${prefix}-${i}`, i) });
      const ok = res.statusCode === 201;
      if (ok) await res.body.dump();
      else {
        const text = await res.body.text();
        errors++;
        firstError ??= `${res.statusCode} ${text.slice(0, 300)}`;
      }
      const done = performance.now();
      if (ok && done >= tStart && done < tEnd) count++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = measureMs / 1000;
  return { perSec: count / seconds, count, errors, firstError, seconds };
}

/** Creates n pods named `${prefix}-${i}` with `concurrency` clients; throws on the first failure. */
export async function createMany(p: Pool, prefix: string, n: number, concurrency: number, body: (name: string, i: number) => string = (name) => podBody(name)): Promise<{ ms: number }> {
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const res = await p.request({ method: 'POST', path: podsPath, headers: jsonHeaders, body: body(`${prefix}-${i}`, i) });
      if (res.statusCode !== 201) throw new LoadError(`create ${prefix}-${i}: ${res.statusCode} ${(await res.body.text()).slice(0, 300)}`);
      await res.body.dump();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ms: performance.now() - t0 };
}

/** Sequential GETs of one path; returns each request's latency in ms (full body received). */
export async function sequentialGets(p: Pool, path: string, n: number, warmup: number): Promise<number[]> {
  const lat: number[] = [];
  for (let i = 0; i < warmup + n; i++) {
    const t = performance.now();
    const res = await p.request({ method: 'GET', path, headers: { accept: 'application/json' } });
    await res.body.arrayBuffer();
    const ms = performance.now() - t;
    if (res.statusCode !== 200) throw new LoadError(`GET ${path}: ${res.statusCode}`);
    if (i >= warmup) lat.push(ms);
  }
  return lat;
}

/** GET a list; returns its latency (full body received) and the number of items (parsed outside the timing). */
export async function timedList(p: Pool, path: string): Promise<{ ms: number; items: number; bytes: number }> {
  const t = performance.now();
  const res = await p.request({ method: 'GET', path, headers: { accept: 'application/json' } });
  const buf = await res.body.arrayBuffer();
  const ms = performance.now() - t;
  if (res.statusCode !== 200) throw new LoadError(`GET ${path}: ${res.statusCode}`);
  const list = JSON.parse(Buffer.from(buf).toString('utf8')) as { items?: unknown[] };
  return { ms, items: list.items?.length ?? -1, bytes: buf.byteLength };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const idx = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[idx];
}

export const median = (values: number[]) => percentile(values, 50);
