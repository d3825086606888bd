// The built-in simulated external metrics source: a ConfigMap named `bonsai-external-metrics` in the namespace
// whose data keys are metric names and values quantities. The ConfigMap's labels are the metric's labels, so a
// metric selector picks ConfigMaps as an adapter's selector picks series. Registered at server start (this module
// imports nothing heavy); sources registered later (KEDA) are asked when this one does not have the metric.
import { matchesSelector, parseLabelSelector } from '../machinery/labels.js';
import { badRequest } from '../machinery/errors.js';
import { parseQuantity } from '../machinery/quantity.js';
import type { Registry } from '../registry/registry.js';
import { rfc3339 } from '../util/clock.js';
import { getOwn } from '../util/own.js';
import type { ExternalMetricsSource, ExternalMetricValue } from './sources.js';

export const externalMetricsConfigMap = 'bonsai-external-metrics';

function dataOf(reg: Registry, namespace: string): { data: Record<string, unknown>; labels: Record<string, string> } | undefined {
  const cm = reg.getStored('core/configmaps', namespace, externalMetricsConfigMap);
  if (!cm) return undefined;
  const data = cm.data;
  return { data: data && typeof data === 'object' ? (data as Record<string, unknown>) : {}, labels: cm.metadata.labels ?? {} };
}

/** The data key of `metric`: the exact key, else one that matches ignoring case (metric names reach the API lower-cased). */
function keyOf(data: Record<string, unknown>, metric: string): string | undefined {
  if (typeof getOwn(data, metric) === 'string') return metric;
  const lower = metric.toLowerCase();
  return Object.keys(data).find((k) => k.toLowerCase() === lower && typeof getOwn(data, k) === 'string');
}

const isQuantity = (v: unknown): v is string => typeof v === 'string' && 'value' in parseQuantity(v.trim());

export function configMapMetricsSource(reg: Registry): ExternalMetricsSource {
  return {
    metricNames(namespace: string): string[] {
      const d = dataOf(reg, namespace);
      return d ? Object.keys(d.data).filter((k) => isQuantity(getOwn(d.data, k))).sort() : [];
    },
    values(namespace: string, metricName: string, labelSelector: string): ExternalMetricValue[] | undefined {
      const d = dataOf(reg, namespace);
      const key = d && keyOf(d.data, metricName);
      if (!d || key === undefined) return undefined;
      const raw = getOwn(d.data, key);
      // A value that is not a quantity is not a metric: the next source is asked.
      if (!isQuantity(raw)) return undefined;
      let selector;
      try {
        selector = parseLabelSelector(labelSelector);
      } catch (e) {
        throw badRequest(e instanceof Error ? e.message : String(e));
      }
      if (!matchesSelector(selector, d.labels)) return [];
      return [{ metricName: key, metricLabels: { ...d.labels }, timestamp: rfc3339(reg.clock.now()), value: raw.trim() }];
    },
  };
}
