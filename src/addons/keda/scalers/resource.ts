// The cpu and memory scalers: no value of their own, a Resource (or ContainerResource) metric the HPA computes from
// the pods' usage; always active (a ScaledObject with only these triggers cannot scale to zero).
import { param, type ScalerConfig } from '../metadata.js';
import { parseQuantityString } from '../value-location.js';
import type { Scaler } from './scaler.js';

export function resourceScaler(resource: 'cpu' | 'memory', cfg: ScalerConfig): Scaler {
  let value: string;
  let container: string | undefined;
  try {
    value = param(cfg, 'value')!;
    container = param(cfg, 'containerName', { optional: true });
    const mt = cfg.metricType;
    if (mt === 'AverageValue') {
      if (parseQuantityString(value) === undefined) throw new Error(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
    } else if (mt === 'Utilization') {
      if (!/^[+-]?\d+$/.test(value.trim()) || Math.abs(Number(value)) > 2 ** 31 - 1) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
    } else {
      throw new Error(`unknown metric type: ${mt}, allowed values are 'Utilization' or 'AverageValue'`);
    }
  } catch (err) {
    throw new Error(`error parsing ${resource} metadata: ${(err as Error).message}`);
  }
  const t = cfg.metricType === 'Utilization'
    ? { type: 'Utilization' as const, averageUtilization: Number(value) }
    : { type: 'AverageValue' as const, averageValue: value.trim() };
  return {
    type: resource,
    metricSpec: () => container
      ? { type: 'ContainerResource', containerResource: { name: resource, container, target: t } }
      : { type: 'Resource', resource: { name: resource, target: t } },
  };
}
