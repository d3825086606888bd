// Scale figures of the controllers and the scheduler (issue 14, part 3): many Deployments becoming Available and
// rolled at once, and the scheduler's throughput at 5,000 nodes measured as upstream's scheduler_perf does (pods
// created ahead while the scheduler is held back, then scheduling timed alone) and end to end.
// The scheduler is held back by the ConfigMap kube-system/bonsai-scheduler with data.paused "true" (see
// src/scheduler/pause.ts): pods are created while it exists, and the clock starts when it is deleted.
import { performance } from 'node:perf_hooks';
import type { Pool } from 'undici';
import { createMany } from './load.js';
import { cpuSecondsOf, rssOf } from './proc.js';
import { rate, target, type Row } from './table.js';
import { call, deployment, rolloutComplete, until, withCluster } from './workloads.js';

type Json = Record<string, any>;
const deploymentsPath = '/apis/apps/v1/namespaces/default/deployments';
const pauseConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bonsai-scheduler', namespace: 'kube-system' }, data: { paused: 'true' } };

/** Runs `fn(i)` for i in [0, n) with `concurrency` workers. */
async function each(n: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export interface DeploymentsFigure {
  nodes: number;
  deployments: number;
  replicas: number;
  /** First POST to every Deployment Available with its rollout complete. */
  availableMs: number;
  /** First template PATCH to every rollout complete again. */
  rolledMs: number;
  /** CPU seconds the server used in each window (on a loaded machine the wall times stretch, these much less). */
  availableCpuS: number;
  rolledCpuS: number;
  rssMB: number;
  hwmMB: number;
}

/** `count` Deployments of `replicas` created by 16 clients to all Available; then all of them rolled (image change). */
export async function deploymentsAtScale(nodes: number, count: number, replicas: number, log: (msg: string) => void = () => {}): Promise<DeploymentsFigure> {
  return withCluster(nodes, 16, async (p, proc) => {
    const allDone = async () => {
      const items = (await call(p, 'GET', deploymentsPath)).items as Json[];
      return items.length >= count && items.every((d) => rolloutComplete(d) && (d.status?.conditions ?? []).some((c: Json) => c.type === 'Available' && c.status === 'True'));
    };
    const c0 = cpuSecondsOf(proc.pid);
    const t0 = performance.now();
    await each(count, 16, (i) => call(p, 'POST', deploymentsPath, deployment(`d-${i}`, replicas)));
    const availableMs = await until(t0, 1_200_000, `${count} deployments Available`, allDone);
    const c1 = cpuSecondsOf(proc.pid);
    log(`   ${count} x ${replicas} Available after ${(availableMs / 1000).toFixed(1)} s`);
    const t1 = performance.now();
    const patch = { spec: { template: { spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.9' }] } } } };
    await each(count, 16, (i) => call(p, 'PATCH', `${deploymentsPath}/d-${i}`, patch, 'application/strategic-merge-patch+json'));
    const rolledMs = await until(t1, 1_200_000, `${count} deployments rolled`, allDone);
    const c2 = cpuSecondsOf(proc.pid);
    log(`   rolled after ${(rolledMs / 1000).toFixed(1)} s (server CPU ${(c1 - c0).toFixed(1)} s and ${(c2 - c1).toFixed(1)} s)`);
    const { rssMB, hwmMB } = rssOf(proc.pid);
    return { nodes, deployments: count, replicas, availableMs, rolledMs, availableCpuS: c1 - c0, rolledCpuS: c2 - c1, rssMB, hwmMB };
  });
}

function schedPod(name: string, antiAffinity: boolean): string {
  // As scheduler_perf's pod-with-pod-anti-affinity template: every pod repels every other on its host.
  const affinity = antiAffinity
    ? { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { color: 'green' } }, topologyKey: 'kubernetes.io/hostname' }] } }
    : undefined;
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, labels: { app: 'sched', ...(antiAffinity ? { color: 'green' } : {}) } },
    spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }], ...(affinity ? { affinity } : {}) },
  });
}

async function unboundCount(p: Pool): Promise<number> {
  const list = await call(p, 'GET', '/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3D');
  return (list.items as unknown[]).length;
}

export interface SchedulerFigure {
  nodes: number;
  pods: number;
  antiAffinity: boolean;
  /** scheduler_perf style: pods created while the scheduler was held back, then released; release to all bound. */
  aheadMs: number;
  /** End to end: first create (16 clients, scheduler running) to all bound. */
  endToEndMs: number;
  /** Server CPU seconds in each window. */
  aheadCpuS: number;
  endToEndCpuS: number;
  rssMB: number;
}

