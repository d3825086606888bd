import { startBonsai } from '/work/main/dist/src/main.js';
import { Pool } from 'undici';
const b = await startBonsai({ port: 0, data: '/tmp/prof-cr-data', cluster: { nodes: 0 }, logLevel: 'silent' });
const H = { 'content-type': 'application/json', authorization: `Bearer ${b.credentials.token}` };
const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.bench.bonsai.dev' },
  spec: { group: 'bench.bonsai.dev', scope: 'Namespaced', names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string', maxLength: 32 } }, 'x-kubernetes-validations': [{ rule: 'self.size >= 0 && self.size <= 1000', message: 'size' }] } } } } }] } };
await (await fetch(`${b.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, { method: 'POST', headers: H, body: JSON.stringify(crd) })).text();
await new Promise((r) => setTimeout(r, 300));
const p = new Pool(b.url, { connections: 16 });
async function run(label, path, body, ms) {
  let n = 0, seq = 0, err; const end = performance.now() + ms;
  await Promise.all(Array.from({ length: 16 }, async () => { while (performance.now() < end) { const r = await p.request({ method: 'POST', path, headers: H, body: body(`${label}-${seq++}`) }); const t = await r.body.text(); if (r.statusCode === 201) n++; else err ??= t; } }));
  console.log(label, (n / (ms / 1000)).toFixed(0), '/s', err ?? '');
}
const prof = process.argv[2] === 'prof';
const { Session } = await import('node:inspector/promises');
const s = new Session(); s.connect();
for (let round = 0; round < 2; round++) {
  if (prof && round === 1) { await s.post('Profiler.enable'); await s.post('Profiler.start'); }
  await run('cm' + round, '/api/v1/namespaces/default/configmaps', (name) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { size: '3', color: 'blue' } }), 2000);
  await run('w' + round, '/apis/bench.bonsai.dev/v1/namespaces/default/widgets', (name) => JSON.stringify({ apiVersion: 'bench.bonsai.dev/v1', kind: 'Widget', metadata: { name }, spec: { size: 3, color: 'blue' } }), 2000);
}
if (prof) {
  const { profile } = await s.post('Profiler.stop');
  const self = new Map(); const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (let i = 0; i < profile.samples.length; i++) { const n = byId.get(profile.samples[i]); const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + profile.timeDeltas[i] / 1000); }
  console.log([...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 35).map(([k, v]) => `${v.toFixed(0).padStart(6)} ms  ${k}`).join('\n'));
}
await p.close(); await b.close(); process.exit(0);
