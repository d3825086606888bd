// HPA status conditions (AbleToScale, ScalingActive, ScalingLimited): set in the order a sync decides them;
// lastTransitionTime moves only when a condition's status changes, reason and message follow every decision.
import type { HorizontalPodAutoscalerCondition } from '../../generated/k8s/autoscaling/v2.js';
import { setCondition, type Condition } from '../workload/status-conditions.js';

export type HpaConditionType = 'AbleToScale' | 'ScalingActive' | 'ScalingLimited';
export type ConditionStatus = 'True' | 'False';

export interface ConditionUpdate {
  type: HpaConditionType;
  status: ConditionStatus;
  reason: string;
  message: string;
}

export class HpaConditions {
  constructor(private list: HorizontalPodAutoscalerCondition[], private readonly now: string) {}

  set(type: HpaConditionType, status: ConditionStatus, reason: string, message: string): void {
    const next = setCondition(this.list, { type, status, reason, message }, this.now);
    this.list = next;
  }

  apply(c: ConditionUpdate): void {
    this.set(c.type, c.status, c.reason, c.message);
  }

  get all(): HorizontalPodAutoscalerCondition[] {
    return this.list;
  }
}
