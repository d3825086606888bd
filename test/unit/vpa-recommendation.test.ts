// The VPA recommendation math: histogram buckets and percentiles, decay, memory peaks per interval, the safety
// margin, the confidence multiplier that widens the bounds while history is short, per-pod minimums split between
// containers, quantity rendering, and the updater's priority rules.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { DecayingHistogram, cpuHistogramOptions, memoryHistogramOptions } from '../../src/addons/vpa/histogram.js';
import { AggregateState } from '../../src/addons/vpa/aggregate.js';
import { confidence, defaultRecommenderConfig, estimatePod } from '../../src/addons/vpa/estimator.js';
import { amountsOf, formatAmount, maxAmount } from '../../src/addons/vpa/amounts.js';
import { podPriority, shouldUpdate } from '../../src/addons/vpa/priority.js';
import { disruptable } from '../../src/addons/vpa/restriction.js';
import { parseVpaSettings } from '../../src/addons/vpa/settings.js';

const minute = 60_000;
const day = 24 * 60 * minute;
const both = () => ['cpu', 'memory'] as const;

function fed(cores: number, bytes: number, samples: number, everyMs = minute): AggregateState {
  const s = new AggregateState();
  for (let i = 0; i < samples; i++) {
    s.addCpu(cores, i * everyMs);
    s.addMemory('pod/app', bytes, i * everyMs);
  }
  return s;
}

describe('VPA histograms', () => {
  it('has upstream bucket layout: 176 buckets, 1% first bucket, 5% growth', () => {
    const h = new DecayingHistogram(cpuHistogramOptions, day);
    assert.equal(h.buckets, 176);
    assert.equal(h.findBucket(0.005), 0);
    assert.equal(h.findBucket(0.5), 25);
    assert.ok(Math.abs(h.bucketStart(26) - 0.5111) < 1e-3);
    assert.equal(new DecayingHistogram(memoryHistogramOptions, day).buckets, 176);
  });

  it('answers the end of the bucket a percentile falls in; empty answers 0', () => {
    const h = new DecayingHistogram(cpuHistogramOptions, day);
    assert.equal(h.percentile(0.9), 0);
    for (let i = 0; i < 9; i++) h.addSample(0.1, 1, 0);
    h.addSample(2, 1, 0);
    assert.equal(h.percentile(0.5), h.bucketStart(h.findBucket(0.1) + 1));
    assert.equal(h.percentile(0.95), h.bucketStart(h.findBucket(2) + 1));
  });

  it('weights recent samples more: one half-life later a sample counts twice', () => {
    const h = new DecayingHistogram(cpuHistogramOptions, day);
    h.addSample(0.1, 1, 0);
    h.addSample(1, 1, day);
    // Weights 1 and 2: the median is in the later sample's bucket.
    assert.equal(h.percentile(0.5), h.bucketStart(h.findBucket(1) + 1));
    // Far in the future the reference shifts without overflow.
    h.addSample(1, 1, 200 * day);
    assert.ok(Number.isFinite(h.percentile(0.5)));
  });

  it('keeps one memory peak per instance and interval, replacing a smaller one', () => {
    const s = new AggregateState();
    s.addMemory('a', 100e6, 0);
    s.addMemory('a', 300e6, minute);
    s.addMemory('a', 200e6, 2 * minute);
    const h = s.memoryPeaks;
    assert.equal(h.percentile(1), h.bucketStart(h.findBucket(300e6) + 1));
    assert.equal(h.percentile(0.01), h.bucketStart(h.findBucket(300e6) + 1), 'the 100MB peak was replaced');
  });
});

describe('VPA estimates', () => {
  it('target is the 90th percentile plus 15%; memory at least 250Mi', () => {
    const est = estimatePod(new Map([['app', fed(0.5, 50e6, 10)]]), both).get('app')!;
    assert.equal(est.target.cpu, Math.round(cpuHistogramOptions.firstBucketSize * (1.05 ** 26 - 1) / 0.05 * 1000 * 1.15));
    assert.equal(est.target.memory, 250 * 1024 * 1024);
    assert.equal(formatAmount('cpu', est.target.cpu!), '588m');
    assert.equal(formatAmount('memory', est.target.memory!), '250Mi');
  });

  it('confidence is the lesser of the span in days and the samples per day of minutes', () => {
    assert.equal(confidence(fed(1, 1e8, 1), day), 0);
    assert.ok(Math.abs(confidence(fed(1, 1e8, 1441), day) - 1) < 1e-9);
    assert.ok(Math.abs(confidence(fed(1, 1e8, 11, 10 * minute), day) - 11 / 1440) < 1e-9);
  });

  it('bounds start wide and close in as history grows', () => {
    const first = estimatePod(new Map([['app', fed(0.5, 50e6, 1)]]), both).get('app')!;
    assert.equal(first.upperBound.cpu, maxAmount, 'no history: no upper bound');
    assert.equal(first.lowerBound.cpu, 25, 'no history: the minimum');
    const short = estimatePod(new Map([['app', fed(0.5, 50e6, 5)]]), both).get('app')!;
    const long = estimatePod(new Map([['app', fed(0.5, 50e6, 3 * 1440)]]), both).get('app')!;
    assert.ok(short.lowerBound.cpu! < long.lowerBound.cpu!);
    assert.ok(short.upperBound.cpu! > long.upperBound.cpu!);
    assert.ok(long.lowerBound.cpu! <= long.target.cpu! && long.target.cpu! <= long.upperBound.cpu!);
    // Three days of history: lowerBound = base * (1 + 0.001/3)^-2, upperBound = base * (1 + 1/3).
    const base = Math.round(0.5111 * 1000 * 1.15);
    assert.ok(Math.abs(long.upperBound.cpu! - base * 4 / 3) < 3, String(long.upperBound.cpu));
  });

  it('splits the pod minimums between containers and keeps only controlled resources', () => {
    const idle = () => fed(0.001, 1e6, 10);
    const est = estimatePod(new Map([['a', idle()], ['b', idle()]]), (n) => (n === 'a' ? ['cpu'] : ['cpu', 'memory']));
    assert.deepEqual(est.get('a')!.target, { cpu: 13 });
    assert.equal(est.get('b')!.target.memory, 125 * 1024 * 1024);
  });

  it('honours a configured safety margin and minimums', () => {
    const config = { ...defaultRecommenderConfig, safetyMarginFraction: 0, podMinCpuMillicores: 1000 };
    const est = estimatePod(new Map([['app', fed(0.5, 50e6, 10)]]), both, config).get('app')!;
    assert.equal(est.target.cpu, 1000);
  });
});

