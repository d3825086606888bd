// HPA normalization: stabilization windows, scaling policies (Pods/Percent, Max/Min/Disabled), the legacy limits
// without `behavior`, and the AbleToScale / ScalingLimited reasons each step reports.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { HorizontalPodAutoscalerBehavior } from '../../src/generated/k8s/autoscaling/v2.js';
import { newHistory, normalizeLegacy, normalizeWithBehavior, recordInitialRecommendation, recordScaleEvent, type ScalingHistory } from '../../src/controllers/hpa/behavior.js';

const t0 = Date.UTC(2026, 0, 1);
const s = (n: number) => t0 + n * 1000;
const defaults: HorizontalPodAutoscalerBehavior = {}; // scaleUp 4 pods / 100% per 15 s (Max), scaleDown 300 s window, 100% per 15 s

/** Runs one sync: normalize, and record the rescale as the controller does. */
function step(h: ScalingHistory, behavior: HorizontalPodAutoscalerBehavior, current: number, desired: number, at: number, min = 1, max = 100) {
  recordInitialRecommendation(h, current, at);
  const n = normalizeWithBehavior(h, { currentReplicas: current, desired, minReplicas: min, maxReplicas: max, nowMs: at }, behavior);
  recordScaleEvent(h, behavior, current, n.replicas, at);
  return n;
}

describe('HPA behavior: scale-up policies', () => {
  it('adds at most max(4 pods, 100%) per 15 s by default, counting what the period already added', () => {
    const h = newHistory();
    const first = step(h, defaults, 2, 20, s(0));
    assert.equal(first.replicas, 6);
    assert.deepEqual(first.limited, { status: 'True', reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' });
    assert.equal(step(h, defaults, 6, 20, s(5)).replicas, 6); // the period started at 2: 2+4 = 6, 2x2 = 4
    assert.equal(step(h, defaults, 6, 20, s(16)).replicas, 12); // a new period: 6x2 = 12
  });

  it('Min picks the smaller policy and Disabled keeps the count', () => {
    const policies = [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }];
    assert.equal(step(newHistory(), { scaleUp: { selectPolicy: 'Min', policies } }, 10, 50, s(0)).replicas, 14);
    const off = step(newHistory(), { scaleUp: { selectPolicy: 'Disabled', policies } }, 10, 50, s(0));
    assert.deepEqual([off.replicas, off.limited.reason], [10, 'ScaleUpLimit']);
  });

  it('caps at maxReplicas with TooManyReplicas', () => {
    const n = step(newHistory(), defaults, 4, 9, s(0), 1, 6);
    assert.deepEqual([n.replicas, n.limited.status, n.limited.reason], [6, 'True', 'TooManyReplicas']);
  });

  it('a scale-up stabilization window applies the lowest recent recommendation', () => {
    const b: HorizontalPodAutoscalerBehavior = { scaleUp: { stabilizationWindowSeconds: 60 } };
    const h = newHistory();
    step(h, b, 3, 3, s(0));
    const n = step(h, b, 3, 8, s(30));
    assert.deepEqual([n.replicas, n.ableToScale.reason], [3, 'ScaleUpStabilized']);
    assert.equal(step(h, b, 3, 8, s(61)).replicas, 7); // only the 8 of s(30) is in the window now; the rate allows 3+4 = 7
  });
});

describe('HPA behavior: scale-down', () => {
  it('holds the highest recommendation of the 300 s window, then drops to the proposal', () => {
    const h = newHistory();
    step(h, defaults, 6, 6, s(0));
    const held = step(h, defaults, 6, 2, s(60), 2);
    assert.equal(held.replicas, 6);
    assert.deepEqual(held.ableToScale, { reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' });
    const down = step(h, defaults, 6, 2, s(301), 2);
    assert.equal(down.replicas, 2);
    assert.equal(down.ableToScale.reason, 'ReadyForNewScale');
    assert.equal(down.limited.reason, 'DesiredWithinRange');
  });

  it('stops at minReplicas with TooFewReplicas', () => {
    const n = step(newHistory(), { scaleDown: { stabilizationWindowSeconds: 0 } }, 4, 1, s(0), 2);
    assert.deepEqual([n.replicas, n.limited.status, n.limited.reason, n.limited.message], [2, 'True', 'TooFewReplicas', 'the desired replica count is less than the minimum replica count']);
  });

  it('limits the rate by policy: Percent truncates and counts what the period already removed', () => {
    const pct: HorizontalPodAutoscalerBehavior = { scaleDown: { stabilizationWindowSeconds: 0, policies: [{ type: 'Percent', value: 50, periodSeconds: 60 }] } };
    const h = newHistory();
    const n = step(h, pct, 9, 1, s(0));
    assert.deepEqual([n.replicas, n.limited.reason], [4, 'ScaleDownLimit']); // trunc(9 x 0.5) = 4
    assert.equal(step(h, pct, 4, 1, s(30)).replicas, 4); // the 60 s period started at 9: 4 is already the limit
    assert.equal(step(h, pct, 4, 1, s(61)).replicas, 2);
  });

  it('Disabled scale-down never removes pods', () => {
    const n = step(newHistory(), { scaleDown: { stabilizationWindowSeconds: 0, selectPolicy: 'Disabled' } }, 5, 1, s(0));
    assert.deepEqual([n.replicas, n.limited.reason], [5, 'ScaleDownLimit']);
  });
});

describe('HPA without behavior (legacy limits)', () => {
  it('scales up to at most max(2x, 4) and keeps scale-downs for 5 minutes', () => {
    const h = newHistory();
    recordInitialRecommendation(h, 3, s(0));
    const up = normalizeLegacy(h, { currentReplicas: 3, desired: 10, minReplicas: 1, maxReplicas: 20, nowMs: s(0) });
    assert.deepEqual([up.replicas, up.limited.reason], [6, 'ScaleUpLimit']);
    // The window holds the unnormalized 10 proposed at s(0): upstream applies it even above the current 6.
    const held = normalizeLegacy(h, { currentReplicas: 6, desired: 2, minReplicas: 1, maxReplicas: 20, nowMs: s(120) });
    assert.deepEqual([held.replicas, held.ableToScale.reason], [10, 'ScaleDownStabilized']);
    const later = normalizeLegacy(h, { currentReplicas: 6, desired: 2, minReplicas: 1, maxReplicas: 20, nowMs: s(400) });
    assert.equal(later.replicas, 2);
    const floor = normalizeLegacy(newHistory(), { currentReplicas: 3, desired: 0, minReplicas: 2, maxReplicas: 5, nowMs: s(0) });
    assert.deepEqual([floor.replicas, floor.limited.reason], [2, 'TooFewReplicas']);
  });
});
