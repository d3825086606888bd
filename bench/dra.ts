// Dynamic Resource Allocation figures: pods each with a one-GPU claim from a ResourceClaimTemplate, created over HTTP by
// 16 clients on nodes of 8 GPUs each (the simulated driver gpu.bonsai.dev publishes their slices), timed from the
// first create to every pod Running; and the scheduler's throughput with such claims against the same number of plain
// pods on as many nodes (first create to last bind), in the same run.
import { writeFileSync } from 'node:fs';
import { join as joinPath } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'undici';
import { createMany, pool } from './load.js';
import { freshDir, spawnServer } from './proc.js';
import { join, ms, rate, ratio, target, type Row } from './table.js';

const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json' };

function clusterFile(nodes: number, gpus: boolean): string {
  const file = joinPath(freshDir('dra-cluster'), 'cluster.yaml');
  const gpu = gpus ? ', gpu: { model: h100-80gb, count: 8 }' : '';
  writeFileSync(file, `controlPlane: false\nnodePools:\n  - { name: bench, count: ${nodes}, cpu: 64, memory: 512Gi, pods: 110${gpu} }\n`);
  return file;
}

async function count(p: Pool, path: string): Promise<number> {
  const res = await p.request({ method: 'GET', path, headers: jsonHeaders });
  const body = JSON.parse(await res.body.text()) as { items?: unknown[] };
  return body.items?.length ?? 0;
}

async function until(t0: number, timeoutMs: number, what: string, done: () => Promise<boolean>): Promise<number> {
  for (;;) {
    if (await done()) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

const template = {
  apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name: 'one-gpu' },
  spec: { spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.bonsai.dev' } }] } } },
};

const podBody = (claims: boolean) => (name: string): string => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: {
    ...(claims ? { resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'one-gpu' }] } : {}),
    containers: [{ name: 'cuda', image: 'registry.k8s.io/pause:3.10', ...(claims ? { resources: { claims: [{ name: 'gpu' }] } } : {}) }],
  },
});

/** Creates `pods` pods (with a claim each, or plain) on `nodes` nodes; ms from the first create to all bound and all Running. */
async function run(nodes: number, pods: number, claims: boolean): Promise<{ boundMs: number; runningMs: number }> {
  const proc = spawnServer('bonsai', ':memory:', ['--addons', '', '--cluster', clusterFile(nodes, claims)]);
  try {
    const p = pool(await proc.ready, 16);
    try {
      await until(performance.now(), 300_000, `${nodes} nodes registered`, async () => (await count(p, '/api/v1/nodes')) >= nodes);
      if (claims) {
        await until(performance.now(), 300_000, `${nodes} GPU pools published`, async () => (await count(p, '/apis/resource.k8s.io/v1/resourceslices')) >= nodes);
        const res = await p.request({ method: 'POST', path: '/apis/resource.k8s.io/v1/namespaces/default/resourceclaimtemplates', headers: jsonHeaders, body: JSON.stringify(template) });
        await res.body.text();
      }
      const t0 = performance.now();
      await createMany(p, 'gpu', pods, 16, podBody(claims));
      const boundMs = await until(t0, 600_000, 'every pod bound', async () => (await count(p, '/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3D')) === 0);
      const runningMs = await until(t0, 600_000, 'every pod Running', async () => (await count(p, '/api/v1/namespaces/default/pods?fieldSelector=status.phase%21%3DRunning')) === 0);
      return { boundMs, runningMs };
    } finally {
      await p.close();
    }
  } finally {
    await proc.stop();
  }
}

export async function draRows(quick: boolean, log: (s: string) => void): Promise<Row[]> {
  const pods = quick ? 100 : 1000;
  const small = quick ? 13 : 125;
  const large = quick ? 100 : 1000;
  log(`17b. DRA: ${pods} pods with a one-GPU claim each on ${small} nodes of 8 GPUs (16 clients create; first create to all Running)`);
  const fill = await run(small, pods, true);
  log(`   all bound after ${ms(fill.boundMs)}, all Running after ${ms(fill.runningMs)}`);
  log(`17c. DRA scheduler throughput at ${large} nodes: ${pods} pods with claims, then ${pods} plain pods`);
  const withClaims = await run(large, pods, true);
  const plain = await run(large, pods, false);
  const claimRate = pods / (withClaims.boundMs / 1000);
  const plainRate = pods / (plain.boundMs / 1000);
  log(`   with claims ${rate(claimRate)} (bound after ${ms(withClaims.boundMs)}), plain ${rate(plainRate)} (bound after ${ms(plain.boundMs)})`);
  return [
    { figure: `17b. ${pods} pods with a one-GPU claim on ${small} nodes of 8 GPUs, to all Running`, value: ms(fill.runningMs), baseline: '-', verdict: target(fill.runningMs < 5000, 'target < 5 s') },
    {
      figure: `17c. pods bound/s with one-GPU claims, ${pods} pods on ${large} GPU nodes`, value: rate(claimRate), baseline: rate(plainRate),
      verdict: join(ratio(claimRate, plainRate), target(claimRate >= 0.5 * plainRate, 'target >= 0.5x plain pods')),
    },
  ];
}
