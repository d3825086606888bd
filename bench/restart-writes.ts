// Ad-hoc restart measurement at reduced size (not part of `npm run bench`): N nodes and M pods in file mode, all
// Running, then SIGTERM and a restart on the same data dir; times the first answer, every pod Running and CPU back
// to idle, then stops the server and counts the writes the restart made from the change log (rows after the last
// revision before the restart), by resource and by the field manager whose managedFields time is the write's.
//   node dist/bench/restart-writes.js [nodes] [pods] [bin.js]   (bin.js: another build's dist/src/cli/bin.js)
// RESTART_PROF=<dir> writes a CPU profile of the restarted server there.
import { spawn } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { pool } from './load.js';
import { cleanup, cpuSecondsOf, freshDir, bonsaiBin } from './proc.js';
import { createPods } from './scale-envelope.js';
import { clusterFile, getJson, readyNodes, until } from './scale-proc.js';

const nodes = Number(process.argv[2] ?? 500);
const pods = Number(process.argv[3] ?? 10_000);
const bin = process.argv[4] ?? bonsaiBin;

interface Srv { pid: number; url: string; t0: number; stop(): Promise<void> }

async function serve(dataDir: string, cluster: string, nodeArgs: string[] = []): Promise<Srv> {
  const cwd = freshDir('cwd');
  const t0 = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, bin, 'serve', '--port', '0', '--data', dataDir, '--log-level', 'silent', '--kubeconfig', join(cwd, 'kc'), '--addons', '', '--cluster', cluster], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = await new Promise<string>((res, rej) => {
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      out += d;
      if (process.env.RESTART_NODE_ARGS) process.stderr.write(d);
      const m = /(http:\/\/[^\s)]+)/.exec(out);
      if (m) res(m[1].replace(/\/$/, ''));
    });
    child.once('exit', () => rej(new Error('server exited')));
  });
  return { pid: child.pid!, url, t0, async stop() { child.kill('SIGTERM'); await exited; } };
}

/** The server's CPU seconds when the last window began (so: spent until steady, the idle window excluded). */
let cpuBeforeLastWindow = 0;

async function cpuShare(pid: number, ms: number): Promise<number> {
  const c0 = cpuSecondsOf(pid);
  cpuBeforeLastWindow = c0;
  const t = performance.now();
  await sleep(ms);
  return (cpuSecondsOf(pid) - c0) / ((performance.now() - t) / 1000);
}

async function idle(pid: number, share: number, maxMs: number): Promise<number> {
  const t = performance.now();
  let last = Infinity;
  while (performance.now() - t < maxMs && last > share) last = await cpuShare(pid, 1000);
  return last;
}

const notRunning = '/api/v1/pods?fieldSelector=status.phase%21%3DRunning&limit=1';

async function main(): Promise<void> {
  const dataDir = freshDir('data');
  const cluster = clusterFile(nodes);
  // RESTART_DATA=<dir>: keep a copy of the settled first run there, and when it holds one already, restart from a
  // copy of it (no first run), so several builds restart the very same data.
  const keep = process.env.RESTART_DATA;
  let idleCpu = 0.1;
  if (keep && existsSync(join(keep, 'bonsai.db'))) {
    cpSync(keep, dataDir, { recursive: true });
  } else {
    idleCpu = await firstRun(dataDir, cluster);
    if (keep) cpSync(dataDir, keep, { recursive: true });
  }
  await restart(dataDir, cluster, idleCpu);
}

