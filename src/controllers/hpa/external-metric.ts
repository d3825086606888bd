// External metrics as the HPA reads them from external.metrics.k8s.io: every value the sources return for the
// metric name and selector, summed, against a Value target (scaling the ready pods) or an AverageValue target
// (per replica), with upstream's error texts when the metric cannot be read.
import type { ExternalMetricSource, MetricStatus } from '../../generated/k8s/autoscaling/v2.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { Client } from '../../client/client.js';
import { formatLabelSelector } from '../../machinery/labels.js';
import { externalMetricNotFound } from '../../metrics-apis/errors.js';
import { goLabelSelector } from './go-format.js';
import { perPodReplicas, sumOf, valueReplicas } from './metric-calculator.js';
import { milliValue } from './replica-calculator.js';
import { formatMilli } from './resource-metrics.js';

/** The values of an external metric in milli-units, or the metrics client's error. */
export function fetchExternalMetric(client: Client, ns: string, name: string, selector: string): number[] {
  let values;
  try {
    values = client.services.externalMetricValues(ns, name, selector);
    if (values === undefined) throw externalMetricNotFound(ns, name);
  } catch (e) {
    throw new Error(`unable to fetch metrics from external metrics API: ${(e as Error).message}`);
  }
  if (values.length === 0) throw new Error('no metrics returned from external metrics API');
  return values.map((v) => milliValue(v.value));
}

export interface ExternalProposal {
  replicas: number;
  metric: string;
  status: MetricStatus;
}

/** A failed External metric: the calculator's error (event, condition) and the error the sync reports. */
export class ExternalMetricError extends Error {
  constructor(readonly inner: string, outer: string) {
    super(outer);
  }
}

/** The External metric's proposal; `specReplicas` scale Value targets, `statusReplicas` AverageValue targets. */
export function externalProposal(client: Client, ns: string, src: ExternalMetricSource, specReplicas: number, statusReplicas: number, pods: Pod[], tolerance: number): ExternalProposal {
  const name = src.metric.name;
  const selector = src.metric.selector;
  const label = `external metric ${name}(${goLabelSelector(selector)})`;
  const read = (): number => {
    try {
      return sumOf(fetchExternalMetric(client, ns, name, formatLabelSelector(selector)));
    } catch (e) {
      throw new Error(`unable to get external metric ${ns}/${name}/${goLabelSelector(selector)}: ${(e as Error).message}`);
    }
  };
  const metric = selector ? { name, selector } : { name };
  const target = src.target;
  if (target.averageValue !== undefined && target.averageValue !== null) {
    let p;
    try {
      p = perPodReplicas(statusReplicas, positive(target.averageValue), read(), tolerance);
    } catch (e) {
      const msg = (e as Error).message;
      throw new ExternalMetricError(msg, `failed to get ${name} external metric: ${msg}`);
    }
    return { replicas: p.replicas, metric: label, status: { type: 'External', external: { metric, current: { averageValue: formatMilli(p.average) } } } };
  }
  if (target.value !== undefined && target.value !== null) {
    let usage = 0;
    let replicas;
    try {
      usage = read();
      replicas = valueReplicas(specReplicas, positive(target.value), usage, pods, tolerance);
    } catch (e) {
      const msg = (e as Error).message;
      throw new ExternalMetricError(msg, `failed to get external metric ${name}: ${msg}`);
    }
    return { replicas, metric: label, status: { type: 'External', external: { metric, current: { value: formatMilli(usage) } } } };
  }
  const msg = 'invalid external metric source: neither a value target nor an average value target was set';
  throw new ExternalMetricError(msg, msg);
}

/** A target in milli-units; validation rejects zero and negative targets, a stored one cannot divide by zero. */
function positive(q: unknown): number {
  const v = milliValue(q);
  if (!(v > 0)) throw new Error(`invalid metric target ${String(q)}: must be positive`);
  return v;
}
