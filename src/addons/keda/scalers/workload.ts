// The kubernetes-workload scaler: the number of pods in the ScaledObject's namespace matching podSelector that have
// not terminated (Succeeded/Failed are not counted), or the number of distinct nodes they run on with groupByNode.
import type { Pod } from '../../../generated/k8s/core/v1.js';
import { parseLabelSelector, matchesSelector, type Selector } from '../../../machinery/labels.js';
import { boolParam, floatParam, metricNameWithIndex, normalizeString, param, quantity, type ScalerConfig } from '../metadata.js';
import { podsRef } from '../types.js';
import { externalTargetType, target, type Scaler } from './scaler.js';

export function workloadScaler(cfg: ScalerConfig): Scaler {
  let targetType: 'AverageValue' | 'Value';
  try {
    targetType = externalTargetType(cfg.metricType);
  } catch (err) {
    throw new Error(`error getting scaler metric type: ${(err as Error).message}`);
  }
  let selector: Selector, value: number, activation: number, byNode: boolean;
  const wrap = (e: unknown) => new Error(`error parsing kubernetes workload metadata: ${(e as Error).message}`);
  try {
    const sel = param(cfg, 'podSelector')!;
    value = floatParam(cfg, 'value', { default: '0' })!;
    activation = floatParam(cfg, 'activationValue', { default: '0' })!;
    byNode = boolParam(cfg, 'groupByNode', { default: 'false' })!;
    if (value <= 0) throw new Error('value must be a float greater than 0');
    try {
      selector = parseLabelSelector(sel);
    } catch (err) {
      throw new Error(`error parsing pod selector: ${(err as Error).message}`);
    }
  } catch (err) {
    throw wrap(wrap(err));
  }
  const name = metricNameWithIndex(cfg.triggerIndex, normalizeString(`workload-${cfg.namespace}`));
  return {
    type: 'kubernetes-workload',
    metricSpec: () => ({ type: 'External', external: { metric: { name }, target: target(targetType, quantity(value)) } }),
    read(env) {
      const pods = env.client.list<Pod>(podsRef, cfg.namespace).filter((p) => matchesSelector(selector, p.metadata?.labels ?? {}));
      const live = pods.filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
      const n = byNode ? new Set(live.map((p) => p.spec?.nodeName).filter((x) => x)).size : live.length;
      return { value: n, active: n > activation };
    },
  };
}
