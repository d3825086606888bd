// What a built scaler offers the scale loop, the HPA and the metrics adapter (pkg/scalers/scaler.go's Scaler).
import type { Client } from '../../../client/client.js';
import type { Clock } from '../../../util/clock.js';

/** An autoscaling/v2 MetricSpec as the HPA is given it (External or Resource). */
export interface MetricSpec {
  type: 'External' | 'Resource' | 'ContainerResource';
  external?: { metric: { name: string; selector?: { matchLabels: Record<string, string> } }; target: MetricTarget };
  resource?: { name: string; target: MetricTarget };
  containerResource?: { name: string; container: string; target: MetricTarget };
}

export interface MetricTarget {
  type: 'AverageValue' | 'Value' | 'Utilization';
  value?: string;
  averageValue?: string;
  averageUtilization?: number;
}

export interface MetricReading {
  value: number;
  active: boolean;
}

export interface ScalerEnv {
  client: Client;
  clock: Clock;
}

export interface Scaler {
  readonly type: string;
  /** The metric the HPA is given for this trigger. */
  metricSpec(): MetricSpec;
  /** The external metric's value now and whether it activates the target (resource scalers: undefined). */
  read?(env: ScalerEnv): MetricReading | Promise<MetricReading>;
}

/** The target type of an external metric (GetMetricTargetType): AverageValue unless the trigger says Value. */
export function externalTargetType(metricType: string): 'AverageValue' | 'Value' {
  if (metricType === 'Utilization') throw new Error("'Utilization' metric type is unsupported for external metrics, allowed values are 'Value' or 'AverageValue'");
  if (metricType === '' || metricType === 'AverageValue') return 'AverageValue';
  if (metricType === 'Value') return 'Value';
  throw new Error(`unknown metric type: ${metricType}, allowed values are 'Value' or 'AverageValue'`);
}

export function target(type: 'AverageValue' | 'Value', q: string): MetricTarget {
  return type === 'AverageValue' ? { type, averageValue: q } : { type, value: q };
}
