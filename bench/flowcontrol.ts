// API Priority and Fairness figure (issue 22, item 5): a validating webhook scoped to namespace `slow` points at a
// listener that accepts and never answers (failurePolicy Ignore); 250 anonymous creates into `slow` wait on it.
// Meanwhile the figure is the p99 of sequential GETs in `default` (anonymous too: the same user, the same flow), as
// a ratio of the same p99 on the quiet server; and how many creates into `default` were refused. The same stall
// with --enable-priority-and-fairness=false (the max-in-flight filter) is the baseline column.
import { silentListener } from '../test/helpers/silent-listener.js';
import { Pool } from 'undici';
import { percentile, pool, sequentialGets } from './load.js';
import { spawnServer } from './proc.js';
import { join, ms, target, type Row } from './table.js';

const slowCreates = 250;
const json = { 'content-type': 'application/json', accept: 'application/json' };

interface Stall { quietP99: number; stalledP99: number; refused: number; creates: number }

async function post(p: Pool, path: string, body: unknown): Promise<number> {
  const res = await p.request({ method: 'POST', path, headers: json, body: JSON.stringify(body) });
  await res.body.dump();
  return res.statusCode;
}

async function stallFigure(apf: boolean, gets: number, timeoutSeconds: number): Promise<Stall> {
  const listener = await silentListener();
  const { port } = listener;
  const server = spawnServer('bonsai', ':memory:', ['--nodes', '0', ...(apf ? [] : ['--enable-priority-and-fairness=false'])]);
  const url = await server.ready;
  const one = pool(url, 1);
  const burst = new Pool(url, { connections: slowCreates, pipelining: 1 });
  try {
    await post(one, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'slow', labels: { 'apf-bench': 'slow' } } });
    await post(one, '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe' } });
    const path = '/api/v1/namespaces/default/configmaps/probe';
    const quietP99 = percentile(await sequentialGets(one, path, gets, 50), 99);
    await post(one, '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'stalled' },
      webhooks: [{
        name: 'stalled.example.com', clientConfig: { url: `https://127.0.0.1:${port}/validate` },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        namespaceSelector: { matchLabels: { 'apf-bench': 'slow' } }, failurePolicy: 'Ignore', sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds,
      }],
    });
    const slow = Array.from({ length: slowCreates }, (_, i) => post(burst, '/api/v1/namespaces/slow/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `slow-${i}` } }).catch(() => 0));
    const deadline = Date.now() + timeoutSeconds * 1000;
    // Without APF a create beyond the mutating limit is refused at once and never calls the webhook: wait for the
    // calls or for every slow create to be answered.
    let answered = 0;
    for (const s of slow) void s.then(() => answered++);
    while (listener.accepted() < slowCreates && answered + listener.accepted() < slowCreates && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const stalledP99 = percentile(await sequentialGets(one, path, gets, 0).catch(() => [NaN]), 99);
    const codes = await Promise.all(Array.from({ length: 20 }, (_, i) => post(one, '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `during-${i}` } })));
    await Promise.all(slow);
    return { quietP99, stalledP99, refused: codes.filter((c) => c === 429).length, creates: codes.length };
  } finally {
    await burst.close().catch(() => {});
    await one.close().catch(() => {});
    await server.stop();
    await listener.close();
  }
}

export async function flowControlRows(quick: boolean, log: (m: string) => void): Promise<Row[]> {
  const gets = quick ? 300 : 1000;
  const timeoutSeconds = quick ? 10 : 30;
  log(`APF: ${slowCreates} anonymous creates into \`slow\` stalled on a webhook (timeoutSeconds ${timeoutSeconds}); ${gets} sequential GETs in \`default\` quiet, then during the stall; with APF, then with the max-in-flight filter`);
  const on = await stallFigure(true, gets, timeoutSeconds);
  const off = await stallFigure(false, gets, timeoutSeconds);
  const ratio = on.stalledP99 / on.quietP99;
  log(`   APF: GET p99 quiet ${ms(on.quietP99)}, stalled ${ms(on.stalledP99)}; creates in default refused ${on.refused}/${on.creates}. max-in-flight: p99 ${ms(off.quietP99)} -> ${ms(off.stalledP99)}; refused ${off.refused}/${off.creates}`);
  return [
    { figure: 'APF. GET p99 in `default`, quiet', value: ms(on.quietP99), baseline: ms(off.quietP99), verdict: 'baseline: --enable-priority-and-fairness=false' },
    { figure: `APF. GET p99 in \`default\` while ${slowCreates} creates stall on a webhook`, value: ms(on.stalledP99), baseline: ms(off.stalledP99), verdict: join(`${ratio.toFixed(2)}x quiet`, target(ratio <= 2, 'target <= 2x quiet')) },
    { figure: 'APF. creates in `default` refused (429) during the stall', value: `${on.refused}/${on.creates}`, baseline: `${off.refused}/${off.creates}`, verdict: target(on.refused === 0, 'target 0') },
  ];
}
