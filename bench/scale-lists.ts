// Scale figure 2: lists of every pod at the envelope's size, as JSON and as the Table kubectl asks for, limit=500
// paging through all of them, and 10 full lists at once with the server's RSS sampled meanwhile. Bodies are
// counted as they stream in, never held whole in the bench process.
import { performance } from 'node:perf_hooks';
import type { Pool } from 'undici';
import { countItems, streamedGet, type ProbedServer } from './scale-proc.js';

/** What kubectl 1.35 sends for `kubectl get pods`. */
export const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const allPods = '/api/v1/pods';

export interface Lists {
  items: number;
  json: { ms: number[]; bytes: number; majorGcMs: number[] };
  table: { ms: number; bytes: number; majorGcMs: number };
  paged: { ms: number; pages: number; items: number; majorGcMs: number };
  concurrent: { n: number; maxMs: number; ok: number; statuses: string; rssPeakMB: number; rssBeforeMB: number };
  errors: string[];
}

/** The first and last few KiB of a body, the rest counted and dropped (a page is never decoded whole). */
async function headAndTail(body: AsyncIterable<Buffer>, keep = 8192): Promise<{ head: string; tail: string; bytes: number }> {
  const head: Buffer[] = [];
  let headLen = 0;
  let tail: Buffer = Buffer.alloc(0);
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    if (headLen < keep) {
      head.push(chunk);
      headLen += chunk.length;
    }
    tail = chunk.length >= keep ? chunk.subarray(chunk.length - keep) : Buffer.concat([tail, chunk]).subarray(-keep);
  }
  return { head: Buffer.concat(head).toString('utf8'), tail: tail.toString('utf8'), bytes };
}

/**
 * limit=500 pages through every pod. Only the list's metadata is read from each page: before `"items"` (where
 * upstream writes it) or, failing that, after the items' closing bracket; the items are counted from the first
 * page's remainingItemCount.
 */
async function pageThrough(p: Pool, limit: number): Promise<{ ms: number; pages: number; items: number }> {
  const t0 = performance.now();
  let cont = '';
  let pages = 0;
  let total = NaN;
  for (;;) {
    const res = await p.request({ method: 'GET', path: `${allPods}?limit=${limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`, headers: { accept: 'application/json', 'accept-encoding': 'identity' } });
    const { head, tail } = await headAndTail(res.body as AsyncIterable<Buffer>);
    if (res.statusCode !== 200) throw new Error(`page ${pages + 1}: ${res.statusCode} ${head.slice(0, 200)}`);
    pages++;
    const items = head.indexOf('"items"');
    const meta = items >= 0 ? head.slice(0, items) : tail.slice(tail.lastIndexOf(']'));
    const next = /"continue":"([^"]*)"/.exec(meta)?.[1];
    const remaining = /"remainingItemCount":(\d+)/.exec(meta)?.[1];
    if (pages === 1) total = next ? limit + Number(remaining ?? NaN) : NaN;
    if (!next) break;
    if (pages > 100_000) throw new Error('paging did not end');
    cont = next;
  }
  return { ms: performance.now() - t0, pages, items: total };
}

export async function listFigures(s: ProbedServer, expected: number, log: (m: string) => void): Promise<Lists> {
  const p = s.pool;
  const errors: string[] = [];
  const out: Lists = {
    items: NaN, json: { ms: [], bytes: NaN, majorGcMs: [] }, table: { ms: NaN, bytes: NaN, majorGcMs: NaN }, paged: { ms: NaN, pages: 0, items: NaN, majorGcMs: NaN },
    concurrent: { n: 10, maxMs: NaN, ok: 0, statuses: '', rssPeakMB: NaN, rssBeforeMB: NaN }, errors,
  };
  const step = async (what: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (e) {
      errors.push(`${what}: ${e instanceof Error ? e.message : String(e)}`);
      log(`   ${what} FAILED: ${errors[errors.length - 1]}`);
    }
  };
  // The server's major GC pauses during a timed step (the probe's total before it, and after its next sample).
  const gcMs = () => s.heap()?.majorGcMs ?? NaN;
  const gcSince = async (before: number) => {
    await new Promise((r) => setTimeout(r, 300));
    return gcMs() - before;
  };
  const gcNote = (ms: number) => (ms >= 1 ? `, of which ${(ms / 1000).toFixed(2)} s major GC` : '');
  await step('count', async () => { out.items = await countItems(p, allPods); });
  if (out.items < expected) errors.push(`the list has ${out.items} pods, expected ${expected}`);
  await step('full JSON list', async () => {
    for (let i = 0; i < 2; i++) {
      const gc0 = gcMs();
      const r = await streamedGet(p, allPods);
      if (r.status !== 200) throw new Error(`status ${r.status}`);
      if (!/\]\s*\}\s*$/.test(r.tail)) throw new Error(`the body does not end a list: ...${r.tail}`);
      out.json.ms.push(r.ms);
      out.json.bytes = r.bytes;
      out.json.majorGcMs.push(await gcSince(gc0));
      log(`   full JSON list: ${(r.ms / 1000).toFixed(2)} s${gcNote(out.json.majorGcMs[i]!)}, ${(r.bytes / 2 ** 20).toFixed(0)} MiB`);
    }
  });
  await step('full Table list', async () => {
    const gc0 = gcMs();
    const r = await streamedGet(p, allPods, tableAccept);
    if (r.status !== 200) throw new Error(`status ${r.status}`);
    out.table = { ms: r.ms, bytes: r.bytes, majorGcMs: await gcSince(gc0) };
    log(`   full Table list: ${(r.ms / 1000).toFixed(2)} s${gcNote(out.table.majorGcMs)}, ${(r.bytes / 2 ** 20).toFixed(0)} MiB`);
  });
  await step('limit=500 paging', async () => {
    const gc0 = gcMs();
    const r = await pageThrough(p, 500);
    out.paged = { ...r, majorGcMs: await gcSince(gc0) };
    log(`   limit=500 paging: ${(out.paged.ms / 1000).toFixed(2)} s${gcNote(out.paged.majorGcMs)}, ${out.paged.pages} pages, ${out.paged.items} items`);
  });
  await step('10 concurrent full lists', async () => {
    out.concurrent.rssBeforeMB = s.rssMB();
    const peak = s.rssPeakDuring();
    const rs = await Promise.allSettled(Array.from({ length: out.concurrent.n }, () => streamedGet(p, allPods)));
    out.concurrent.rssPeakMB = peak();
    const codes = new Map<string, number>();
    let max = 0;
    for (const r of rs) {
      const k = r.status === 'fulfilled' ? String(r.value.status) : `error (${String(r.reason).slice(0, 60)})`;
      codes.set(k, (codes.get(k) ?? 0) + 1);
      if (r.status === 'fulfilled' && r.value.status === 200) {
        out.concurrent.ok++;
        max = Math.max(max, r.value.ms);
      }
    }
    out.concurrent.maxMs = max;
    out.concurrent.statuses = [...codes].map(([k, n]) => `${n}x ${k}`).join(', ');
    log(`   ${out.concurrent.n} concurrent full lists: ${out.concurrent.statuses}; slowest ${(max / 1000).toFixed(1)} s; RSS ${out.concurrent.rssBeforeMB.toFixed(0)} -> peak ${out.concurrent.rssPeakMB.toFixed(0)} MB`);
  });
  return out;
}
