// Pods and Object metrics as the HPA reads them from custom.metrics.k8s.io (here: the simulated adapter in
// src/metrics-apis/, read in process): per-pod values averaged against an AverageValue target (missing and
// unready pods handled as for resource metrics), and one object's value against a Value or AverageValue target.
import type { MetricStatus, ObjectMetricSource, PodsMetricSource } from '../../generated/k8s/autoscaling/v2.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { Client } from '../../client/client.js';
import type { Selector } from '../../machinery/labels.js';
import { groupResource } from '../../metrics-apis/errors.js';
import { perPodReplicas, valueReplicas } from './metric-calculator.js';
import { milliValue, replicasForAverageValue, type CalcOptions, type PodMetrics } from './replica-calculator.js';
import { formatMilli } from './resource-metrics.js';
import { groupOf } from './scale-target.js';

/** A failed metric: the calculator's error (event, condition) and the error the sync reports. */
export class CustomMetricError extends Error {
  constructor(readonly inner: string, outer: string) {
    super(outer);
  }
}

export interface CustomProposal {
  replicas: number;
  metric: string;
  status: MetricStatus;
}

const fetchFailed = (e: unknown) => `unable to fetch metrics from custom metrics API: ${(e as Error).message}`;

/** Every selected pod's value of the metric (milli-units), as GetRawMetric reads them. */
export function podsMetricValues(client: Client, ns: string, podSelector: Selector, metric: string): PodMetrics {
  let values;
  try {
    values = client.services.customMetricValues('pods', ns, podSelector, metric);
  } catch (e) {
    throw new Error(fetchFailed(e));
  }
  if (values.length === 0) throw new Error('no metrics returned from custom metrics API');
  const out: PodMetrics = new Map();
  for (const v of values) out.set(v.describedObject.name, { value: milliValue(v.value), timestampMs: Date.parse(v.timestamp), windowMs: 60_000 });
  return out;
}

export function podsProposal(client: Client, ns: string, src: PodsMetricSource, current: number, podSelector: Selector, pods: Pod[], o: CalcOptions): CustomProposal {
  const name = src.metric.name;
  try {
    const target = src.target.averageValue;
    if (target === undefined || target === null) throw new Error('invalid pods metric source: an average value target must be set');
    let metrics;
    try {
      metrics = podsMetricValues(client, ns, podSelector, name);
    } catch (e) {
      throw new Error(`unable to get metric ${name}: ${(e as Error).message}`);
    }
    const p = replicasForAverageValue(current, milliValue(target), '', pods, metrics, o);
    const metric = src.metric.selector ? { name, selector: src.metric.selector } : { name };
    return { replicas: p.replicas, metric: `pods metric ${name}`, status: { type: 'Pods', pods: { metric, current: { averageValue: formatMilli(p.rawAverage) } } } };
  } catch (e) {
    const msg = (e as Error).message;
    throw new CustomMetricError(msg, `failed to get pods metric value: ${msg}`);
  }
}

/** The described object's value (milli-units), as GetObjectMetric reads it; a Namespace is the HPA's own. */
export function objectMetricValue(client: Client, ns: string, src: ObjectMetricSource): number {
  const ref = src.describedObject;
  const metric = src.metric.name;
  try {
    let group: string;
    try {
      group = groupOf(ref.apiVersion);
    } catch (e) {
      throw new Error(fetchFailed(e));
    }
    const def = client.resourceForKind(group, ref.kind);
    if (!def) throw new Error(fetchFailed(new Error(`no matches for kind "${ref.kind}" in group "${group}"`)));
    const gr = groupResource(def.group, def.plural);
    try {
      const v = group === '' && ref.kind === 'Namespace'
        ? client.services.customMetricValue(gr, '', ns, metric)
        : client.services.customMetricValue(gr, ns, ref.name, metric);
      return milliValue(v.value);
    } catch (e) {
      throw new Error(fetchFailed(e));
    }
  } catch (e) {
    // Upstream's arguments are in this order: the error comes last.
    throw new Error(`unable to get metric ${metric}: ${ref.kind} on ${ns} ${ref.name}/${(e as Error).message}`);
  }
}

export function objectProposal(client: Client, ns: string, src: ObjectMetricSource, specReplicas: number, statusReplicas: number, pods: Pod[], tolerance: number): CustomProposal {
  const name = src.metric.name;
  const label = `${src.describedObject.kind} metric ${name}`;
  const metric = src.metric.selector ? { name, selector: src.metric.selector } : { name };
  const describedObject = src.describedObject;
  const t = src.target;
  const fail = (msg: string, outer = msg): never => {
    throw new CustomMetricError(msg, `failed to get object metric value: ${outer}`);
  };
  if (t.type === 'Value' && t.value !== undefined && t.value !== null) {
    let usage = 0;
    let replicas = 0;
    try {
      usage = objectMetricValue(client, ns, src);
      replicas = valueReplicas(specReplicas, positive(t.value), usage, pods, tolerance);
    } catch (e) {
      fail((e as Error).message);
    }
    return { replicas, metric: label, status: { type: 'Object', object: { describedObject, metric, current: { value: formatMilli(usage) } } } };
  }
  if (t.type === 'AverageValue' && t.averageValue !== undefined && t.averageValue !== null) {
    let p = { replicas: 0, average: 0 };
    try {
      p = perPodReplicas(statusReplicas, positive(t.averageValue), objectMetricValue(client, ns, src), tolerance);
    } catch (e) {
      const msg = (e as Error).message;
      fail(msg, `failed to get ${name} object metric: ${msg}`);
    }
    return { replicas: p.replicas, metric: label, status: { type: 'Object', object: { describedObject, metric, current: { averageValue: formatMilli(p.average) } } } };
  }
  return fail('invalid object metric source: neither a value target nor an average value target was set');
}

function positive(q: unknown): number {
  const v = milliValue(q);
  if (!(v > 0)) throw new Error(`invalid metric target ${String(q)}: must be positive`);
  return v;
}
