// Ad-hoc list measurement under load (not part of `npm run bench`): a `bonsai serve --nodes 0 --addons ''
// --data :memory:` from the given build, N pods created over HTTP by 24 clients (never scheduled), then full JSON
// lists, Table lists (TABLES=n) and limit=500 paging through all, each timed to the last byte by an undici client that
// discards the body, with the server's CPU time (/proc/<pid>/stat) and the client's: on a shared machine the CPU
// times stay comparable when wall times do not. TRACE_GC=1 counts the server's GCs during the lists; DATA=<dir> runs
// in file mode (a fresh directory each run); CONC=n adds n concurrent full lists with the RSS peak.
// Usage: node bench/list-cpu.mjs <distDir> <pods> <fullLists> <pagedPasses> [--prof <dir>]
//   e.g. alternate two builds at the same N: node bench/list-cpu.mjs dist 60000 3 2
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
const require = createRequire(import.meta.url);
const { Pool } = require('undici');
const [dist, nStr, fullStr, pagedStr, ...rest] = process.argv.slice(2);
const N = Number(nStr);
const prof = rest[0] === '--prof' ? rest[1] : undefined;
const nodeArgs = prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : process.env.TRACE_GC ? ['--trace-gc'] : [];
const child = spawn(process.execPath, [...nodeArgs, resolve(dist, 'src/cli/bin.js'), 'serve', '--port', '0', '--nodes', '0', '--addons', '', '--data', process.env.DATA ?? ':memory:', '--log-level', 'silent', '--kubeconfig', join(tmpdir(), `bonsai-list-cpu-${process.pid}.kubeconfig`)], { stdio: ['ignore', 'pipe', 'inherit'], cwd: tmpdir() });
const gcLines = []; child.stdout.on('data', (d) => { if (process.env.TRACE_GC) gcLines.push(...String(d).split('\n').filter((l) => /Scavenge|Mark-Compact|Mark-sweep/i.test(l))); });
const url = await new Promise((res) => { let out = ''; child.stdout.setEncoding('utf8'); child.stdout.on('data', (d) => { out += d; const m = /(http:\/\/[^\s)]+)/.exec(out); if (m) res(m[1].replace(/\/$/, '')); }); });
const p = new Pool(url, { connections: 24, pipelining: 1 });
const body = (name, i) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'scale', 'pod-template-hash': 'abc123', idx: String(i % 100), tier: 'backend', team: 'platform', 'app.kubernetes.io/name': 'scale', 'app.kubernetes.io/instance': `scale-${i % 1000}` }, annotations: { 'note': 'ascii "quoted" \\ back' } },
  spec: { schedulerName: 'bench-unscheduled', containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '16Mi' } }, env: [{ name: 'A', value: 'x'.repeat(i % 50) }, ...Array.from({ length: 8 }, (_, k) => ({ name: `VAR_${k}`, value: `value-${k}-${i}` }))], ports: [{ containerPort: 8080, protocol: 'TCP', name: 'http' }], readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5 } }] } });
