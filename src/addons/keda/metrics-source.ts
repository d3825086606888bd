// KEDA's metrics adapter: external.metrics.k8s.io values for the metrics of the ScaledObjects' scalers, asked by
// metric name and the `scaledobject.keda.sh/name=<name>` selector the HPA carries. Synchronous scalers (cron,
// kubernetes-workload) are read at once; others answer from the scale loop's last reading. A metric whose fallback
// is active answers target x fallback.replicas, as upstream's fallback does.
import { ApiError } from '../../machinery/errors.js';
import { parseLabelSelector } from '../../machinery/labels.js';
import type { ExternalMetricsSource, ExternalMetricValue } from '../../metrics-apis/sources.js';
import { rfc3339 } from '../../util/clock.js';
import { quantity } from './metadata.js';
import type { ScaleLoop } from './scale-loop.js';
import type { ScalerEnv } from './scalers/scaler.js';
import { scaledObjectNameLabel } from './types.js';

export interface LoopsView {
  env: ScalerEnv;
  /** The running loops of ScaledObjects in a namespace. */
  loopsIn(namespace: string): ScaleLoop[];
  loop(namespace: string, name: string): ScaleLoop | undefined;
  fallbackReplicas(namespace: string, name: string): number | undefined;
}

function soName(labelSelector: string): string | undefined {
  if (!labelSelector || labelSelector.length > 4096) return undefined;
  let sel;
  try {
    sel = parseLabelSelector(labelSelector);
  } catch {
    return undefined;
  }
  const r = sel.find((x) => x.key === scaledObjectNameLabel && (x.op === 'In' || x.op === 'Equals') && x.values.length === 1);
  return r?.values[0];
}

export function kedaMetricsSource(view: LoopsView): ExternalMetricsSource {
  return {
    metricNames(namespace) {
      const names = new Set<string>();
      for (const l of view.loopsIn(namespace)) {
        for (const b of l.scalers) {
          const n = b.scaler.metricSpec().external?.metric.name;
          if (n) names.add(n);
        }
      }
      return [...names];
    },
    values(namespace, metricName, labelSelector) {
      const name = soName(labelSelector);
      if (name === undefined) return undefined;
      const loop = view.loop(namespace, name);
      const b = loop?.scalers.find((s) => s.scaler.metricSpec().external?.metric.name === metricName);
      if (!loop || !b) return undefined;
      const now = view.env.clock.now();
      const item = (v: number): ExternalMetricValue[] => [{ metricName, metricLabels: {}, timestamp: rfc3339(now), value: quantity(v) }];
      if (loop.fallbackMetrics.has(metricName)) {
        const t = b.scaler.metricSpec().external?.target;
        const target = Number(t?.averageValue ?? t?.value ?? 0) || parseMilli(t?.averageValue ?? t?.value);
        return item(target * (view.fallbackReplicas(namespace, name) ?? 0));
      }
      let reading: { value: number; error?: string } | undefined;
      if (b.scaler.read && b.trigger.type !== 'metrics-api') {
        try {
          const r = b.scaler.read(view.env);
          if (!(r instanceof Promise)) reading = r;
        } catch (err) {
          reading = { value: 0, error: (err as Error).message };
        }
      }
      reading ??= loop.readings.get(metricName);
      if (!reading) throw new ApiError(500, 'InternalError', `unable to get external metric ${namespace}/${metricName}/${labelSelector}: no metrics found yet for ${metricName}`);
      if (reading.error !== undefined) throw new ApiError(500, 'InternalError', `unable to get external metric ${namespace}/${metricName}/${labelSelector}: metric:${metricName} encountered error`);
      return item(reading.value);
    },
  };
}

function parseMilli(q: string | undefined): number {
  return q && /^\d+m$/.test(q) ? Number(q.slice(0, -1)) / 1000 : 0;
}
