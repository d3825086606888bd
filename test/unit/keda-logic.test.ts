// KEDA's decisions as pure functions: the ScaledObject executor (activation 0 -> min/1, deactivation after the
// cooldown or initialCooldownPeriod, idleReplicaCount, paused annotations, errors and fallback), replica bounds and
// trigger validation, the HPA it builds, and the ScaledJob arithmetic (queue length, multipleScalersCalculation,
// the default, custom, accurate and eager strategies).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decide, type DecisionInput } from '../../src/addons/keda/executor.js';
import { replicaBoundsError, scaledObjectSpec, triggersError, pausedReplicas } from '../../src/addons/keda/spec.js';
import { derivative, desiredHpa } from '../../src/addons/keda/hpa.js';
import { combine, effectiveMaxScale, jobsToCreate, queueOf } from '../../src/addons/keda/job-strategy.js';
import type { ScaledObject } from '../../src/addons/keda/types.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const input = (spec: Record<string, unknown>, rest: Partial<DecisionInput>): DecisionInput => ({
  spec: scaledObjectSpec({ scaleTargetRef: { name: 'web' }, triggers: [{ type: 'cron' }], ...spec }), annotations: undefined,
  currentReplicas: 0, isActive: false, isError: false, creationMs: T0, nowMs: T0 + 1000, ...rest,
});
const cond = (d: ReturnType<typeof decide>, type: string) => d.conditions.filter((c) => c.type === type).at(-1);