describe('VPA amounts and updater rules', () => {
  it('renders quantities as resource.Quantity does', () => {
    assert.equal(formatAmount('cpu', 1000), '1');
    assert.equal(formatAmount('cpu', 1500), '1500m');
    assert.equal(formatAmount('memory', 262144000), '250Mi');
    assert.equal(formatAmount('memory', 262144001), '262144001');
    assert.deepEqual(amountsOf({ cpu: '0.5', memory: '1Gi', 'nvidia.com/gpu': '1' }), { cpu: 500, memory: 2 ** 30 });
    assert.deepEqual(amountsOf(JSON.parse('{"__proto__": {"cpu": "1"}}')), {});
  });

  const pod = (cpu: string | undefined, startTime = '2026-01-01T00:00:00Z'): Pod => ({
    metadata: { name: 'p' }, status: { startTime },
    spec: { containers: [{ name: 'app', image: 'x', resources: cpu ? { requests: { cpu } } : {} }] },
  });
  const rec = [{ containerName: 'app', target: { cpu: 500 }, lowerBound: { cpu: 300 }, upperBound: { cpu: 900 } }];

  it('updates pods outside the bounds at once, inside only when old and changed enough', () => {
    const now = Date.parse('2026-01-01T01:00:00Z');
    const low = podPriority(pod('100m'), rec);
    assert.deepEqual(low, { outsideRecommendedRange: true, scaleUp: true, resourceDiff: 4 });
    assert.ok(shouldUpdate(low, pod('100m'), now, 12 * 3600_000, 0.1));
    const inside = podPriority(pod('400m'), rec);
    assert.equal(inside.outsideRecommendedRange, false);
    assert.ok(!shouldUpdate(inside, pod('400m'), now, 12 * 3600_000, 0.1), 'young pod');
    assert.ok(shouldUpdate(inside, pod('400m'), now + day, 12 * 3600_000, 0.1), 'old pod, 25% change');
    assert.ok(!shouldUpdate(podPriority(pod('480m'), rec), pod('480m'), now + day, 12 * 3600_000, 0.1), 'old pod, 4% change');
    assert.equal(podPriority(pod(undefined), rec).outsideRecommendedRange, true, 'no request');
  });

  it('lets at most the tolerance of a group be down', () => {
    const s = { configured: 4, evictionTolerance: 2, running: 4, evicted: 0, inPlaceStarted: 0 };
    assert.ok(disruptable(s));
    assert.ok(disruptable({ ...s, evicted: 1 }));
    assert.ok(!disruptable({ ...s, evicted: 2 }));
    const two = { configured: 2, evictionTolerance: 1, running: 2, evicted: 0, inPlaceStarted: 0 };
    assert.ok(disruptable(two));
    assert.ok(!disruptable({ ...two, inPlaceStarted: 1 }));
    assert.ok(disruptable({ configured: 1, evictionTolerance: 0, running: 1, evicted: 0, inPlaceStarted: 0 }));
  });

  it('validates settings as hostile input', () => {
    const { settings, warnings } = parseVpaSettings({ recommenderIntervalSeconds: 5, minReplicas: -1, evictionTolerance: 'x', bogus: 1, __proto__: { updaterIntervalSeconds: 1 } });
    assert.equal(settings.recommenderIntervalMs, 5000);
    assert.equal(settings.updaterIntervalMs, 60_000);
    assert.equal(settings.minReplicas, 2);
    assert.deepEqual(warnings.sort(), ['addons.vpa.bogus: unknown field', 'addons.vpa.evictionTolerance: must be a number from 0 to 1', 'addons.vpa.minReplicas: must be a number from 1 to 1000000'].sort());
    assert.deepEqual(parseVpaSettings([1]).warnings, ['addons.vpa: must be a mapping']);
  });
});
