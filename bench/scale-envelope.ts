// Scale figure 1: the envelope. N nodes (a cluster file), then M bare pods with small requests created over HTTP
// by C clients, timed to every pod Running; create rate at the start and at the end; RSS and V8 heap, peak and
// steady. "All Running" is polled with a `limit=1` list filtered by `status.phase!=Running`: the server stops at
// the first pod not Running, so the poll costs little until the very end (one scan of the pods a second).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'undici';
import { clusterFile, getJson, jsonHeaders, readyNodes, settle, startProbed, until, type ProbedServer } from './scale-proc.js';

const podsPath = '/api/v1/namespaces/default/pods';
const notRunning = '/api/v1/pods?fieldSelector=status.phase%21%3DRunning&limit=1';

export function scalePod(name: string): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, labels: { app: 'scale' } },
    spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
  });
}

export interface CreateRun {
  ms: number;
  /** Creates/s over the first and the last tenth of the pods. */
  rateStart: number;
  rateEnd: number;
  /** 429/5xx answers that were retried (after Retry-After, at most 1 s). */
  retried: number;
}

/** Creates `n` pods named `${prefix}-${i}` with `clients` closed-loop clients; `onDone` sees each completion count. */
export async function createPods(p: Pool, prefix: string, n: number, clients: number, onProgress?: (done: number) => void): Promise<CreateRun> {
  const doneAt = new Float64Array(n);
  let next = 0;
  let done = 0;
  let retried = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < n) {
      const i = next++;
      for (let attempt = 0; ; attempt++) {
        const res = await p.request({ method: 'POST', path: podsPath, headers: jsonHeaders, body: scalePod(`${prefix}-${i}`) });
        if (res.statusCode === 201) {
          await res.body.dump();
          break;
        }
        const text = await res.body.text();
        if ((res.statusCode === 429 || res.statusCode >= 500) && attempt < 20) {
          retried++;
          await sleep(Math.min(1000, 1000 * Number(res.headers['retry-after'] ?? 0.05)));
          continue;
        }
        throw new Error(`create ${prefix}-${i}: ${res.statusCode} ${text.slice(0, 300)}`);
      }
      doneAt[done++] = performance.now();
      if (onProgress && done % 10_000 === 0) onProgress(done);
    }
  };
  await Promise.all(Array.from({ length: clients }, worker));
  const tenth = Math.max(1, Math.floor(n / 10));
  return {
    ms: performance.now() - t0,
    rateStart: tenth / ((doneAt[tenth - 1] - t0) / 1000),
    rateEnd: tenth / ((doneAt[n - 1] - doneAt[n - 1 - tenth]) / 1000),
    retried,
  };
}

export interface Envelope {
  data: ':memory:' | 'dir';
  nodes: number;
  pods: number;
  clients: number;
  /** Spawn to every node Ready. */
  nodesReadyMs: number;
  /** CPU share (1.0 = a core) of the server with the nodes alone, idle. */
  idleCpu: number;
  /** With the nodes alone, settled: RSS and live heap (after a forced GC). */
  nodesRssMB: number;
  nodesHeapMB: number;
  create: CreateRun;
  /** First create to every pod Running. */
  runningMs: number;
  /** Highest RSS during creation and until settled. */
  rssPeakMB: number;
  /** After every pod Running and the CPU settled. */
  rssSteadyMB: number;
  settleMs: number;
  heapPeakMB: number;
  heapSteadyMB: number;
  /** Live heap after a forced GC, steady. */
  heapLiveMB: number;
  heapLimitMB: number;
}

const toMB = (b: number | undefined) => (b === undefined ? NaN : b / 2 ** 20);

/**
 * Runs the envelope; `then` gets the still-running server (for the list figures) and its result is returned
 * alongside. The server is stopped afterwards; its data dir (file mode) is left for a restart.
 */
