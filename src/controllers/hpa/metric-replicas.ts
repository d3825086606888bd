// One sync's metric step: the pods the target's selector picks, a replica proposal and a status entry per metric
// spec, and the ScalingActive verdict. Resource and ContainerResource metrics are computed from the simulated
// usage, Pods and Object metrics from the custom metrics adapter, External metrics from the external metrics sources.
import type { MetricSpec, MetricStatus, MetricTarget, MetricValueStatus } from '../../generated/k8s/autoscaling/v2.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import { matchesSelector, parseLabelSelector, type Selector } from '../../machinery/labels.js';
import type { Client } from '../../client/client.js';
import type { ConditionUpdate } from './conditions.js';
import { formatMilli, resourceMetrics } from './resource-metrics.js';
import { milliValue, podRequests, replicasForAverageValue, replicasForUtilization, type CalcOptions } from './replica-calculator.js';
import type { Scale } from './scale-target.js';
import { ExternalMetricError, externalProposal } from './external-metric.js';
import { CustomMetricError, objectProposal, podsProposal } from './custom-metric.js';

export type Warn = (reason: string, message: string) => void;

export interface MetricsOutcome {
  /** The largest proposal of the valid metrics; -1 when the HPA must not act on them. */
  replicas: number;
  /** Names the metric behind `replicas`, e.g. `cpu resource utilization (percentage of request)`. */
  metric: string;
  statuses: MetricStatus[];
  /** Set with `replicas` -1, or when some metrics failed but others still decide. */
  error?: string;
  /** The ScalingActive condition to set. */
  condition: ConditionUpdate;
}

interface Proposal {
  replicas: number;
  metric: string;
  status: MetricStatus;
}

class MetricError extends Error {
  /** `inner` goes to the event and the condition; the message (outer wrapping) to the sync's error. */
  constructor(readonly reason: string, readonly inner: string, outer: string, whole = `${outer}: ${inner}`) {
    super(whole);
  }
}

function selectorFor(scale: Scale, warn: Warn): Selector | ConditionUpdate {
  if (scale.selector === '') {
    warn('SelectorRequired', 'selector is required');
    return { type: 'ScalingActive', status: 'False', reason: 'InvalidSelector', message: "the HPA target's scale is missing a selector" };
  }
  try {
    return parseLabelSelector(scale.selector);
  } catch (e) {
    const msg = `couldn't convert selector into a corresponding internal selector object: ${e instanceof Error ? e.message : String(e)}`;
    warn('InvalidSelector', msg);
    return { type: 'ScalingActive', status: 'False', reason: 'InvalidSelector', message: msg };
  }
}

function resourceProposal(client: Client, current: number, target: MetricTarget, resource: string, container: string, pods: Pod[], o: CalcOptions): { replicas: number; current: MetricValueStatus; metric: string } {
  const label = container ? `${resource} container resource` : `${resource} resource`;
  if (target.averageValue !== undefined && target.averageValue !== null) {
    try {
      const p = replicasForAverageValue(current, milliValue(target.averageValue), resource, pods, resourceMetrics(client, pods, resource, container), o);
      return { replicas: p.replicas, current: { averageValue: formatMilli(p.rawAverage) }, metric: label };
    } catch (e) {
      throw new Error(`failed to get ${resource} usage: ${(e as Error).message}`);
    }
  }
  if (target.averageUtilization === undefined || target.averageUtilization === null) {
    throw new Error('invalid resource metric source: neither an average utilization target nor an average value (usage) target was set');
  }
  try {
    const metrics = resourceMetrics(client, pods, resource, container);
    const p = replicasForUtilization(current, target.averageUtilization, resource, pods, metrics, podRequests(pods, resource, container), o);
    return { replicas: p.replicas, current: { averageUtilization: p.utilization, averageValue: formatMilli(p.rawAverage) }, metric: `${label} utilization (percentage of request)` };
  } catch (e) {
    throw new Error(`failed to get ${resource} utilization: ${(e as Error).message}`);
  }
}

