// One decision of the scale loop for a ScaledObject (pkg/scaling/executor/scale_scaledobjects.go), as a pure function:
// from whether any trigger is active or failing, the target's replicas and the clock, what to scale to, which
// conditions and event follow. The HPA does 1 <-> N; this does 0 <-> 1 (or idle <-> min) and the cooldown.
import type { ConditionStatus } from './types.js';
import { forceActivation, pauseScaleIn, pauseScaleOut, needsPause, type ScaledObjectSpec } from './spec.js';

export interface DecisionInput {
  spec: ScaledObjectSpec;
  annotations: Record<string, string> | undefined;
  currentReplicas: number;
  isActive: boolean;
  isError: boolean;
  /** ms since the epoch; undefined when never active. */
  lastActiveMs?: number;
  creationMs: number;
  nowMs: number;
}

export interface Decision {
  /** The replicas to write through /scale, when any. */
  scaleTo?: number;
  /** What the write is: an activation (from 0 or idle), a deactivation (to 0 or idle) or setting min. */
  kind?: 'activate' | 'deactivate' | 'min';
  conditions: Array<{ type: string; status: ConditionStatus; reason: string; message: string }>;
  /** Set lastActiveTime to now. */
  touchActive: boolean;
  paused: boolean;
}

export function decide(i: DecisionInput): Decision {
  const d: Decision = { conditions: [], touchActive: false, paused: false };
  const cond = (type: string, status: ConditionStatus, reason: string, message: string) => d.conditions.push({ type, status, reason, message });
  cond('Ready', 'True', 'ScaledObjectReady', 'ScaledObject is defined correctly and is ready for scaling');
  if (needsPause(i.annotations)) {
    cond('Paused', 'True', 'ScaledObjectPaused', 'ScaledObject is paused');
    d.paused = true;
    return d;
  }
  const { spec } = i;
  const min = spec.minReplicaCount ?? 0;
  const forced = forceActivation(i.annotations);
  if (i.isActive || forced) {
    cond('Active', 'True', 'ScalerActive', forced ? 'Scaling is performed because activation is being forced by annotation' : 'Scaling is performed because triggers are active');
    if ((spec.idleReplicaCount !== undefined && i.currentReplicas < min) || i.currentReplicas === 0) {
      if (!pauseScaleOut(i.annotations)) {
        d.scaleTo = min > 0 ? min : 1;
        d.kind = 'activate';
        d.touchActive = true;
      }
    } else if (i.isError) {
      cond('Ready', 'Unknown', 'PartialTriggerError', 'Some triggers defined in ScaledObject are not working correctly');
    } else {
      d.touchActive = true;
    }
    return d;
  }
  cond('Active', 'False', 'ScalerNotActive', 'Scaling is not performed because triggers are not active');
  if (i.isError && spec.fallback && spec.fallback.replicas !== 0) return d;
  if (i.isError && !spec.fallback) {
    cond('Ready', 'False', 'TriggerError', 'Triggers defined in ScaledObject are not working correctly');
    return d;
  }
  if ((spec.idleReplicaCount !== undefined && i.currentReplicas > spec.idleReplicaCount) || (i.currentReplicas > 0 && min === 0)) {
    if (pauseScaleIn(i.annotations)) return d;
    const cooledDown = i.lastActiveMs === undefined
      ? i.creationMs + spec.initialCooldownPeriodS * 1000 < i.nowMs
      : i.lastActiveMs + spec.cooldownPeriodS * 1000 < i.nowMs;
    if (cooledDown) {
      d.scaleTo = spec.idleReplicaCount ?? min;
      d.kind = 'deactivate';
    } else {
      cond('Active', 'False', 'ScalerCooldown', 'Scaler cooling down because triggers are not active');
    }
    return d;
  }
  if (spec.idleReplicaCount === undefined && i.currentReplicas < min) {
    d.scaleTo = min;
    d.kind = 'min';
  }
  return d;
}