let next = 0; const t0 = performance.now();
await Promise.all(Array.from({ length: 24 }, async () => { while (next < N) { const i = next++; const r = await p.request({ method: 'POST', path: '/api/v1/namespaces/default/pods', headers: { 'content-type': 'application/json' }, body: body(`p-${String(i).padStart(6, '0')}`, i) }); if (r.statusCode !== 201) throw new Error(`${r.statusCode} ${await r.body.text()}`); await r.body.dump(); } }));
console.error(`seeded ${N} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
await new Promise((r) => setTimeout(r, 1500));
async function get(path) { const t = performance.now(); const r = await p.request({ method: 'GET', path, headers: { accept: 'application/json', 'accept-encoding': 'identity' } }); let bytes = 0; let head = ''; for await (const c of r.body) { if (head.length < 4096) head += c.toString('latin1'); bytes += c.length; } return { ms: performance.now() - t, bytes, head, status: r.statusCode }; }
import { readFileSync } from 'node:fs';
const cpu = () => { const f = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const selfCpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const fullCpu = []; const pagedCpu = []; const clientCpu = [];
const full = []; let bytes = 0; const gc0 = gcLines.length;
if (process.env.DUMP) { const r = await p.request({ method: 'GET', path: '/api/v1/pods', headers: { accept: 'application/json' } }); (await import('node:fs')).writeFileSync(process.env.DUMP, await r.body.text()); }
for (let i = 0; i < Number(fullStr); i++) { const c0 = cpu(); const s0 = selfCpu(); const r = await get('/api/v1/pods'); fullCpu.push(cpu() - c0); clientCpu.push(+(selfCpu() - s0).toFixed(0)); full.push(r.ms); bytes = r.bytes; }
const gc1 = gcLines.length; if (process.env.TRACE_GC) { const l = gcLines.slice(gc0, gc1); console.error('GC during full lists:', l.filter((x) => /Scavenge/.test(x)).length, 'scavenges;', l.filter((x) => !/Scavenge/.test(x)).length, 'mark-compacts'); for (const x of l.filter((x) => !/Scavenge/.test(x))) console.error(x); }
const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const tbl = []; for (let i = 0; i < Number(process.env.TABLES ?? 0); i++) { const c0 = cpu(); const t = performance.now(); const r = await p.request({ method: 'GET', path: '/api/v1/pods', headers: { accept: tableAccept } }); let n = 0; for await (const c of r.body) n += c.length; tbl.push([+(performance.now() - t).toFixed(0), cpu() - c0, n]); }
const gc2 = gcLines.length;
const paged = [];
for (let i = 0; i < Number(pagedStr); i++) { const c0 = cpu(); const t = performance.now(); let cont = ''; let pages = 0; for (;;) { const r = await get(`/api/v1/pods?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`); pages++; const m = /"continue":"([^"]*)"/.exec(r.head.slice(0, r.head.indexOf('"items"'))); if (!m) break; cont = m[1]; } paged.push(performance.now() - t); pagedCpu.push(cpu() - c0); }
if (process.env.TRACE_GC) { const l = gcLines.slice(gc2); console.error('GC during paging:', l.filter((x) => /Scavenge/.test(x)).length, 'scavenges;', l.filter((x) => !/Scavenge/.test(x)).length, 'mark-compacts'); for (const x of l.filter((x) => !/Scavenge/.test(x)).slice(0, 8)) console.error(x); }
const conc = {};
if (process.env.CONC) {
  const g0 = gcLines.length;
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;
  conc.rssBeforeMB = Math.round(rss()); let peak = 0; const t = setInterval(() => { peak = Math.max(peak, rss()); }, 50);
  const c0 = cpu(); const t0 = performance.now();
  const rs = await Promise.all(Array.from({ length: Number(process.env.CONC) }, () => get('/api/v1/pods')));
  clearInterval(t); conc.n = rs.length; conc.ok = rs.filter((r) => r.status === 200).length; conc.ms = Math.round(performance.now() - t0); conc.cpu = cpu() - c0; conc.rssPeakMB = Math.round(peak);
  if (process.env.TRACE_GC) { const l = gcLines.slice(g0); conc.scavenges = l.filter((x) => /Scavenge/.test(x)).length; conc.markCompacts = l.filter((x) => !/Scavenge/.test(x)).length; console.error(l.filter((x) => !/Scavenge/.test(x)).slice(0, 5).join('\n')); }
}
const med = (a) => a.length ? [...a].sort((x, y) => x - y)[a.length >> 1].toFixed(0) : '-';
console.log(JSON.stringify({ dist, N, MiB: (bytes / 2 ** 20).toFixed(1), full: full.map((x) => +x.toFixed(0)), fullMed: med(full), paged: paged.map((x) => +x.toFixed(0)), pagedMed: med(paged), fullCpu, fullCpuMed: med(fullCpu), clientCpu, pagedCpu, tbl, conc }));
await p.close(); child.kill('SIGINT'); await new Promise((r) => child.once('exit', r));
