// Storage footprint and restart figures (issue 14), run by hand, one step at a time (not part of `npm run bench`):
//   node dist/bench/store-footprint.js templates OUT.json            real Pod/Event/Node objects from a small cluster
//   node --expose-gc dist/bench/store-footprint.js memory T.json N [file|memory] [STORE_MODULE]
//                                                                    heap/RSS per pod, event and node at N and 2N
//   node dist/bench/store-footprint.js generate T.json DIR N        a data dir of N pods, 4N events, N/20 nodes
//   node dist/bench/store-footprint.js serve DIR [MAIN_MODULE]       start-up to first request and to steady
// STORE_MODULE / MAIN_MODULE: another build's sqlite-store.js / main.js (e.g. the main checkout's) for a before/after.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { KObject } from '../src/machinery/types.js';

interface Templates {
  pod: KObject;
  events: KObject[];
  node: KObject;
}

interface StoreLike {
  create(resource: string, obj: KObject): KObject;
  flush(): void;
  compact(retain?: number): number;
  close(): void;
}

const mb = (n: number) => (n / 2 ** 20).toFixed(1);

async function templates(out: string): Promise<void> {
  const { startBonsai } = await import('../src/main.js');
  const b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', cluster: { nodes: 2 }, addons: [] });
  try {
    const made = await fetch(`${b.url}/apis/apps/v1/namespaces/default/deployments`, { method: 'POST', headers: { authorization: `Bearer ${b.credentials.token}`, 'content-type': 'application/json' }, body: JSON.stringify({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: { requests: { cpu: '100m', memory: '128Mi' } } }] } } },
    }) });
    if (made.status !== 201) throw new Error(`deployment: ${made.status} ${await made.text()}`);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const pods = b.registry.store.list('core/pods', 'default') as Array<KObject & { status?: { phase?: string } }>;
      if (pods.length === 2 && pods.every((p) => p.status?.phase === 'Running')) break;
      if (Date.now() > deadline) throw new Error('pods not Running in 60 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 1500));
    const pod = b.registry.store.list('core/pods', 'default')[0];
    const events = b.registry.store.list('core/events', 'default').filter((e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === pod.metadata.name);
    const node = b.registry.store.list('core/nodes')[0];
    writeFileSync(out, JSON.stringify({ pod, events, node }, null, 1));
    console.log(`pod ${JSON.stringify(pod).length} B, ${events.length} events ${events.map((e) => JSON.stringify(e).length).join('/')} B, node ${JSON.stringify(node).length} B`);
  } finally {
    await b.close();
  }
}

/** The i-th copy of a template: its own name, uid, IP and node, as a real cluster's objects differ. */
function copyOf(t: KObject, i: number, kind: 'pod' | 'event' | 'node', nodes: number): KObject {
  const hex = i.toString(16).padStart(8, '0');
  let text = JSON.stringify(t);
  const name = t.metadata.name ?? '';
  const uid = t.metadata.uid ?? '';
  if (kind === 'event') {
    const involved = (t as { involvedObject?: { name?: string; uid?: string } }).involvedObject ?? {};
    text = text.split(involved.name ?? '\u0000').join(`web-${hex}`).split(involved.uid ?? '\u0000').join(`${hex}-0000-4000-8000-${hex}0000`);
  }
  text = text.split(name).join(kind === 'event' ? `web-${hex}.${(i * 7919).toString(16)}` : `${kind === 'pod' ? 'web' : 'node'}-${hex}`);
  if (uid) text = text.split(uid).join(`${hex}-1111-4000-8000-${hex}1111`);
  const obj = JSON.parse(text) as KObject & { spec?: { nodeName?: string }; status?: { podIP?: string; podIPs?: unknown } };
  delete obj.metadata.resourceVersion;
  if (kind === 'pod') {
    obj.spec = { ...obj.spec, nodeName: `node-${(i % nodes).toString(16).padStart(8, '0')}` };
    const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    obj.status = { ...obj.status, podIP: ip, podIPs: [{ ip }] };
  }
  return obj;
}

function usage(): { heap: number; rss: number; external: number } {
  (globalThis as { gc?: () => void }).gc?.();
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss, external: m.external + m.arrayBuffers };
}