async function firstRun(dataDir: string, cluster: string): Promise<number> {
  const s = await serve(dataDir, cluster);
  const p = pool(s.url, 8);
  await until(performance.now(), 120_000, 100, 'nodes Ready', async () => (await readyNodes(p)) >= nodes);
  await createPods(p, 'scale', pods, 8);
  // RESTART_DEPLOYS=<n>: n Deployments of 10 replicas, each with a Service (controller and endpoints writes).
  const deploys = Number(process.env.RESTART_DEPLOYS ?? 0);
  for (let i = 0; i < deploys; i++) {
    const labels = { app: `d${i}` };
    const post = async (path: string, body: unknown) => {
      const r = await p.request({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await r.body.dump();
      if (r.statusCode !== 201) throw new Error(`POST ${path}: ${r.statusCode}`);
    };
    await post('/apis/apps/v1/namespaces/default/deployments', {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: `d${i}` },
      spec: { replicas: 10, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx', readinessProbe: { httpGet: { path: '/', port: 80 } } }] } } },
    });
    await post('/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: `d${i}` }, spec: { selector: labels, ports: [{ port: 80 }] } });
  }
  await until(performance.now(), 300_000, 200, 'pods Running', async () => (await getJson<{ items: unknown[] }>(p, notRunning)).body.items.length === 0);
  const idleCpu = await idle(s.pid, 0.3, 60_000);
  console.log(`first run settled (cpu ${idleCpu.toFixed(2)})`);
  await p.close();
  await s.stop();
  return idleCpu;
}

async function restart(dataDir: string, cluster: string, idleCpu: number): Promise<void> {
  const dbPath = join(dataDir, 'bonsai.db');
  const before = new BetterSqlite3(dbPath, { readonly: true });
  const preMax = (before.prepare('SELECT MAX(rv) AS m FROM changes').get() as { m: number }).m;
  before.close();
  const restartIso = new Date().toISOString();

  const prof = process.env.RESTART_PROF;
  // RESTART_NODE_ARGS: more node options for the restarted server (e.g. --trace-gc), separated by spaces.
  const extra = (process.env.RESTART_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const s = await serve(dataDir, cluster, [...extra, ...(prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : [])]);
  const p = pool(s.url, 4);
  const first = await until(s.t0, 60_000, 5, 'first answer', async () => {
    try {
      const r = await p.request({ method: 'GET', path: '/api/v1/namespaces/default/pods/scale-0', headers: { accept: 'application/json' } });
      await r.body.dump();
      return r.statusCode === 200;
    } catch {
      return false;
    }
  });
  const running = await until(s.t0, 300_000, 50, 'pods Running', async () => {
    const r = await getJson<{ items: unknown[] }>(p, notRunning);
    return r.status === 200 && r.body.items.length === 0;
  });
  const threshold = Math.max(0.15, idleCpu * 1.5 + 0.05);
  const share = await idle(s.pid, threshold, 60_000);
  const steady = performance.now() - s.t0 - 1000;
  console.log(`restart: first answer ${(first / 1000).toFixed(2)} s, all Running ${(running / 1000).toFixed(2)} s, steady ${(steady / 1000).toFixed(2)} s (cpu ${share.toFixed(2)}, threshold ${threshold.toFixed(2)}); server CPU until steady ${cpuBeforeLastWindow.toFixed(2)} s`);
  await p.close();
  await s.stop();

  const db = new BetterSqlite3(dbPath, { readonly: true });
  const byResource = new Map<string, number>();
  const byManager = new Map<string, number>();
  for (const row of db.prepare('SELECT resource, type, value FROM changes WHERE rv > ?').iterate(preMax) as Iterable<{ resource: string; type: string; value: string | null }>) {
    byResource.set(`${row.resource} ${row.type}`, (byResource.get(`${row.resource} ${row.type}`) ?? 0) + 1);
    let who = '?';
    try {
      const o = JSON.parse(row.value ?? '{}') as {
        metadata?: { managedFields?: Array<{ manager?: string; time?: string; subresource?: string }> };
        reason?: string; source?: { component?: string }; reportingComponent?: string;
      };
      const recent = (o.metadata?.managedFields ?? []).filter((m) => (m.time ?? '') >= restartIso.slice(0, 19));
      who = recent.map((m) => `${m.manager}${m.subresource ? `/${m.subresource}` : ''}`).join(',') || 'no managedFields stamp';
      // In-process writes stamp no managedFields: Events name their component and reason.
      if (row.resource === 'core/events') who = `${o.source?.component ?? o.reportingComponent ?? '?'} ${o.reason ?? ''}`;
    } catch { /* not JSON */ }
    const k = `${row.resource} ${who}`;
    byManager.set(k, (byManager.get(k) ?? 0) + 1);
  }
  const podsWritten = (db.prepare("SELECT COUNT(*) AS n FROM objects WHERE resource = 'v1/pods' AND rv > ?").get(preMax) as { n: number } | undefined)?.n;
  db.close();
  console.log(`writes after restart (change log rows > ${preMax}); pods whose stored rv changed: ${podsWritten}`);
  for (const [k, v] of [...byResource].sort((a, b) => b[1] - a[1])) console.log(`  ${String(v).padStart(7)}  ${k}`);
  console.log('by writer (managedFields entries stamped after the restart; Events by component and reason):');
  for (const [k, v] of [...byManager].sort((a, b) => b[1] - a[1])) console.log(`  ${String(v).padStart(7)}  ${k}`);
}

main().then(() => cleanup(), async (err: unknown) => {
  console.error(err);
  await cleanup();
  process.exitCode = 1;
});
