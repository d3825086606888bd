// Turning a metric proposal into the replica count to set: stabilization over recent recommendations, then the
// rate limits of the scaling policies (or, without `behavior`, the legacy limits: a 5-minute scale-down window
// and at most doubling, or 4 pods, per step), then minReplicas/maxReplicas. Each step reports the condition
// reason and message upstream sets for AbleToScale and ScalingLimited.
import type { HPAScalingRules, HorizontalPodAutoscalerBehavior } from '../../generated/k8s/autoscaling/v2.js';

export interface Recommendation {
  replicas: number;
  atMs: number;
}

export interface ScaleEvent {
  /** Replicas added (scale-up events) or removed (scale-down events). */
  change: number;
  atMs: number;
}

/** What the controller remembers of one HPA between syncs (upstream keeps it in memory too). */
export interface ScalingHistory {
  recommendations: Recommendation[];
  scaleUps: ScaleEvent[];
  scaleDowns: ScaleEvent[];
}

export const newHistory = (): ScalingHistory => ({ recommendations: [], scaleUps: [], scaleDowns: [] });

/** Upstream --horizontal-pod-autoscaler-downscale-stabilization. */
export const defaultDownscaleStabilizationMs = 5 * 60_000;
const scaleUpLimitFactor = 2;
const scaleUpLimitMinimum = 4;

export interface Reasoned {
  reason: string;
  message: string;
}

export interface Normalized {
  replicas: number;
  /** AbleToScale (status True) after stabilization. */
  ableToScale: Reasoned;
  /** ScalingLimited: True when the rate or the bounds changed the stabilized count. */
  limited: Reasoned & { status: 'True' | 'False' };
}

export interface NormalizeInput {
  currentReplicas: number;
  /** The metrics' proposal. */
  desired: number;
  minReplicas: number;
  maxReplicas: number;
  nowMs: number;
}