describe('KEDA ScaledObject executor', () => {
  it('activates from zero to max(minReplicaCount, 1) and only touches lastActiveTime when already up', () => {
    let d = decide(input({ minReplicaCount: 0 }, { isActive: true }));
    assert.deepEqual([d.scaleTo, d.kind, d.touchActive], [1, 'activate', true]);
    assert.deepEqual(cond(d, 'Active'), { type: 'Active', status: 'True', reason: 'ScalerActive', message: 'Scaling is performed because triggers are active' });
    d = decide(input({ minReplicaCount: 3 }, { isActive: true }));
    assert.equal(d.scaleTo, 3);
    d = decide(input({ minReplicaCount: 0 }, { isActive: true, currentReplicas: 4 }));
    assert.deepEqual([d.scaleTo, d.touchActive], [undefined, true]);
    d = decide(input({ minReplicaCount: 0 }, { isActive: true, currentReplicas: 4, isError: true }));
    assert.deepEqual(cond(d, 'Ready'), { type: 'Ready', status: 'Unknown', reason: 'PartialTriggerError', message: 'Some triggers defined in ScaledObject are not working correctly' });
    d = decide(input({ minReplicaCount: 0 }, { annotations: { 'autoscaling.keda.sh/force-activation': 'true' } }));
    assert.equal(d.scaleTo, 1);
  });

  it('deactivates to zero only after cooldownPeriod since lastActiveTime (initialCooldownPeriod before any)', () => {
    const spec = { minReplicaCount: 0, cooldownPeriod: 60, initialCooldownPeriod: 120 };
    let d = decide(input(spec, { currentReplicas: 2, lastActiveMs: T0, nowMs: T0 + 59_000 }));
    assert.equal(d.scaleTo, undefined);
    assert.deepEqual(cond(d, 'Active'), { type: 'Active', status: 'False', reason: 'ScalerCooldown', message: 'Scaler cooling down because triggers are not active' });
    d = decide(input(spec, { currentReplicas: 2, lastActiveMs: T0, nowMs: T0 + 61_000 }));
    assert.deepEqual([d.scaleTo, d.kind], [0, 'deactivate']);
    d = decide(input(spec, { currentReplicas: 2, nowMs: T0 + 100_000 }));
    assert.equal(d.scaleTo, undefined);
    d = decide(input(spec, { currentReplicas: 2, nowMs: T0 + 121_000 }));
    assert.equal(d.scaleTo, 0);
    // Default cooldown 300 s.
    assert.equal(decide(input({ minReplicaCount: 0 }, { currentReplicas: 1, lastActiveMs: T0, nowMs: T0 + 299_000 })).scaleTo, undefined);
    assert.equal(decide(input({ minReplicaCount: 0 }, { currentReplicas: 1, lastActiveMs: T0, nowMs: T0 + 301_000 })).scaleTo, 0);
  });

  it('idleReplicaCount: idle when inactive, min when active again; min enforced without idle', () => {
    const spec = { idleReplicaCount: 0, minReplicaCount: 2, cooldownPeriod: 0 };
    assert.deepEqual(decide(input(spec, { currentReplicas: 3, lastActiveMs: T0, nowMs: T0 + 1000 })).scaleTo, 0);
    assert.deepEqual(decide(input(spec, { currentReplicas: 0, isActive: true })).scaleTo, 2);
    const d = decide(input({ minReplicaCount: 2 }, { currentReplicas: 1 }));
    assert.deepEqual([d.scaleTo, d.kind], [2, 'min']);
    assert.equal(decide(input({ minReplicaCount: 2 }, { currentReplicas: 3 })).scaleTo, undefined);
  });

  it('paused annotations, errors without and with fallback', () => {
    assert.equal(decide(input({}, { isActive: true, annotations: { 'autoscaling.keda.sh/paused': 'true' } })).paused, true);
    assert.equal(decide(input({}, { isActive: true, annotations: { 'autoscaling.keda.sh/paused': 'false' } })).paused, false);
    assert.equal(decide(input({}, { isActive: true, annotations: { 'autoscaling.keda.sh/paused': 'yes please' } })).paused, true);
    assert.equal(decide(input({}, { isActive: true, annotations: { 'autoscaling.keda.sh/paused-replicas': '0' } })).paused, true);
    assert.equal(decide(input({}, { isActive: true, annotations: { 'autoscaling.keda.sh/paused-scale-out': 'true' } })).scaleTo, undefined);
    assert.equal(decide(input({ minReplicaCount: 0, cooldownPeriod: 0 }, { currentReplicas: 2, lastActiveMs: T0, annotations: { 'autoscaling.keda.sh/paused-scale-in': 'true' } })).scaleTo, undefined);
    let d = decide(input({ minReplicaCount: 0 }, { isError: true, currentReplicas: 2 }));
    assert.deepEqual(cond(d, 'Ready'), { type: 'Ready', status: 'False', reason: 'TriggerError', message: 'Triggers defined in ScaledObject are not working correctly' });
    assert.equal(d.scaleTo, undefined);
    d = decide(input({ minReplicaCount: 0, fallback: { failureThreshold: 3, replicas: 5 } }, { isError: true, currentReplicas: 2 }));
    assert.deepEqual([cond(d, 'Ready')?.status, d.scaleTo], ['True', undefined]);
    assert.deepEqual(pausedReplicas({ 'autoscaling.keda.sh/paused-replicas': 'x' }), { present: true, error: 'strconv.ParseInt: parsing "x": invalid syntax' });
  });

  it('replica bounds and triggers are validated with upstream\'s texts', () => {
    const s = (spec: Record<string, unknown>) => scaledObjectSpec({ scaleTargetRef: { name: 'w' }, triggers: [{ type: 'cron' }], ...spec });
    assert.equal(replicaBoundsError(s({ minReplicaCount: 5, maxReplicaCount: 2 })), 'MinReplicaCount=5 must be less than MaxReplicaCount=2');
    assert.equal(replicaBoundsError(s({ minReplicaCount: 2, idleReplicaCount: 2 })), 'IdleReplicaCount=2 must be less than MinReplicaCount=2');
    assert.equal(replicaBoundsError(s({ minReplicaCount: 0, maxReplicaCount: 3 })), undefined);
    assert.match(triggersError(s({ triggers: [{ type: 'memory' }] })) ?? '', /only cpu\/memory triggers AND minReplica is 0/);
    assert.equal(triggersError(s({ minReplicaCount: 1, triggers: [{ type: 'memory' }] })), undefined);
    assert.match(triggersError(s({ triggers: [{ type: 'cron', name: 'a' }, { type: 'cron', name: 'a' }] })) ?? '', /defined multiple times/);
    // Hostile spec: wrong types and prototype keys are ignored, never trusted.
    const odd = scaledObjectSpec(JSON.parse('{"scaleTargetRef":{"name":7},"pollingInterval":"5","triggers":[{"type":"cron","metadata":{"__proto__":"x"}}],"__proto__":{"minReplicaCount":9}}'));
    assert.deepEqual([odd.target.name, odd.pollingIntervalS, odd.minReplicaCount, [...odd.triggers[0].metadata.keys()]], ['', 30, undefined, ['__proto__']]);
  });

  it('the HPA: name, labels, min max(min, 1), behavior with paused scale-in disabled', () => {
    const so = { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', metadata: { name: 'web', namespace: 'ns', uid: 'u1', labels: { team: 'a', secret: 'b' }, annotations: { 'scaledobject.keda.sh/hpa-excluded-labels': 'secret', 'autoscaling.keda.sh/paused-scale-in': 'true' } } } as ScaledObject;
    const spec = scaledObjectSpec({ scaleTargetRef: { name: 'web' }, minReplicaCount: 0, maxReplicaCount: 7, advanced: { horizontalPodAutoscalerConfig: { name: 'custom', behavior: { scaleUp: { stabilizationWindowSeconds: 0 } } } }, triggers: [] });
    const hpa = desiredHpa(so, spec, { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' }, [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
      { type: 'External', external: { metric: { name: 's1-x' }, target: { type: 'AverageValue', averageValue: '2' } } },
    ]) as Record<string, any>;
    assert.equal(hpa.metadata.name, 'custom');
    assert.deepEqual(hpa.metadata.labels, { 'app.kubernetes.io/name': 'custom', 'app.kubernetes.io/version': '2.18.0', 'app.kubernetes.io/part-of': 'web', 'app.kubernetes.io/managed-by': 'keda-operator', team: 'a' });
    assert.deepEqual([hpa.spec.minReplicas, hpa.spec.maxReplicas], [1, 7]);
    assert.deepEqual(hpa.spec.metrics.map((m: any) => m.type), ['External', 'Resource']);
    assert.deepEqual(hpa.spec.metrics[0].external.metric.selector, { matchLabels: { 'scaledobject.keda.sh/name': 'web' } });
    assert.deepEqual(hpa.spec.behavior, { scaleUp: { stabilizationWindowSeconds: 0 }, scaleDown: { selectPolicy: 'Disabled' } });
    assert.deepEqual(hpa.spec.scaleTargetRef, { name: 'web', kind: 'Deployment', apiVersion: 'apps/v1' });
    assert.equal(derivative({ a: 1, b: { c: [1] } }, { a: 1, b: { c: [1], d: 2 }, e: 3 }), true);
    assert.equal(derivative({ a: '2' }, { a: '2000m' }), true);
    assert.equal(derivative({ a: [1] }, { a: [1, 2] }), false);
  });
});

describe('KEDA ScaledJob arithmetic', () => {
  it('queue length over the target, capped at maxReplicaCount, combined across scalers', () => {
    assert.deepEqual(queueOf(7, 2, 10, true), { queueLength: 7, maxValue: 3.5, isActive: true });
    assert.deepEqual(queueOf(70, 2, 10, true).maxValue, 10);
    const qs = [queueOf(3, 1, 10, true), queueOf(5, 1, 10, true), queueOf(9, 1, 10, false)];
    assert.deepEqual(combine(qs, '', 0, 10), { isActive: true, queueLength: 5, maxValue: 5 });
    assert.deepEqual(combine(qs, 'min', 0, 10), { isActive: true, queueLength: 3, maxValue: 3 });
    assert.deepEqual(combine(qs, 'avg', 0, 10), { isActive: true, queueLength: 4, maxValue: 4 });
    assert.deepEqual(combine(qs, 'sum', 0, 6), { isActive: true, queueLength: 8, maxValue: 6 });
    assert.deepEqual(combine([queueOf(0, 1, 10, false)], '', 0, 10), { isActive: false, queueLength: 0, maxValue: 0 });
    assert.equal(combine([queueOf(0, 1, 10, false)], '', 2, 10).isActive, true);
  });

  it('the strategies: default, custom, accurate, eager', () => {
    assert.deepEqual(effectiveMaxScale({ strategy: 'default' }, 10, 3, 0, 10, 10), [7, 10]);
    assert.deepEqual(effectiveMaxScale({ strategy: 'custom', customScalingQueueLengthDeduction: 1, customScalingRunningJobPercentage: '0.5' }, 10, 4, 0, 20, 10), [7, 10]);
    assert.deepEqual(effectiveMaxScale({ strategy: 'custom', customScalingRunningJobPercentage: 'lots' }, 10, 4, 0, 20, 10), [6, 10]);
    assert.deepEqual(effectiveMaxScale({ strategy: 'accurate' }, 8, 5, 1, 10, 8), [5, 8]);
    assert.deepEqual(effectiveMaxScale({ strategy: 'accurate' }, 4, 2, 1, 10, 4), [3, 4]);
    assert.deepEqual(effectiveMaxScale({ strategy: 'eager' }, 3, 2, 1, 10, 3), [3, 10]);
    // One Job per queued item up to the max: 3 queued, none running -> 3; 10 queued with 3 running, max 5 -> 2 more.
    assert.equal(jobsToCreate({ strategy: 'default' }, 0, 5, 0, 0, 3, 3, true), 3);
    assert.equal(jobsToCreate({ strategy: 'default' }, 0, 5, 3, 0, 10, 5, true), 2);
    assert.equal(jobsToCreate({ strategy: 'default' }, 0, 5, 5, 0, 10, 5, true), 0);
    assert.equal(jobsToCreate({ strategy: 'default' }, 0, 5, 0, 0, 3, 3, false), 0);
    assert.equal(jobsToCreate({ strategy: 'default' }, 2, 5, 0, 0, 0, 0, true), 2);
  });
});