export async function envelope<T>(opts: { data: ':memory:' | 'dir'; nodes: number; pods: number; clients: number; log: (m: string) => void }, then: (s: ProbedServer, e: Envelope, cluster: string) => Promise<T>): Promise<{ env: Envelope; then: T; dataDir: string; cluster: string }> {
  const { data, nodes, pods, clients, log } = opts;
  const cluster = clusterFile(nodes);
  const s = await startProbed(data, ['--cluster', cluster], clients + 2);
  try {
    const poll = s.pool;
    const nodesReadyMs = await until(s.proc.spawnedAt, 300_000, 250, `${nodes} nodes Ready`, async () => (await readyNodes(poll)) >= nodes);
    log(`   ${data}: ${nodes} nodes Ready ${(nodesReadyMs / 1000).toFixed(1)} s after spawn`);
    await sleep(2000);
    const idleCpu = await s.cpuShare(3000);
    const nodesRssMB = s.rssMB();
    const nodesHeapMB = toMB((await s.liveHeap())?.heapUsed);
    log(`   nodes idle: CPU ${idleCpu.toFixed(2)} of a core, RSS ${nodesRssMB.toFixed(0)} MB, live heap ${nodesHeapMB.toFixed(0)} MB`);

    const peak = s.rssPeakDuring();
    let heapPeak = 0;
    const heapTimer = setInterval(() => { heapPeak = Math.max(heapPeak, s.heap()?.heapUsed ?? 0); }, 250);
    const t0 = performance.now();
    let created = false;
    const creating = createPods(s.pool, 'scale', pods, clients, (n) => log(`   ${n.toLocaleString('en-US')} created at ${((performance.now() - t0) / 1000).toFixed(0)} s, RSS ${s.rssMB().toFixed(0)} MB, heap ${toMB(s.heap()?.heapUsed).toFixed(0)} MB`))
      .finally(() => { created = true; });
    creating.catch(() => {});
    const runningMs = await until(t0, 3_600_000, 1000, 'every pod Running', async () => {
      if (!created) return false;
      const r = await getJson<{ items: unknown[] }>(poll, notRunning);
      return r.status === 200 && r.body.items.length === 0;
    });
    const create = await creating;
    log(`   created in ${(create.ms / 1000).toFixed(1)} s (${create.rateStart.toFixed(0)}/s first tenth, ${create.rateEnd.toFixed(0)}/s last tenth, ${create.retried} retried); all Running after ${(runningMs / 1000).toFixed(1)} s`);
    const st = await settle(s, Math.max(0.15, idleCpu * 1.5 + 0.05), 30_000);
    clearInterval(heapTimer);
    const rssPeakMB = peak();
    const rssSteadyMB = s.rssMB();
    const steady = s.heap();
    const live = await s.liveHeap();
    const env: Envelope = {
      data, nodes, pods, clients, nodesReadyMs, idleCpu, nodesRssMB, nodesHeapMB, create, runningMs, rssPeakMB, rssSteadyMB,
      settleMs: st.ms, heapPeakMB: toMB(Math.max(heapPeak, steady?.peakHeapUsed ?? 0)), heapSteadyMB: toMB(steady?.heapUsed), heapLiveMB: toMB(live?.heapUsed), heapLimitMB: toMB(live?.heapLimit ?? steady?.heapLimit),
    };
    log(`   settled after ${(st.ms / 1000).toFixed(1)} s (CPU ${st.share.toFixed(2)}); RSS peak ${rssPeakMB.toFixed(0)} MB, steady ${rssSteadyMB.toFixed(0)} MB; heap peak ${env.heapPeakMB.toFixed(0)} MB, steady ${env.heapSteadyMB.toFixed(0)} MB, live ${env.heapLiveMB.toFixed(0)} MB of ${env.heapLimitMB.toFixed(0)} MB limit`);
    const out = await then(s, env, cluster);
    return { env, then: out, dataDir: s.dataDir, cluster };
  } finally {
    await s.stop();
  }
}