const readyForNewScale: Reasoned = { reason: 'ReadyForNewScale', message: 'recommended size matches current size' };
const withinRange: Reasoned = { reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
const scaleUpLimit: Reasoned = { reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' };
const scaleDownLimit: Reasoned = { reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' };
const tooMany: Reasoned = { reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
const tooFew: Reasoned = { reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
const downStabilized: Reasoned = { reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' };
const upStabilized: Reasoned = { reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' };

/** Remembers the current size as a first recommendation, so a new HPA does not scale down at once. */
export function recordInitialRecommendation(h: ScalingHistory, current: number, nowMs: number): void {
  if (h.recommendations.length === 0) h.recommendations.push({ replicas: current, atMs: nowMs });
}

function finish(stabilized: number, replicas: number, limit: Reasoned, ableToScale: Reasoned): Normalized {
  return { replicas, ableToScale, limited: { ...limit, status: replicas === stabilized ? 'False' : 'True' } };
}

/** Without `behavior`: the highest recommendation of the last 5 minutes, then the legacy scale-up limit and the bounds. */
export function normalizeLegacy(h: ScalingHistory, a: NormalizeInput, windowMs = defaultDownscaleStabilizationMs): Normalized {
  const cutoff = a.nowMs - windowMs;
  let stabilized = a.desired;
  for (const r of h.recommendations) if (r.atMs > cutoff && r.replicas > stabilized) stabilized = r.replicas;
  h.recommendations = [...h.recommendations.filter((r) => r.atMs > cutoff), { replicas: a.desired, atMs: a.nowMs }];
  const ableToScale = stabilized !== a.desired ? downStabilized : readyForNewScale;
  const upLimit = Math.max(scaleUpLimitFactor * a.currentReplicas, scaleUpLimitMinimum);
  const [maxAllowed, overLimit] = a.maxReplicas > upLimit ? [upLimit, scaleUpLimit] : [a.maxReplicas, tooMany];
  if (stabilized < a.minReplicas) return finish(stabilized, a.minReplicas, tooFew, ableToScale);
  if (stabilized > maxAllowed) return finish(stabilized, maxAllowed, overLimit, ableToScale);
  return finish(stabilized, stabilized, withinRange, ableToScale);
}

/** Replicas changed by events within the last `periodSeconds`. */
function changedWithin(events: ScaleEvent[], periodSeconds: number, nowMs: number): number {
  const cutoff = nowMs - periodSeconds * 1000;
  let n = 0;
  for (const e of events) if (e.atMs > cutoff) n += e.change;
  return n;
}

/** The most replicas the scale-up policies allow now (current replicas when scaling up is disabled). */
export function scaleUpLimitOf(current: number, h: ScalingHistory, rules: HPAScalingRules, nowMs: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const pickMin = rules.selectPolicy === 'Min';
  let result = pickMin ? Infinity : -Infinity;
  for (const p of rules.policies ?? []) {
    const periodStart = current - changedWithin(h.scaleUps, p.periodSeconds, nowMs) + changedWithin(h.scaleDowns, p.periodSeconds, nowMs);
    const proposed = p.type === 'Pods' ? periodStart + p.value : Math.ceil(periodStart * (1 + p.value / 100));
    result = pickMin ? Math.min(result, proposed) : Math.max(result, proposed);
  }
  return Number.isFinite(result) ? result : current;
}

/** The fewest replicas the scale-down policies allow now (current replicas when scaling down is disabled). */
export function scaleDownLimitOf(current: number, h: ScalingHistory, rules: HPAScalingRules, nowMs: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const pickMin = rules.selectPolicy === 'Min';
  let result = pickMin ? -Infinity : Infinity;
  for (const p of rules.policies ?? []) {
    const periodStart = current - changedWithin(h.scaleUps, p.periodSeconds, nowMs) + changedWithin(h.scaleDowns, p.periodSeconds, nowMs);
    const proposed = p.type === 'Pods' ? periodStart - p.value : Math.trunc(periodStart * (1 - p.value / 100));
    result = pickMin ? Math.max(result, proposed) : Math.min(result, proposed);
  }
  return Number.isFinite(result) ? result : current;
}

const upDefaults: HPAScalingRules = { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] };
const downDefaults: HPAScalingRules = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

/** The rules in force: the API defaults them, but an object stored without defaulting still scales sensibly. */
export function effectiveRules(b: HorizontalPodAutoscalerBehavior): { up: HPAScalingRules; down: HPAScalingRules } {
  const up = { ...upDefaults, ...dropUnset(b.scaleUp) };
  const down = { ...downDefaults, ...dropUnset(b.scaleDown) };
  // The controller's own default window fills a scale-down rule that leaves it out.
  if (down.stabilizationWindowSeconds === undefined) down.stabilizationWindowSeconds = defaultDownscaleStabilizationMs / 1000;
  return { up, down };
}

function dropUnset(r: HPAScalingRules | undefined): Partial<HPAScalingRules> {
  return Object.fromEntries(Object.entries(r ?? {}).filter(([, v]) => v !== undefined && v !== null));
}

/** With `behavior`: per-direction stabilization windows, then the policies' rate limits and the bounds. */
export function normalizeWithBehavior(h: ScalingHistory, a: NormalizeInput, behavior: HorizontalPodAutoscalerBehavior): Normalized {
  const { up, down } = effectiveRules(behavior);
  const upCutoff = a.nowMs - (up.stabilizationWindowSeconds ?? 0) * 1000;
  const downCutoff = a.nowMs - (down.stabilizationWindowSeconds ?? 0) * 1000;
  let upRec = a.desired;
  let downRec = a.desired;
  for (const r of h.recommendations) {
    if (r.atMs > upCutoff) upRec = Math.min(upRec, r.replicas);
    if (r.atMs > downCutoff) downRec = Math.max(downRec, r.replicas);
  }
  let stabilized = Math.max(a.currentReplicas, upRec);
  stabilized = Math.min(stabilized, downRec);
  const oldest = Math.min(upCutoff, downCutoff);
  h.recommendations = [...h.recommendations.filter((r) => r.atMs > oldest), { replicas: a.desired, atMs: a.nowMs }];
  const ableToScale = stabilized === a.desired ? readyForNewScale : a.desired >= a.currentReplicas ? upStabilized : downStabilized;

  if (stabilized > a.currentReplicas) {
    const limit = Math.max(scaleUpLimitOf(a.currentReplicas, h, up, a.nowMs), a.currentReplicas);
    const [maxAllowed, why] = a.maxReplicas > limit ? [limit, scaleUpLimit] : [a.maxReplicas, tooMany];
    if (stabilized > maxAllowed) return finish(stabilized, maxAllowed, why, ableToScale);
  } else if (stabilized < a.currentReplicas) {
    const limit = Math.min(scaleDownLimitOf(a.currentReplicas, h, down, a.nowMs), a.currentReplicas);
    const [minAllowed, why] = a.minReplicas < limit ? [limit, scaleDownLimit] : [a.minReplicas, tooFew];
    if (stabilized < minAllowed) return finish(stabilized, minAllowed, why, ableToScale);
  }
  return finish(stabilized, stabilized, withinRange, ableToScale);
}

function longestPeriod(rules: HPAScalingRules | undefined): number {
  return Math.max(0, ...(rules?.policies ?? []).map((p) => p.periodSeconds));
}

/** Records a rescale for the rate limits (only HPAs with `behavior` keep events), dropping events no policy looks at. */
export function recordScaleEvent(h: ScalingHistory, behavior: HorizontalPodAutoscalerBehavior | undefined, from: number, to: number, nowMs: number): void {
  if (!behavior || from === to) return;
  const { up, down } = effectiveRules(behavior);
  if (to > from) {
    const cutoff = nowMs - longestPeriod(up) * 1000;
    h.scaleUps = [...h.scaleUps.filter((e) => e.atMs > cutoff), { change: to - from, atMs: nowMs }];
  } else {
    const cutoff = nowMs - longestPeriod(down) * 1000;
    h.scaleDowns = [...h.scaleDowns.filter((e) => e.atMs > cutoff), { change: from - to, atMs: nowMs }];
  }
}
