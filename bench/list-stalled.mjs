// Ad-hoc memory-guard check (not part of `npm run bench`): N pods, then C clients each asking for the full pod list and
// never reading. Prints how many were admitted or refused (429), the list budget in use and the heap they hold.
// Usage: node --expose-gc bench/list-stalled.mjs [pods=30000] [clients=300]
import net from 'node:net';
import { startBonsai } from '../dist/src/main.js';
import { listBudgetOf } from '../dist/src/api/list-stream.js';
const n = Number(process.argv[2] ?? 30000), clients = Number(process.argv[3] ?? 300);
const b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', cluster: { nodes: 0 }, addons: [], controllers: [''] });
const reg = b.registry; const podDef = reg.find('', 'v1', 'pods');
for (let i = 0; i < n; i++) await reg.create(podDef, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}` }, spec: { nodeName: 'x', containers: [{ name: 'c', image: 'nginx' }] } });
await b.store.committed();
global.gc?.(); const base = process.memoryUsage().heapUsed;
const url = new URL(b.url); const socks = []; let refused = 0; let answered = 0;
for (let i = 0; i < clients; i++) {
  const s = net.connect(Number(url.port), url.hostname); s.on('error', () => {});
  s.once('data', (d) => { answered++; if (d.toString().startsWith('HTTP/1.1 429')) refused++; s.pause(); });
  s.write(`GET /api/v1/pods HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${b.credentials.token}\r\n\r\n`);
  socks.push(s);
}
for (let t = 0; t < 240 && answered < clients; t++) await new Promise((r) => setTimeout(r, 500));
global.gc?.(); const held = process.memoryUsage().heapUsed - base;
console.log(JSON.stringify({ pods: n, clients, answered, refused, budgetMB: +(listBudgetOf(b.app).inUse() / 2 ** 20).toFixed(1), heapHeldMB: +(held / 2 ** 20).toFixed(1), rssMB: Math.round(process.memoryUsage().rss / 2 ** 20) }));
for (const s of socks) s.destroy();
await b.close(); process.exit(0);
