// The HPA replica calculator: utilization and average-value targets, tolerance, and the handling of pending,
// unready, missing and terminating pods.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { groupPods, podRequests, replicasForAverageValue, replicasForUtilization, type CalcOptions, type PodMetrics } from '../../src/controllers/hpa/replica-calculator.js';
import { formatMilli } from '../../src/controllers/hpa/resource-metrics.js';

const now = Date.UTC(2026, 0, 1, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const opts: CalcOptions = { tolerance: 0.1, cpuInitializationPeriodMs: 300_000, delayOfInitialReadinessStatusMs: 30_000, nowMs: now };

interface PodOpts {
  phase?: string;
  ready?: boolean;
  /** ms before now the pod started */
  startedAgo?: number;
  /** ms before now the Ready condition last changed */
  readySince?: number;
  cpu?: string;
  deleting?: boolean;
}

function pod(name: string, o: PodOpts = {}): Pod {
  const started = now - (o.startedAgo ?? 600_000);
  return {
    metadata: { name, namespace: 'default', labels: { app: 'web' }, ...(o.deleting ? { deletionTimestamp: iso(now) } : {}) },
    spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: o.cpu === '' ? {} : { cpu: o.cpu ?? '1' } } }] },
    status: {
      phase: o.phase ?? 'Running', startTime: iso(started),
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', lastTransitionTime: iso(now - (o.readySince ?? 500_000)) }],
    },
  };
}

/** Metrics sampled 10 s ago over a 15 s window. */
function metrics(values: Record<string, number>): PodMetrics {
  return new Map(Object.entries(values).map(([k, v]) => [k, { value: v, timestampMs: now - 10_000, windowMs: 15_000 }]));
}

const util = (current: number, target: number, pods: Pod[], m: PodMetrics) => replicasForUtilization(current, target, 'cpu', pods, m, podRequests(pods, 'cpu'), opts);

describe('HPA replica calculator: utilization targets', () => {
  it('scales up to ceil(ratio x ready pods) and reports integer utilization and the raw average', () => {
    const pods = [pod('a'), pod('b'), pod('c')];
    const p = util(3, 30, pods, metrics({ a: 300, b: 500, c: 700 }));
    assert.equal(p.utilization, 50);
    assert.equal(p.rawAverage, 500);
    assert.equal(p.replicas, 5); // 50/30 * 3 = 5
  });

  it('keeps the count when the ratio is within the 10% tolerance', () => {
    const pods = [pod('a'), pod('b')];
    assert.equal(util(2, 48, pods, metrics({ a: 500, b: 500 })).replicas, 2);
    assert.equal(util(2, 44, pods, metrics({ a: 500, b: 500 })).replicas, 3); // 50/44 = 1.136
  });

  it('scales down, and counts a pod without metrics as using its full request on the way down', () => {
    const three = [pod('a'), pod('b'), pod('c')];
    assert.equal(util(3, 50, three, metrics({ a: 100, b: 100, c: 100 })).replicas, 1);
    const four = [...three, pod('d')];
    // Without d the ratio is 0.2 (1 replica); with d at 100% it is 1300/4000 = 32% of 50 -> ceil(0.64 x 4) = 3.
    assert.equal(util(4, 50, four, metrics({ a: 100, b: 100, c: 100 })).replicas, 3);
  });

  it('treats unready pods as idle on a scale-up instead of using their samples', () => {
    const pods = [pod('a'), pod('b'), pod('c', { ready: false, startedAgo: 60_000, readySince: 55_000 })];
    // Counting c's 2000m would ask for 8; c at 0 gives 2000/3000 = 66% of 50 -> ceil(1.32 x 3) = 4.
    assert.equal(util(3, 50, pods, metrics({ a: 1000, b: 1000, c: 2000 })).replicas, 4);
  });

  it('ignores pending pods, skips terminating and failed pods, and refuses to act with no ready pod', () => {
    const pods = [pod('a'), pod('p', { phase: 'Pending' }), pod('t', { deleting: true }), pod('f', { phase: 'Failed' })];
    const g = groupPods(pods, metrics({ a: 100, t: 100, f: 100 }), 'cpu', opts);
    assert.deepEqual({ ready: g.readyPodCount, ignored: [...g.ignored], missing: [...g.missing], skipped: [...g.skipped] }, { ready: 1, ignored: ['p'], missing: [], skipped: ['t', 'f'] });
    // A terminating pod's sample does not count, and it is not taken as idle on a scale-up either.
    assert.equal(util(2, 50, [pod('a'), pod('b'), pod('t', { deleting: true })], metrics({ a: 1000, b: 1000, t: 0 })).replicas, 4);
    assert.throws(() => util(1, 50, [pod('p', { phase: 'Pending' })], metrics({ p: 100 })), /did not receive metrics for any ready pods/);
    assert.throws(() => util(1, 50, [], metrics({})), /no pods returned by selector while calculating replica count/);
  });

  it('ignores CPU samples that do not yet cover a full window since the pod became ready (during initialization)', () => {
    const fresh = pod('n', { startedAgo: 60_000, readySince: 20_000 }); // ready 20 s ago; sample 10 s ago, 15 s window
    assert.ok(groupPods([fresh], metrics({ n: 100 }), 'cpu', opts).ignored.has('n'));
    const settled = pod('s', { startedAgo: 60_000, readySince: 40_000 });
    assert.equal(groupPods([settled], metrics({ s: 100 }), 'cpu', opts).readyPodCount, 1);
    // Memory samples are never ignored for readiness.
    assert.equal(groupPods([fresh], metrics({ n: 100 }), 'memory', opts).readyPodCount, 1);
  });

  it('after initialization ignores only pods that never became ready', () => {
    const never = pod('x', { ready: false, startedAgo: 600_000, readySince: 590_000 }); // unready 10 s after start
    const lost = pod('y', { ready: false, startedAgo: 600_000, readySince: 100_000 }); // was ready, then lost it
    const g = groupPods([never, lost], metrics({ x: 1, y: 1 }), 'cpu', opts);
    assert.deepEqual([...g.ignored], ['x']);
    assert.equal(g.readyPodCount, 1);
  });

  it('names the container and pod that lack a request', () => {
    assert.throws(() => podRequests([pod('a', { cpu: '' })], 'cpu'), { message: 'missing request for cpu in container app of Pod a' });
    assert.deepEqual([...podRequests([pod('a', { cpu: '250m' })], 'cpu')], [['a', 250]]);
  });
});

describe('HPA replica calculator: average value targets', () => {
  it('divides the average per pod by the target', () => {
    const pods = [pod('a'), pod('b')];
    const p = replicasForAverageValue(2, 100, 'cpu', pods, metrics({ a: 200, b: 400 }), opts);
    assert.deepEqual({ replicas: p.replicas, avg: p.rawAverage }, { replicas: 6, avg: 300 });
    assert.equal(replicasForAverageValue(2, 290, 'cpu', pods, metrics({ a: 200, b: 400 }), opts).replicas, 2);
  });

  it('formats milli-values as DecimalSI quantities', () => {
    assert.deepEqual([250, 1000, 1500, 64_000_000_000, 0].map(formatMilli), ['250m', '1', '1500m', '64M', '0']);
  });
});
