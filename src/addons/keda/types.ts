// The keda.sh/v1alpha1 kinds as the controllers read them (from client data: every field may be missing or of the
// wrong type, so readers go through the narrowing helpers in spec.ts), and the names upstream uses.
import type { KObject } from '../../machinery/types.js';

export const group = 'keda.sh';
export const version = 'v1alpha1';
export const apiVersion = `${group}/${version}`;
export const scaledObjectsRef = `${group}/${version}/scaledobjects`;
export const scaledJobsRef = `${group}/${version}/scaledjobs`;
export const triggerAuthsRef = `${group}/${version}/triggerauthentications`;
export const hpasRef = 'autoscaling/v2/horizontalpodautoscalers';
export const podsRef = 'v1/pods';
export const jobsRef = 'batch/v1/jobs';
export const secretsRef = 'v1/secrets';

/** The label KEDA puts on a ScaledObject and the external metric selector it gives the HPA. */
export const scaledObjectNameLabel = 'scaledobject.keda.sh/name';
export const scaledJobNameLabel = 'scaledjob.keda.sh/name';
export const excludedLabelsAnnotation = 'scaledobject.keda.sh/hpa-excluded-labels';
export const pausedReplicasAnnotation = 'autoscaling.keda.sh/paused-replicas';
export const pausedAnnotation = 'autoscaling.keda.sh/paused';
export const pausedScaleInAnnotation = 'autoscaling.keda.sh/paused-scale-in';
export const pausedScaleOutAnnotation = 'autoscaling.keda.sh/paused-scale-out';
export const forceActivationAnnotation = 'autoscaling.keda.sh/force-activation';
export const finalizer = 'finalizer.keda.sh';
/** The version KEDA stamps on the objects it creates (app.kubernetes.io/version). */
export const kedaVersion = '2.18.0';

export const defaults = {
  pollingIntervalS: 30,
  cooldownPeriodS: 300,
  initialCooldownPeriodS: 0,
  hpaMinReplicas: 1,
  hpaMaxReplicas: 100,
  jobsHistoryLimit: 100,
};

export type ConditionStatus = 'True' | 'False' | 'Unknown';
export interface KedaCondition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
}

export interface HealthStatus {
  numberOfFailures?: number;
  status?: 'Happy' | 'Failing';
}

export interface ScaledObjectStatus {
  scaleTargetKind?: string;
  scaleTargetGVKR?: { group: string; version: string; kind: string; resource: string };
  originalReplicaCount?: number;
  lastActiveTime?: string;
  externalMetricNames?: string[];
  resourceMetricNames?: string[];
  conditions?: KedaCondition[];
  health?: Record<string, HealthStatus>;
  pausedReplicaCount?: number;
  hpaName?: string;
  triggersTypes?: string;
  authenticationsTypes?: string;
}

export type ScaledObject = KObject & { spec?: unknown; status?: ScaledObjectStatus };

export interface ScaledJobStatus {
  lastActiveTime?: string;
  conditions?: KedaCondition[];
  triggersTypes?: string;
  authenticationsTypes?: string;
}

export type ScaledJob = KObject & { spec?: unknown; status?: ScaledJobStatus };

/** Upstream's condition texts (apis/keda/v1alpha1/condition_types.go, pkg/common/message, pkg/eventreason). */
export const msg = {
  readySuccess: 'ScaledObject is defined correctly and is ready for scaling',
  scalerReady: 'ScaledObject is ready for scaling',
  paused: 'ScaledObject is paused',
  unpaused: 'pause annotation removed for ScaledObject',
  scaleTargetErr: "ScaledObject doesn't have correct scaleTargetRef specification",
  targetNotFound: "Target resource doesn't exist",
  noSubresource: "Target resource doesn't expose /scale subresource",
  boundsErr: "ScaledObject doesn't have correct Idle/Min/Max Replica Counts specification",
  triggersErr: "ScaledObject doesn't have correct triggers specification",
  hpaErr: 'failed to ensure HPA is correctly created for ScaledObject',
  fallbackActivated: 'ScaledObject fallback is active',
  fallbackDeactivated: 'ScaledObject fallback is no longer active',
  noFallback: 'No fallbacks are active on this scaled object',
  fallbackExists: 'At least one trigger is falling back on this scaled object',
  active: 'Scaling is performed because triggers are active',
  notActive: 'Scaling is not performed because triggers are not active',
  cooldown: 'Scaler cooling down because triggers are not active',
  scaledJobReady: 'ScaledJob is defined correctly and is ready for scaling',
  scaledJobReadyEvent: 'ScaledJob is ready for scaling',
  scaledObjectRemoved: 'ScaledObject was deleted',
};
