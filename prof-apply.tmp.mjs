import { startBonsai } from '/work/main/dist/src/main.js';
import { readdirSync, readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
const b = await startBonsai({ port: 0, data: ':memory:', cluster: { nodes: 0 } , logLevel: 'silent' });
const dir = '/work/main/test/fixtures/crds';
const docs = [];
for (const f of readdirSync(dir).filter((n) => n.endsWith('.yaml')).sort()) for (const d of parseAllDocuments(readFileSync(dir + '/' + f, 'utf8'))) { const o = d.toJS(); if (o?.kind) docs.push(o); }
const { Session } = await import('node:inspector/promises');
const s = new Session(); s.connect(); await s.post('Profiler.enable'); await s.post('Profiler.start');
const t0 = performance.now();
for (const d of docs) {
  const t = performance.now();
  const r = await fetch(`${b.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${d.metadata.name}?fieldManager=kubectl&force=false`, { method: 'PATCH', headers: { 'content-type': 'application/apply-patch+yaml', authorization: `Bearer ${b.credentials.token}` }, body: JSON.stringify(d) });
  await r.text(); console.log(d.metadata.name, r.status, (performance.now() - t).toFixed(0));
}
for (const d of docs) for (;;) { const r = await fetch(`${b.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${d.metadata.name}`, {headers: { authorization: `Bearer ${b.credentials.token}` }}); const j = await r.json(); if ((j.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True')) break; await new Promise((r) => setTimeout(r, 1)); }
console.log('total', (performance.now() - t0).toFixed(0));
const { profile } = await s.post('Profiler.stop');
const self = new Map(); const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const dt = profile.timeDeltas; const samples = profile.samples;
for (let i = 0; i < samples.length; i++) { const n = byId.get(samples[i]); const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + dt[i] / 1000); }
console.log([...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([k, v]) => `${v.toFixed(0).padStart(6)} ms  ${k}`).join('\n'));
await b.close(); process.exit(0);