/** Scheduler throughput at `nodes` nodes, both ways, on one server (the first batch deleted before the second). */
export async function schedulerAtScale(nodes: number, pods: number, antiAffinity: boolean, log: (msg: string) => void = () => {}): Promise<SchedulerFigure> {
  return withCluster(nodes, 16, async (p, proc) => {
    // (a) created ahead while held back.
    await call(p, 'POST', '/api/v1/namespaces/kube-system/configmaps', pauseConfigMap);
    await createMany(p, 'ahead', pods, 16, (name) => schedPod(name, antiAffinity));
    if ((await unboundCount(p)) !== pods) throw new Error('the scheduler bound pods while held back');
    const c0 = cpuSecondsOf(proc.pid);
    const t0 = performance.now();
    await p.request({ method: 'DELETE', path: '/api/v1/namespaces/kube-system/configmaps/bonsai-scheduler' }).then((r) => r.body.dump());
    const aheadMs = await until(t0, 1_200_000, 'every pod bound', async () => (await unboundCount(p)) === 0);
    const aheadCpuS = cpuSecondsOf(proc.pid) - c0;
    log(`   ${pods} pods created ahead bound in ${(aheadMs / 1000).toFixed(2)} s after the release (server CPU ${aheadCpuS.toFixed(2)} s)`);
    const del = await p.request({ method: 'DELETE', path: '/api/v1/namespaces/default/pods?labelSelector=app%3Dsched' });
    await del.body.dump();
    await until(performance.now(), 600_000, 'pods deleted', async () => ((await call(p, 'GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dsched')).items as unknown[]).length === 0);
    // (b) end to end.
    const c1 = cpuSecondsOf(proc.pid);
    const t1 = performance.now();
    await createMany(p, 'e2e', pods, 16, (name) => schedPod(name, antiAffinity));
    const endToEndMs = await until(t1, 1_200_000, 'every pod bound', async () => (await unboundCount(p)) === 0);
    const endToEndCpuS = cpuSecondsOf(proc.pid) - c1;
    log(`   ${pods} pods created and bound end to end in ${(endToEndMs / 1000).toFixed(2)} s (server CPU ${endToEndCpuS.toFixed(2)} s)`);
    return { nodes, pods, antiAffinity, aheadMs, endToEndMs, aheadCpuS, endToEndCpuS, rssMB: rssOf(proc.pid).rssMB };
  });
}

/** The rows of the scale section for controllers and scheduler (quick: a fifth of the sizes). */
export async function scaleWorkloadRows(opts: { quick: boolean; log?: (msg: string) => void }): Promise<Row[]> {
  const log = opts.log ?? ((msg: string) => console.log(msg));
  const f = opts.quick ? 5 : 1;
  const n = (v: number) => v.toLocaleString('en-US');
  const secs = (v: number) => `${(v / 1000).toFixed(1)} s`;
  const rows: Row[] = [];
  const dn = 1000 / f;
  log(`S1. ${n(dn)} Deployments x 10 replicas on ${n(dn)} nodes: Available, then all rolled (image change)`);
  const d = await deploymentsAtScale(dn, dn, 10, log);
  const scaled = opts.quick ? ' (a fifth of the envelope)' : '';
  rows.push({ figure: `S1. ${n(dn)} Deployments x 10 on ${n(dn)} nodes: all Available${scaled}`, value: secs(d.availableMs), baseline: '-', verdict: `${target(d.availableMs < 10_000, '< 10 s')}; server CPU ${d.availableCpuS.toFixed(1)} s` });
  rows.push({ figure: `S2. their simultaneous rolling update (image change) to complete`, value: secs(d.rolledMs), baseline: '-', verdict: `${target(d.rolledMs < 20_000, '< 20 s')}; server CPU ${d.rolledCpuS.toFixed(1)} s; RSS ${d.rssMB.toFixed(0)} MB (peak ${d.hwmMB.toFixed(0)} MB)` });
  const sn = 5000 / f;
  for (const anti of [false, true]) {
    const pods = anti ? Math.min(1000 / f, sn) : 5000 / f;
    const want = anti ? 100 : 1000;
    const what = anti ? 'pods with required anti-affinity' : 'plain pods';
    log(`S3. scheduler at ${n(sn)} nodes, ${n(pods)} ${what}: created ahead, then end to end`);
    const s = await schedulerAtScale(sn, pods, anti, log);
    const ahead = pods / (s.aheadMs / 1000);
    const e2e = pods / (s.endToEndMs / 1000);
    // Pods per server CPU second: what the rate would be with a core to itself (the kubelets' work included).
    const perCpu = (cpu: number) => `${rate(pods / cpu)} per server CPU s`;
    rows.push({ figure: `S3. scheduler, ${n(sn)} nodes, ${n(pods)} ${what} created ahead (scheduler_perf)`, value: rate(ahead), baseline: '-', verdict: `${target(ahead >= want, `>= ${n(want)} pods/s`)}; ${perCpu(s.aheadCpuS)}` });
    rows.push({ figure: `S4. scheduler, ${n(sn)} nodes, ${n(pods)} ${what} end to end (16 clients)`, value: rate(e2e), baseline: '-', verdict: `${target(e2e >= want, `>= ${n(want)} pods/s`)}; ${perCpu(s.endToEndCpuS)}; RSS ${s.rssMB.toFixed(0)} MB` });
  }
  return rows;
}
