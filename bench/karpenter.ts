// Karpenter figures (issue 12): 1,000 pending pods (three Deployments of different shapes) on a cluster without
// nodes to every pod Running through provisioning: NodeClaims created, nodes joined, pods bound and started, at
// clock speed 1 with zero launch, registration and startup-taint delays (batching keeps upstream's 1 s idle / 10 s
// max). Reports the instance types chosen and the cost per hour against a lower bound on the cheapest possible
// packing of the same pods, computed offline from the same catalog: for each resource, its total request times the
// lowest $/h per allocatable unit of any offering; no packing can cost less than the largest of these.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Pool } from 'undici';
import { builtinCatalog, type Catalog } from '../src/addons/karpenter/catalog.js';
import { priceOf } from '../src/addons/karpenter/nodeclaims.js';
import type { NodeClaim } from '../src/addons/karpenter/types.js';
import { amounts } from '../src/machinery/resources.js';
import { pool } from './load.js';
import { freshDir, spawnServer } from './proc.js';
import { target, type Row } from './table.js';
import { call, until } from './workloads.js';

type Json = Record<string, any>;

const shapes = [
  { name: 'small', replicas: 500, cpu: '500m', memory: '1Gi' },
  { name: 'medium', replicas: 300, cpu: '1', memory: '2Gi' },
  { name: 'large', replicas: 200, cpu: '2', memory: '8Gi' },
];

export interface KarpenterFigure {
  pods: number;
  runningMs: number;
  claims: number;
  types: Map<string, number>;
  costPerHour: number;
  lowerBound: number;
}

function clusterFile(): string {
  const file = join(freshDir('karpenter-cluster'), 'cluster.yaml');
  writeFileSync(file, ['controlPlane: false', 'nodePools: []', 'addons:', '  karpenter:', '    launchSeconds: 0', '    registrationSeconds: 0', '    startupTaintSeconds: 0', ''].join('\n'));
  return file;
}

/** The lower bound on $/h for pods with these total requests (base units). */
export function packingLowerBound(catalog: Catalog, total: Record<string, number>): number {
  let bound = 0;
  for (const [res, need] of Object.entries(total)) {
    let best = Infinity;
    for (const t of catalog.all()) {
      const alloc = amounts(t.allocatable)[res] ?? 0;
      if (alloc <= 0) continue;
      for (const o of t.offerings) if (o.available) best = Math.min(best, o.price / alloc);
    }
    if (Number.isFinite(best)) bound = Math.max(bound, need * best);
  }
  return bound;
}

const deployment = (s: (typeof shapes)[number]): Json => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: s.name },
  spec: {
    replicas: s.replicas, selector: { matchLabels: { app: s.name } },
    template: { metadata: { labels: { app: s.name } }, spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: s.cpu, memory: s.memory } } }] } },
  },
});

async function served(p: Pool, path: string): Promise<boolean> {
  try {
    await call(p, 'GET', path);
    return true;
  } catch {
    return false;
  }
}

export async function karpenterFigure(): Promise<KarpenterFigure> {
  const proc = spawnServer('bonsai', ':memory:', ['--cluster', clusterFile(), '--addons', 'karpenter']);
  try {
    const p = pool(await proc.ready, 4);
    try {
      await until(performance.now(), 60_000, 'the Karpenter CRDs served', () => served(p, '/apis/karpenter.sh/v1/nodepools'));
      await until(performance.now(), 60_000, 'the KWOKNodeClass CRD served', () => served(p, '/apis/karpenter.kwok.sh/v1alpha1/kwoknodeclasses'));
      await call(p, 'POST', '/apis/karpenter.kwok.sh/v1alpha1/kwoknodeclasses', { apiVersion: 'karpenter.kwok.sh/v1alpha1', kind: 'KWOKNodeClass', metadata: { name: 'default' } });
      await call(p, 'POST', '/apis/karpenter.sh/v1/nodepools', {
        apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'default' },
        spec: { template: { spec: { nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' }, requirements: [] } } },
      });
      const pods = shapes.reduce((n, s) => n + s.replicas, 0);
      const t0 = performance.now();
      for (const s of shapes) await call(p, 'POST', '/apis/apps/v1/namespaces/default/deployments', deployment(s));
      const runningMs = await until(t0, 300_000, `${pods} pods Running`, async () => {
        const list = await call(p, 'GET', '/api/v1/namespaces/default/pods?fieldSelector=status.phase%3DRunning');
        return (list.items as Json[]).length >= pods;
      });
      const claims = (await call(p, 'GET', '/apis/karpenter.sh/v1/nodeclaims')).items as NodeClaim[];
      const catalog = builtinCatalog();
      const types = new Map<string, number>();
      let costPerHour = 0;
      for (const c of claims) {
        const t = c.metadata.labels?.['node.kubernetes.io/instance-type'] ?? '?';
        types.set(t, (types.get(t) ?? 0) + 1);
        costPerHour += priceOf(c, catalog) ?? 0;
      }
      const total: Record<string, number> = {};
      for (const s of shapes) {
        const req = amounts({ cpu: s.cpu, memory: s.memory, pods: '1' });
        for (const [k, v] of Object.entries(req)) total[k] = (total[k] ?? 0) + v * s.replicas;
      }
      return { pods, runningMs, claims: claims.length, types, costPerHour, lowerBound: packingLowerBound(catalog, total) };
    } finally {
      await p.close();
    }
  } finally {
    await proc.stop();
  }
}

export async function karpenterRows(log: (msg: string) => void): Promise<Row[]> {
  log('19. Karpenter: 1,000 pending pods (500 x 0.5 CPU/1Gi, 300 x 1 CPU/2Gi, 200 x 2 CPU/8Gi), no nodes, to all Running through provisioning (launch delay 0)');
  const r = await karpenterFigure();
  const chosen = [...r.types].sort((a, b) => b[1] - a[1]).map(([t, n]) => `${n} x ${t}`).join(', ');
  const over = r.costPerHour / r.lowerBound - 1;
  log(`   all ${r.pods} Running after ${(r.runningMs / 1000).toFixed(2)} s on ${r.claims} NodeClaims (${chosen}); $${r.costPerHour.toFixed(3)}/h vs lower bound $${r.lowerBound.toFixed(3)}/h (+${(over * 100).toFixed(1)}%)`);
  return [
    { figure: `19. Karpenter: ${r.pods} pending pods to Running through provisioning (${r.claims} NodeClaims: ${chosen})`, value: `${(r.runningMs / 1000).toFixed(2)} s`, baseline: '-', verdict: target(r.runningMs < 5000, 'target < 5 s') },
    { figure: '19. Karpenter: cost of the chosen nodes vs the cheapest possible packing (lower bound, same catalog)', value: `$${r.costPerHour.toFixed(3)}/h`, baseline: `$${r.lowerBound.toFixed(3)}/h`, verdict: target(over <= 0.1, `+${(over * 100).toFixed(1)}%, target within 10%`) },
  ];
}

// `node dist/bench/karpenter.js` runs this figure alone.
if (process.argv[1]?.endsWith('karpenter.js')) {
  karpenterRows((m) => process.stdout.write(`${m}\n`)).then((rows) => process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`), (err) => {
    process.stderr.write(`${String(err)}\n`);
    process.exitCode = 1;
  });
}
