// Event-loop stall during the hostile-input corpus (issue 22): a Bonsai child receives the large-body rows of
// the hostile-input suite (test/helpers/hostile-bodies.ts: each body at its maximum size, refused or accepted)
// one after another, while this process probes GET /healthz every 5 ms over its own connection. A probe's latency
// approximates how long the server's event loop was held. Reports the probe latency p99 and max over the corpus,
// and the row during which the worst probe fell. Run alone: `node dist/bench/hostile-stall.js`.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { largeBodyCases } from '../test/helpers/hostile-bodies.js';
import { NS } from '../test/helpers/hostile-cases.js';
import type { HostileCase } from '../test/helpers/hostile-cases.js';
import { percentile } from './load.js';
import { spawnServer } from './proc.js';
import { ms, target, type Row } from './table.js';

const probeEveryMs = 5;

function send(base: URL, agent: http.Agent, c: Pick<HostileCase, 'method' | 'path' | 'headers' | 'body'>): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...(c.headers ?? {}) };
    if (c.body !== undefined) headers['content-length'] = Buffer.byteLength(c.body);
    const r = http.request({ host: base.hostname, port: base.port, method: c.method, path: c.path, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end(c.body);
  });
}

export interface StallFigure { p99: number; max: number; probes: number; worstDuring: string; unexpected: string[] }

export async function hostileStall(rounds = 1): Promise<StallFigure> {
  const server = spawnServer('bonsai', ':memory:');
  try {
    const base = new URL(await server.ready);
    const work = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const probeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const json = { 'content-type': 'application/json' };
    await send(base, work, { method: 'POST', path: '/api/v1/namespaces', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }) });
    await send(base, work, { method: 'POST', path: `/api/v1/namespaces/${NS}/configmaps`, headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' } }) });
    // Built per round (names are unique, so that accepted rows are created again), and all before the probing starts:
    // building them holds this process's event loop, which would delay the probes.
    const corpus = Array.from({ length: rounds }, () => largeBodyCases());
    const latencies: number[] = [];
    let current = '';
    let worst = { ms: 0, during: '' };
    let probing = true;
    const probe = (async () => {
      while (probing) {
        const t0 = performance.now();
        const during = current;
        await send(base, probeAgent, { method: 'GET', path: '/healthz' });
        const dt = performance.now() - t0;
        // Only probes sent once the corpus is under way: the server's first moments are start-up work of their own.
        if (during) latencies.push(dt);
        if (during && dt > worst.ms) worst = { ms: dt, during };
        await new Promise((r) => setTimeout(r, probeEveryMs));
      }
    })();
    const unexpected: string[] = [];
    for (const cases of corpus) {
      for (const c of cases) {
        current = c.name;
        const status = await send(base, work, c);
        if (c.expectCode !== undefined && status !== c.expectCode) unexpected.push(`${c.name}: ${status}, expected ${c.expectCode}`);
      }
    }
    probing = false;
    await probe;
    work.destroy();
    probeAgent.destroy();
    return { p99: percentile(latencies, 99), max: Math.max(...latencies), probes: latencies.length, worstDuring: worst.during, unexpected };
  } finally {
    await server.stop();
  }
}

export async function hostileStallRows(quick: boolean, log: (msg: string) => void): Promise<Row[]> {
  const rounds = quick ? 1 : 3;
  log(`23. event-loop stall: the large-body rows of the hostile-input suite (${largeBodyCases().length} requests x ${rounds}) against one server, GET /healthz probed every ${probeEveryMs} ms`);
  const f = await hostileStall(rounds);
  log(`   ${f.probes} probes; p99 ${ms(f.p99)}, max ${ms(f.max)} (during "${f.worstDuring}")${f.unexpected.length ? `; unexpected answers: ${f.unexpected.join('; ')}` : ''}`);
  const verdict = target(f.max < 100, 'target < 100 ms');
  return [
    { figure: '23. /healthz probe latency p99 during the hostile large-body corpus (event-loop stall)', value: ms(f.p99), baseline: '-', verdict: '' },
    { figure: '23. /healthz probe latency max during the hostile large-body corpus (event-loop stall)', value: ms(f.max), baseline: '-', verdict: `${verdict}; worst during "${f.worstDuring}"` },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await hostileStallRows(process.env.BENCH_QUICK === '1', (m) => process.stderr.write(`${m}\n`));
  for (const r of rows) process.stdout.write(`${r.figure}: ${r.value} ${r.verdict}\n`);
}
