// Scale figure 3: restart. The file-mode envelope's server is stopped (SIGTERM, a clean close), its SQLite files
// are measured, and a new server is spawned on the same data dir and cluster file. Timed from spawn: the first
// answered API request (GET of one stored pod, 200), and steady: the first full list of pods answered with every
// pod, no pod reported other than Running, and the server's CPU back to the idle level of its nodes.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { countItems, dbFiles, getJson, settle, startProbed, streamedGet, until } from './scale-proc.js';

export interface Restart {
  pods: number;
  files: { db: number; wal: number; shm: number };
  firstAnswerMs: number;
  listMs: number;
  steadyMs: number;
  /** False when the CPU did not fall back to the idle level within a minute (steadyMs is then when it gave up). */
  steady: boolean;
  rssSteadyMB: number;
  heapLiveMB: number;
}

export async function restartFigure(dataDir: string, cluster: string, pods: number, idleCpu: number, log: (m: string) => void): Promise<Restart> {
  const files = dbFiles(dataDir);
  log(`   stopped; bonsai.db ${(files.db / 2 ** 20).toFixed(1)} MiB, -wal ${(files.wal / 2 ** 20).toFixed(1)} MiB, -shm ${(files.shm / 2 ** 20).toFixed(1)} MiB`);
  const s = await startProbed('dir', ['--cluster', cluster], 4, dataDir);
  try {
    const t0 = s.proc.spawnedAt;
    const firstAnswerMs = await until(t0, 120_000, 5, 'the first answered request', async () => {
      try {
        const r = await s.pool.request({ method: 'GET', path: '/api/v1/namespaces/default/pods/scale-0', headers: { accept: 'application/json' } });
        await r.body.dump();
        return r.statusCode === 200;
      } catch {
        return false;
      }
    });
    log(`   restart: first answer (GET one pod) ${(firstAnswerMs / 1000).toFixed(2)} s after spawn`);
    const l = await streamedGet(s.pool, '/api/v1/pods');
    const listMs = performance.now() - t0;
    const items = await countItems(s.pool, '/api/v1/pods');
    if (l.status !== 200 || items < pods) throw new Error(`after restart the list answered ${l.status} with ${items}/${pods} pods`);
    await until(t0, 300_000, 100, 'every pod Running after the restart', async () => {
      const r = await getJson<{ items: unknown[] }>(s.pool, '/api/v1/pods?fieldSelector=status.phase%21%3DRunning&limit=1');
      return r.status === 200 && r.body.items.length === 0;
    });
    const threshold = Math.max(0.15, idleCpu * 1.5 + 0.05);
    const st = await settle(s, threshold, 60_000);
    const steady = st.share <= threshold;
    // The settle window that ended below the threshold was idle already: count steady from its start.
    const steadyMs = performance.now() - t0 - 1000;
    log(`   restart: first full list done ${(listMs / 1000).toFixed(2)} s after spawn; steady ${(steadyMs / 1000).toFixed(2)} s (CPU ${st.share.toFixed(2)})`);
    await sleep(200);
    const rssSteadyMB = s.rssMB();
    const heapLiveMB = ((await s.liveHeap())?.heapUsed ?? NaN) / 2 ** 20;
    return { pods, files, firstAnswerMs, listMs, steadyMs, steady, rssSteadyMB, heapLiveMB };
  } finally {
    await s.stop();
  }
}
