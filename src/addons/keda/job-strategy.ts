// ScaledJob arithmetic (pkg/scaling/scaledjob/metrics.go and the executor's scaling strategies), pure: the queue
// length and max value per scaler, their combination (multipleScalersCalculation), and how many Jobs to create.

export interface ScalerQueue {
  queueLength: number;
  maxValue: number;
  isActive: boolean;
}

/** queue length and max value of one scaler: value / target average value, capped at maxReplicaCount. */
export function queueOf(value: number, targetAverageValue: number, maxReplicaCount: number, active: boolean): ScalerQueue {
  const maxValue = targetAverageValue !== 0 ? Math.min(value / targetAverageValue, maxReplicaCount) : 0;
  return { queueLength: value, maxValue, isActive: active };
}

/** IsScaledJobActive: whether to scale, the queue length (scaleTo) and max scale, both rounded up. */
export function combine(list: ScalerQueue[], calculation: string, minReplicaCount: number, maxReplicaCount: number): { isActive: boolean; queueLength: number; maxValue: number } {
  let queueLength = 0, maxValue = 0, isActive = false;
  const active = list.filter((m) => m.isActive);
  switch (calculation) {
    case 'min':
      for (const m of active) {
        if (queueLength === 0 || m.queueLength < queueLength) ({ queueLength, maxValue } = m), (isActive = true);
      }
      break;
    case 'avg':
      if (active.length) {
        queueLength = active.reduce((a, m) => a + m.queueLength, 0) / active.length;
        maxValue = active.reduce((a, m) => a + m.maxValue, 0) / active.length;
        isActive = true;
      }
      break;
    case 'sum':
      for (const m of active) {
        queueLength += m.queueLength;
        maxValue += m.maxValue;
        isActive = true;
      }
      break;
    default:
      for (const m of active) {
        if (m.queueLength > queueLength) ({ queueLength, maxValue } = m), (isActive = true);
      }
  }
  if (minReplicaCount > 0) isActive = true;
  maxValue = Math.min(maxValue, maxReplicaCount);
  return { isActive, queueLength: Math.ceil(queueLength), maxValue: Math.ceil(maxValue) };
}

export interface Strategy {
  strategy: string;
  customScalingQueueLengthDeduction?: number;
  customScalingRunningJobPercentage?: string;
}

/** GetEffectiveMaxScale of the strategy: [effectiveMaxScale, scaleTo]. */
export function effectiveMaxScale(s: Strategy, maxScale: number, running: number, pending: number, maxReplicaCount: number, scaleTo: number): [number, number] {
  switch (s.strategy) {
    case 'custom': {
      const pct = s.customScalingRunningJobPercentage !== undefined && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s.customScalingRunningJobPercentage.trim())
        ? Number(s.customScalingRunningJobPercentage) : undefined;
      if (pct === undefined || !Number.isFinite(pct)) return [maxScale - running, scaleTo];
      const r = maxScale - (s.customScalingQueueLengthDeduction ?? 0) - Math.trunc(running * pct);
      return [Math.min(r, maxReplicaCount), scaleTo];
    }
    case 'accurate':
      if (maxScale + running - pending > maxReplicaCount) return [maxReplicaCount - running, scaleTo];
      return [maxScale - pending, scaleTo];
    case 'eager':
      return [Math.min(maxReplicaCount - running - pending, maxScale), maxReplicaCount];
    default:
      return [maxScale - running, scaleTo];
  }
}

/** The executor's decision: how many Jobs to create now. */
export function jobsToCreate(s: Strategy, minReplicaCount: number, maxReplicaCount: number, running: number, pending: number, scaleTo: number, maxScale: number, isActive: boolean): number {
  let eff: number;
  if (running < minReplicaCount) {
    scaleTo = minReplicaCount - running;
    eff = scaleTo;
  } else {
    [eff, scaleTo] = effectiveMaxScale(s, maxScale, running - minReplicaCount, pending, maxReplicaCount, scaleTo);
  }
  eff = Math.max(0, eff);
  if (!isActive || eff <= 0) return 0;
  return Math.max(0, Math.min(scaleTo, eff));
}