function proposalFor(client: Client, spec: MetricSpec, current: number, statusReplicas: number, ns: string, podSelector: Selector, pods: Pod[], o: CalcOptions): Proposal {
  const attempt = <T>(reason: string, outer: string, fn: () => T): T => {
    try {
      return fn();
    } catch (e) {
      throw new MetricError(reason, (e as Error).message, outer);
    }
  };
  switch (spec.type) {
    case 'Resource': {
      const r = spec.resource!;
      const p = attempt('FailedGetResourceMetric', `failed to get ${r.name} resource metric value`, () => resourceProposal(client, current, r.target, r.name, '', pods, o));
      return { replicas: p.replicas, metric: p.metric, status: { type: 'Resource', resource: { name: r.name, current: p.current } } };
    }
    case 'ContainerResource': {
      const r = spec.containerResource!;
      const p = attempt('FailedGetContainerResourceMetric', `failed to get ${r.container} container metric value`, () => resourceProposal(client, current, r.target, r.name, r.container, pods, o));
      return { replicas: p.replicas, metric: p.metric, status: { type: 'ContainerResource', containerResource: { name: r.name, container: r.container, current: p.current } } };
    }
    case 'Pods':
      try {
        return podsProposal(client, ns, spec.pods!, current, podSelector, pods, o);
      } catch (e) {
        const inner = e instanceof CustomMetricError ? e.inner : (e as Error).message;
        throw new MetricError('FailedGetPodsMetric', inner, '', (e as Error).message);
      }
    case 'Object':
      try {
        return objectProposal(client, ns, spec.object!, current, statusReplicas, pods, o.tolerance);
      } catch (e) {
        const inner = e instanceof CustomMetricError ? e.inner : (e as Error).message;
        throw new MetricError('FailedGetObjectMetric', inner, '', (e as Error).message);
      }
    case 'External': {
      const name = spec.external?.metric.name ?? '';
      try {
        return externalProposal(client, ns, spec.external!, current, statusReplicas, pods, o.tolerance);
      } catch (e) {
        const inner = e instanceof ExternalMetricError ? e.inner : (e as Error).message;
        throw new MetricError('FailedGetExternalMetric', inner, '', `failed to get ${name} external metric value: ${(e as Error).message}`);
      }
    }
    default:
      throw new MetricError('InvalidMetricSourceType', `unknown metric source type "${String(spec.type)}"`, 'invalid metric');
  }
}

/** Proposals for every metric spec; the highest wins. Failed metrics leave an empty status entry, as upstream. */
export function replicasForMetrics(client: Client, ns: string, specs: MetricSpec[], scale: Scale, warn: Warn, o: CalcOptions): MetricsOutcome {
  const sel = selectorFor(scale, warn);
  if (!Array.isArray(sel)) return { replicas: -1, metric: '', statuses: [], error: sel.message, condition: sel };
  const pods = (client.list('v1/pods', ns)).filter((p) => matchesSelector(sel, p.metadata?.labels ?? {}));
  const statuses: MetricStatus[] = [];
  let replicas = 0;
  let metric = '';
  let invalid = 0;
  let firstError: MetricError | undefined;
  for (const spec of specs) {
    try {
      const p = proposalFor(client, spec, scale.specReplicas, scale.statusReplicas, ns, sel, pods, o);
      statuses.push(p.status);
      if (replicas === 0 || p.replicas > replicas) {
        replicas = p.replicas;
        metric = p.metric;
      }
    } catch (e) {
      const err = e instanceof MetricError ? e : new MetricError('FailedGetResourceMetric', String(e), 'failed to compute metric');
      warn(err.reason, err.inner);
      statuses.push({ type: '' });
      invalid++;
      firstError ??= err;
    }
  }
  const error = firstError ? `invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${firstError.message}` : undefined;
  if (firstError && (invalid >= specs.length || replicas < scale.specReplicas)) {
    const condition: ConditionUpdate = { type: 'ScalingActive', status: 'False', reason: firstError.reason, message: `the HPA was unable to compute the replica count: ${firstError.inner}` };
    return { replicas: -1, metric: '', statuses, error, condition };
  }
  const condition: ConditionUpdate = { type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound', message: `the HPA was able to successfully calculate a replica count from ${metric}` };
  return { replicas, metric, statuses, error, condition };
}
