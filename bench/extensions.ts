// Issue 10's figures: applying the CRD files real projects ship until every one is Established, and the create rate
// of a custom resource with a CEL rule against the same run's ConfigMap create rate.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseAllDocuments } from 'yaml';
import { root } from './proc.js';
import { withServer, concurrency } from './figures.js';
import { closedLoopCreates, percentile, pool, type Throughput } from './load.js';

type Json = Record<string, any>;

const crdDir = join(root, 'test', 'fixtures', 'crds');

/** Every CRD document of the fixture files (the files JobSet, LWS, Karpenter, KEDA, VPA and Agent Sandbox ship). */
function crdDocuments(): Json[] {
  const out: Json[] = [];
  for (const f of readdirSync(crdDir).filter((n) => n.endsWith('.yaml')).sort()) {
    for (const d of parseAllDocuments(readFileSync(join(crdDir, f), 'utf8'))) {
      const o = d.toJS() as Json | null;
      if (o?.kind === 'CustomResourceDefinition') out.push(o);
    }
  }
  return out;
}

const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

async function established(p: ReturnType<typeof pool>, name: string): Promise<boolean> {
  const res = await p.request({ method: 'GET', path: `${crdPath}/${name}` });
  const crd = (await res.body.json()) as Json;
  return (crd.status?.conditions ?? []).some((c: Json) => c.type === 'Established' && c.status === 'True');
}

/**
 * ms from the first server-side apply (as `kubectl apply --server-side` sends them, one after another) to all
 * Established, on a server without add-ons: these are the add-ons' own CRDs, which a server with them installs at
 * start, at the same time. Meanwhile another connection asks for /version every 2 ms: its longest wait shows the
 * longest the server's event loop was held (a CRD's schema checks run in turns of their own).
 */
export async function crdApplyFigure(): Promise<{ ms: number; crds: number; bytes: number; probe: { max: number; p99: number; n: number } }> {
  const docs = crdDocuments();
  const bodies = docs.map((d) => JSON.stringify(d));
  return withServer('bonsai', ':memory:', async (url) => {
    const p = pool(url, 1);
    const probePool = pool(url, 1);
    const waits: number[] = [];
    let probing = true;
    const probe = (async () => {
      while (probing) {
        const t = performance.now();
        const res = await probePool.request({ method: 'GET', path: '/version' });
        await res.body.dump();
        waits.push(performance.now() - t);
        await sleep(2);
      }
    })();
    probe.catch(() => undefined); // awaited below; a failure there fails the figure
    try {
      const t0 = performance.now();
      for (let i = 0; i < docs.length; i++) {
        const res = await p.request({
          method: 'PATCH', path: `${crdPath}/${docs[i].metadata.name}?fieldManager=kubectl&force=false`,
          headers: { 'content-type': 'application/apply-patch+yaml', accept: 'application/json' }, body: bodies[i],
        });
        const text = await res.body.text();
        if (res.statusCode >= 300) throw new Error(`apply of ${docs[i].metadata.name}: ${res.statusCode} ${text.slice(0, 300)}`);
      }
      for (const d of docs) {
        while (!(await established(p, d.metadata.name))) {
          if (performance.now() - t0 > 30_000) throw new Error(`${d.metadata.name} never became Established`);
          await sleep(1);
        }
      }
      const ms = performance.now() - t0;
      probing = false;
      await probe;
      return { ms, crds: docs.length, bytes: bodies.reduce((n, b) => n + b.length, 0), probe: { max: Math.max(...waits), p99: percentile(waits, 99), n: waits.length } };
    } finally {
      probing = false;
      await probe.catch(() => undefined);
      await p.close();
      await probePool.close();
    }
  }, ['--addons', '']);
}

const benchCrd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.bench.bonsai.dev' },
  spec: {
    group: 'bench.bonsai.dev', scope: 'Namespaced', names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    versions: [{
      name: 'v1', served: true, storage: true,
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: {
        type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string', maxLength: 32 } },
        'x-kubernetes-validations': [{ rule: 'self.size >= 0 && self.size <= 1000', message: 'size must be between 0 and 1000' }],
      } } } },
    }],
  },
};

/** Creates/s of ConfigMaps, then of a custom resource with one CEL rule, 16 clients each, in one server. */
export async function customResourceCreates(warmupMs: number, measureMs: number): Promise<{ configMaps: Throughput; custom: Throughput }> {
  return withServer('bonsai', 'dir', async (url) => {
    const p = pool(url, concurrency);
    try {
      const res = await p.request({ method: 'POST', path: crdPath, headers: { 'content-type': 'application/json' }, body: JSON.stringify(benchCrd) });
      await res.body.dump();
      if (res.statusCode !== 201) throw new Error(`CRD create: ${res.statusCode}`);
      while (!(await established(p, benchCrd.metadata.name))) await sleep(5);
      // Two alternating rounds each, so that neither kind is measured only on the emptier (or fuller) store.
      const rounds: Throughput[][] = [[], []];
      for (let round = 0; round < 2; round++) {
        rounds[0].push(await closedLoopCreates(p, `cm${round}`, concurrency, warmupMs, measureMs / 2,
          (name) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { size: '3', color: 'blue' } }), '/api/v1/namespaces/default/configmaps'));
        rounds[1].push(await closedLoopCreates(p, `w${round}`, concurrency, warmupMs, measureMs / 2,
          (name) => JSON.stringify({ apiVersion: 'bench.bonsai.dev/v1', kind: 'Widget', metadata: { name }, spec: { size: 3, color: 'blue' } }), '/apis/bench.bonsai.dev/v1/namespaces/default/widgets'));
      }
      const total = (rs: Throughput[]): Throughput => {
        const count = rs.reduce((n, r) => n + r.count, 0);
        const seconds = rs.reduce((n, r) => n + r.seconds, 0);
        return { count, seconds, perSec: count / seconds, errors: rs.reduce((n, r) => n + r.errors, 0), firstError: rs.find((r) => r.firstError)?.firstError };
      };
      return { configMaps: total(rounds[0]), custom: total(rounds[1]) };
    } finally {
      await p.close();
    }
  });
}
