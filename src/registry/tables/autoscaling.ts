// autoscaling printers: horizontalpodautoscalers (v2 shape; v1 objects are mapped onto it).
import type { KObject } from '../../machinery/types.js';
import type { HorizontalPodAutoscaler, MetricSpec, MetricStatus } from '../../generated/k8s/autoscaling/v2.js';
import type { HorizontalPodAutoscaler as HpaV1 } from '../../generated/k8s/autoscaling/v1.js';
import { HPA_CURRENT, HPA_MAX, HPA_METRICS, HPA_MIN, HPA_SCALE_TARGET } from './descriptions.js';
import { ageCol, ageOf, col, int, list, nameCol, nameOf, optInt, quantityPtr, rec, str, type TablePrinter } from './helpers.js';

/** The CPU target v2 defaulting adds when no metrics are given. */
const DEFAULT_CPU_UTILIZATION = 80;

function cpuUtilizationSpec(target: number): MetricSpec {
  return { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: target } } };
}

/** Metric specs and statuses, converting autoscaling/v1's single CPU target and applying v2 defaults. */
function metricsOf(obj: KObject): { specs: MetricSpec[]; statuses: MetricStatus[] } {
  const spec = rec(obj.spec);
  const status = rec(obj.status);
  let specs = list<MetricSpec>(spec.metrics);
  let statuses = list<MetricStatus>(status.currentMetrics);
  const v1 = obj;
  const v1Target = optInt(rec(v1.spec).targetCPUUtilizationPercentage);
  if (specs.length === 0 && v1Target !== undefined) specs = [cpuUtilizationSpec(v1Target)];
  const v1Current = optInt(rec(v1.status).currentCPUUtilizationPercentage);
  if (statuses.length === 0 && v1Current !== undefined) {
    statuses = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: v1Current } } }];
  }
  if (specs.length === 0) specs = [cpuUtilizationSpec(DEFAULT_CPU_UTILIZATION)];
  return { specs, statuses };
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** One metric as `current/target`, per metric source type. */
function formatMetric(spec: MetricSpec, status: MetricStatus | undefined): string {
  const st = rec(status);
  switch (spec.type) {
    case 'External':
    case 'Object': {
      const key = spec.type === 'External' ? 'external' : 'object';
      const target = rec(rec(rec(spec)[key]).target);
      const current = present(st[key]) ? rec(rec(st[key]).current) : undefined;
      if (present(target.averageValue)) {
        const cur = current && present(current.averageValue) ? quantityPtr(current.averageValue) : '<unknown>';
        return `${cur}/${quantityPtr(target.averageValue)} (avg)`;
      }
      const cur = current ? quantityPtr(current.value) : '<unknown>';
      return `${cur}/${quantityPtr(target.value)}`;
    }
    case 'Pods': {
      const target = rec(rec(spec.pods).target);
      const cur = present(st.pods) ? quantityPtr(rec(rec(st.pods).current).averageValue) : '<unknown>';
      return `${cur}/${quantityPtr(target.averageValue)}`;
    }
    case 'Resource':
    case 'ContainerResource': {
      const key = spec.type === 'Resource' ? 'resource' : 'containerResource';
      const source = rec(rec(spec)[key]);
      const target = rec(source.target);
      const name = str(source.name);
      const current = present(st[key]) ? rec(rec(st[key]).current) : undefined;
      if (present(target.averageValue)) {
        const cur = current ? quantityPtr(current.averageValue) : '<unknown>';
        return `${name}: ${cur}/${quantityPtr(target.averageValue)}`;
      }
      const cur = current && present(current.averageUtilization) ? `${int(current.averageUtilization)}%` : '<unknown>';
      const tgt = present(target.averageUtilization) ? `${int(target.averageUtilization)}%` : '<auto>';
      return `${name}: ${cur}/${tgt}`;
    }
    default:
      return '<unknown type>';
  }
}

/** Up to two metrics, then `+ N more...`; `<none>` without metrics. */
export function formatHPAMetrics(specs: MetricSpec[], statuses: MetricStatus[]): string {
  if (specs.length === 0) return '<none>';
  const max = 2;
  const all = specs.map((s, i) => formatMetric(rec(s) as MetricSpec, statuses[i]));
  const shown = all.slice(0, max).join(', ');
  return all.length > max ? `${shown} + ${all.length - max} more...` : shown;
}

export const horizontalPodAutoscalerPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Reference', 'string', HPA_SCALE_TARGET),
    col('Targets', 'string', HPA_METRICS),
    col('MinPods', 'string', HPA_MIN),
    col('MaxPods', 'string', HPA_MAX),
    col('Replicas', 'string', HPA_CURRENT),
    ageCol(),
  ],
  cells(obj, now) {
    const hpa = obj;
    const spec = rec(hpa.spec);
    const ref = rec(spec.scaleTargetRef);
    const { specs, statuses } = metricsOf(obj);
    // minReplicas defaults to 1 in every served version; '<unset>' only appears without defaulting.
    const min = optInt(spec.minReplicas) ?? 1;
    return [
      nameOf(obj),
      `${str(ref.kind)}/${str(ref.name)}`,
      formatHPAMetrics(specs, statuses),
      String(min),
      int(spec.maxReplicas),
      int(rec(hpa.status).currentReplicas),
      ageOf(obj, now),
    ];
  },
};
