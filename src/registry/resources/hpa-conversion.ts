// HorizontalPodAutoscaler is stored as autoscaling/v2 and also served as autoscaling/v1.
import type { HorizontalPodAutoscaler as HpaV2, MetricSpec } from '../../generated/k8s/autoscaling/v2.js';
import type { HorizontalPodAutoscaler as HpaV1 } from '../../generated/k8s/autoscaling/v1.js';
import type { KObject } from '../../machinery/types.js';

function isCpuUtilization(m: MetricSpec): boolean {
  return m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource.target.type === 'Utilization';
}

export function hpaToV1(obj: KObject): KObject {
  const h = obj as HpaV2;
  const cpu = h.spec?.metrics?.find(isCpuUtilization);
  const cpuStatus = h.status?.currentMetrics?.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu');
  const out: HpaV1 = {
    apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: h.metadata,
    spec: h.spec && {
      scaleTargetRef: h.spec.scaleTargetRef, minReplicas: h.spec.minReplicas, maxReplicas: h.spec.maxReplicas,
      targetCPUUtilizationPercentage: cpu?.resource?.target.averageUtilization,
    },
    status: h.status && {
      observedGeneration: h.status.observedGeneration, lastScaleTime: h.status.lastScaleTime,
      currentReplicas: h.status.currentReplicas ?? 0, desiredReplicas: h.status.desiredReplicas,
      currentCPUUtilizationPercentage: cpuStatus?.resource?.current.averageUtilization,
    },
  };
  return dropUndefined(out) as KObject;
}

export function hpaFromV1(obj: KObject): KObject {
  const h = obj as HpaV1;
  const target = h.spec?.targetCPUUtilizationPercentage;
  const out: HpaV2 = {
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: h.metadata ?? {},
    spec: h.spec && {
      scaleTargetRef: h.spec.scaleTargetRef, minReplicas: h.spec.minReplicas, maxReplicas: h.spec.maxReplicas,
      metrics: target === undefined ? undefined : [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: target } } }],
    },
    status: h.status && {
      observedGeneration: h.status.observedGeneration, lastScaleTime: h.status.lastScaleTime,
      currentReplicas: h.status.currentReplicas, desiredReplicas: h.status.desiredReplicas,
      currentMetrics: h.status.currentCPUUtilizationPercentage === undefined ? undefined
        : [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: h.status.currentCPUUtilizationPercentage } } }],
    },
  };
  return dropUndefined(out) as KObject;
}

function dropUndefined(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v));
}
