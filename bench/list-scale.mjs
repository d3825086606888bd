// Ad-hoc list measurement at scale (not part of `npm run bench`): N pods created in-process through the registry
// (no nodes, no add-ons), then over HTTP a full JSON list, a full Table list, and limit=500 paging through all.
// Usage: node bench/list-scale.mjs [pods=30000] [distDir=dist]   (time to the last byte; RSS and heap peaks).
import http from 'node:http';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

if (!isMainThread) {
  const b = { url: workerData.url, credentials: { token: workerData.token } };
const url = new URL(b.url);
function get(path, accept) {
  return new Promise((done, fail) => {
    const r = http.get({ host: url.hostname, port: url.port, path, headers: { authorization: `Bearer ${b.credentials.token}`, ...(accept ? { accept } : {}) } }, (res) => {
      let bytes = 0;
      const parts = [];
      res.on('data', (c) => {
        bytes += c.length;
        if (bytes < 4096) parts.push(c);
      });
      res.on('end', () => done({ status: res.statusCode, bytes, head: Buffer.concat(parts).toString('utf8', 0, 300) }));
      res.on('error', fail);
    });
    r.on('error', fail);
  });
}
/** A page's continue token and item count, read whole (pages are small). */
function page(path) {
  return new Promise((done, fail) => {
    http.get({ host: url.hostname, port: url.port, path, headers: { authorization: `Bearer ${b.credentials.token}` } }, (res) => {
      const parts = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
        done({ items: body.items.length, cont: body.metadata.continue });
      });
      res.on('error', fail);
    }).on('error', fail);
  });
}

  const out = {};
let t = performance.now();
const full = await get('/api/v1/pods');
out.fullListS = +((performance.now() - t) / 1000).toFixed(2);
out.fullListMB = +(full.bytes / 1e6).toFixed(1);
t = performance.now();
const table = await get('/api/v1/pods', 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json');
out.tableListS = +((performance.now() - t) / 1000).toFixed(2);
out.tableListMB = +(table.bytes / 1e6).toFixed(1);
t = performance.now();
let cont;
let seen = 0;
let pages = 0;
do {
  const p = await page(`/api/v1/pods?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
  seen += p.items;
  pages++;
  cont = p.cont;
} while (cont);
out.pagedS = +((performance.now() - t) / 1000).toFixed(2);
out.pages = pages;
out.pagedItems = seen;
  parentPort.postMessage(out);
} else {
const n = Number(process.argv[2] ?? 30000);
const dist = resolve(process.argv[3] ?? 'dist');
const { startBonsai } = await import(pathToFileURL(join(dist, 'src', 'main.js')).href);
const b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', cluster: { nodes: 0 }, addons: [], controllers: [''] });
const reg = b.registry;
const nsDef = reg.find('', 'v1', 'namespaces');
const podDef = reg.find('', 'v1', 'pods');
const namespaces = 50;
for (let i = 0; i < namespaces; i++) await reg.create(nsDef, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `ns-${i}` } });
const t0 = performance.now();
for (let i = 0; i < n; i++) {
  const ns = `ns-${i % namespaces}`;
  await reg.create(podDef, ns, {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: `web-${i.toString().padStart(6, '0')}-abcde`, namespace: ns, labels: { app: `web-${i % 1000}`, 'pod-template-hash': '5d8f7c9b6d', tier: 'frontend' } },
    spec: { nodeName: `node-${i % 5000}`, containers: [{ name: 'web', image: 'registry.k8s.io/nginx:1.27', ports: [{ containerPort: 80 }], resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } }, env: [{ name: 'MODE', value: 'production' }] }] },
  });
  if (i % 5000 === 4999) await b.store.committed();
}
await b.store.committed();
const createS = (performance.now() - t0) / 1000;

let rssPeak = 0;
let heapPeak = 0;
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  rssPeak = Math.max(rssPeak, m.rss);
  heapPeak = Math.max(heapPeak, m.heapUsed);
}, 20);

// LIST_PROFILE=file.cpuprofile: a CPU profile of the list phase alone.
let session;
if (process.env.LIST_PROFILE) {
  const { Session } = await import('node:inspector/promises');
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const out = { pods: n, createS: +createS.toFixed(1) };
// CHURN=1: a pod is created every 5 ms meanwhile (lists and pages while the store changes).
let churned = 0;
const churn = process.env.CHURN ? setInterval(() => {
  const ns = `ns-${churned % namespaces}`;
  reg.create(podDef, ns, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `churn-${churned++}`, namespace: ns }, spec: { nodeName: 'node-0', containers: [{ name: 'c', image: 'nginx' }] } });
}, 5) : undefined;
// The client runs in a worker thread, as kubectl would run in its own process: the server's thread only serves.
Object.assign(out, await new Promise((resolve, reject) => {
  const w = new Worker(new URL(import.meta.url), { workerData: { url: b.url, token: b.credentials.token } });
  w.once('message', resolve);
  w.once('error', reject);
}));
clearInterval(sampler);
if (churn) clearInterval(churn);
out.churned = churned;
if (session) {
  const { profile } = await session.post('Profiler.stop');
  (await import('node:fs')).writeFileSync(process.env.LIST_PROFILE, JSON.stringify(profile));
}
out.rssPeakMB = Math.round(rssPeak / 2 ** 20);
out.heapPeakMB = Math.round(heapPeak / 2 ** 20);
console.log(JSON.stringify(out));
await b.close();
process.exit(0);
}