async function memory(tFile: string, n: number, mode: string, storeModule?: string): Promise<void> {
  const t = JSON.parse(readFileSync(tFile, 'utf8')) as Templates;
  const mod = (await import(storeModule ?? '../src/storage/sqlite-store.js')) as { SqliteStore: new (o: { path: string }) => StoreLike };
  const dir = `/tmp/bonsai-footprint-${process.pid}`;
  const store = new mod.SqliteStore({ path: mode === 'file' ? join(dir, 'bonsai.db') : ':memory:' });
  const nodes = Math.max(1, Math.round(n / 30));
  let pods = 0;
  let events = 0;
  let nodesMade = 0;
  const add = (kind: 'pod' | 'event' | 'node', count: number) => {
    for (let k = 0; k < count; k++) {
      if (kind === 'pod') store.create('core/pods', copyOf(t.pod, pods++, 'pod', nodes));
      else if (kind === 'node') store.create('core/nodes', copyOf(t.node, nodesMade++, 'node', nodes));
      else {
        const e = t.events[events % t.events.length];
        store.create('core/events', copyOf(e, Math.floor(events++ / t.events.length), 'event', nodes));
      }
      if (k % 500 === 499) store.flush();
    }
    store.flush();
  };
  const step = (what: string, kind: 'pod' | 'event' | 'node', count: number) => {
    const before = usage();
    add(kind, count);
    const after = usage();
    console.log(`${what.padEnd(24)} heap +${((after.heap - before.heap) / count).toFixed(0)} B/obj  rss +${((after.rss - before.rss) / count).toFixed(0)} B/obj  (heap ${mb(after.heap)} MiB, rss ${mb(after.rss)} MiB)`);
  };
  console.log(`${storeModule ?? 'this build'}, ${mode} mode, pods template ${JSON.stringify(t.pod).length} B, ${t.events.length} events/pod`);
  // Warm-up (statements, intern table, code) before the first measured step.
  add('pod', 2000);
  add('event', 2000);
  add('node', 50);
  step(`pods ${n}`, 'pod', n);
  step(`pods ${n} more`, 'pod', n);
  step(`events ${5 * n}`, 'event', 5 * n);
  step(`nodes ${nodes}`, 'node', nodes);
  store.close();
}

async function generate(tFile: string, dir: string, n: number): Promise<void> {
  const t = JSON.parse(readFileSync(tFile, 'utf8')) as Templates;
  const { SqliteStore } = await import('../src/storage/sqlite-store.js');
  const store = new SqliteStore({ path: join(dir, 'bonsai.db') });
  const nodes = Math.max(1, Math.round(n / 20));
  for (let i = 0; i < nodes; i++) store.create('core/nodes', copyOf(t.node, i, 'node', nodes));
  for (let i = 0; i < n; i++) {
    store.create('core/pods', copyOf(t.pod, i, 'pod', nodes));
    for (let e = 0; e < 4; e++) store.create('core/events', copyOf(t.events[e % t.events.length], i, 'event', nodes));
    if (i % 200 === 199) store.flush();
  }
  store.flush();
  const size = (p: string) => {
    try {
      return statSync(p).size;
    } catch {
      return 0;
    }
  };
  const files = () => size(join(dir, 'bonsai.db')) + size(join(dir, 'bonsai.db-wal'));
  console.log(`before compaction ${mb(files())} MiB`);
  store.compact(0);
  store.close();
  console.log(`${n} pods, ${4 * n} events, ${nodes} nodes: ${mb(files())} MiB after compaction and close (${((files() / n) * 10_000 / 2 ** 20).toFixed(1)} MiB per 10k pods)`);
}

async function serve(dir: string, mainModule?: string): Promise<void> {
  const t0 = performance.now();
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const { startBonsai } = (await import(mainModule ?? '../src/main.js')) as typeof import('../src/main.js');
  let firstRequestMs = 0;
  const b = await startBonsai({
    port: 0, data: dir, logLevel: 'silent', addons: [], cluster: { nodes: 0 }, controllers: process.env.FOOTPRINT_CONTROLLERS?.split(',').filter((c) => c !== 'none'),
    onListening: ({ url }) => {
      void fetch(`${url}/healthz`).then(
        () => (firstRequestMs = performance.now() - t0),
        (err: unknown) => console.log(`/healthz failed at ${(performance.now() - t0).toFixed(0)} ms: ${String(err)}`),
      );
    },
  });
  const startedMs = performance.now() - t0;
  const req = async (path: string) => {
    const s = performance.now();
    const r = await fetch(`${b.url}${path}`, { headers: { authorization: `Bearer ${b.credentials.token}` } });
    await r.arrayBuffer();
    return `${path} ${r.status} ${(performance.now() - s).toFixed(0)} ms`;
  };
  const firstGet = await req('/api/v1/namespaces/default/pods?limit=1');
  const firstGetMs = performance.now() - t0;
  // Steady: a whole second in which the event loop never stalled for more than 50 ms.
  let steadyMs = 0;
  for (let quiet = 0; quiet < 10 && performance.now() - t0 < 120_000; ) {
    lag.reset();
    await new Promise((r) => setTimeout(r, 100));
    quiet = lag.max / 1e6 < 50 ? quiet + 1 : 0;
    steadyMs = performance.now() - t0 - quiet * 100;
  }
  const rss = process.memoryUsage().rss;
  console.log(`${mainModule ?? 'this build'}: startBonsai resolved ${startedMs.toFixed(0)} ms, /healthz answered ${firstRequestMs.toFixed(0)} ms, first GET pods ${firstGetMs.toFixed(0)} ms (${firstGet}), steady ${steadyMs.toFixed(0)} ms, rss ${mb(rss)} MiB`);
  console.log(await req('/api/v1/pods?limit=500'));
  await b.close();
}

const [cmd, ...args] = process.argv.slice(2);
const run = { templates: () => templates(args[0]), memory: () => memory(args[0], Number(args[1]), args[2] ?? 'memory', args[3]), generate: () => generate(args[0], args[1], Number(args[2])), serve: () => serve(args[0], args[1]) }[cmd ?? ''];
if (!run) {
  console.error('usage: store-footprint templates|memory|generate|serve ...');
  process.exit(2);
}
await run();
