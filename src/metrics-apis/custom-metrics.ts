// Bonsai's simulated custom metrics adapter: an object's value of metric M is its annotation
// `custom-metrics.bonsai.dev/M` (a quantity). Values are read on demand, as prometheus-adapter answers from its
// series: by name (one object), by label selector (every matching object that has the metric), and the list of
// metrics that exist, for discovery.
import type { KObject } from '../machinery/types.js';
import { matchesSelector, type Selector } from '../machinery/labels.js';
import { parseQuantity } from '../machinery/quantity.js';
import type { Registry } from '../registry/registry.js';
import { storageKey, type ResourceDef } from '../registry/resource.js';
import { rfc3339 } from '../util/clock.js';
import { getOwn } from '../util/own.js';
import { ServerSlot } from '../util/server-slot.js';
import { groupResource, metricNotFound, metricNotFoundFor } from './errors.js';

/** The annotation prefix; the rest of the key is the metric name. */
export const customMetricsAnnotationPrefix = 'custom-metrics.bonsai.dev/';
/** At most this many distinct metrics are listed in discovery. */
export const maxListedMetrics = 500;

/** One MetricValue of custom.metrics.k8s.io (v1beta2 field names). */
export interface CustomMetricValue {
  describedObject: { kind: string; namespace?: string; name: string; apiVersion: string };
  metric: { name: string };
  timestamp: string;
  value: string;
}

/** A metric that exists: on a group-resource, namespaced or root-scoped. */
export interface CustomMetricInfo {
  /** `pods`, `deployments.apps`. */
  groupResource: string;
  namespaced: boolean;
  metric: string;
}

/** The object's value of `metric` as a canonical quantity string, or undefined (absent or not a quantity). */
export function annotatedValue(obj: KObject, metric: string): string | undefined {
  const annotations = obj.metadata.annotations;
  if (!annotations) return undefined;
  const raw = getOwn(annotations, customMetricsAnnotationPrefix + metric);
  if (typeof raw !== 'string') return undefined;
  const q = parseQuantity(raw.trim());
  return 'value' in q ? raw.trim() : undefined;
}

/** The stored resource a group-resource names (`pods`, `deployments.apps`), skipping computed ones. */
export function resolveResource(reg: Registry, gr: string): ResourceDef | undefined {
  const dot = gr.indexOf('.');
  const [plural, group] = dot < 0 ? [gr, ''] : [gr.slice(0, dot), gr.slice(dot + 1)];
  if (dot >= 0 && group === '') return undefined;
  return reg.defs.find((d) => !d.computed && d.group === group && d.plural === plural);
}

function valueOf(reg: Registry, def: ResourceDef, obj: KObject, metric: string, value: string): CustomMetricValue {
  const ref = { kind: def.kind, ...(def.namespaced ? { namespace: obj.metadata.namespace ?? '' } : {}), name: obj.metadata.name ?? '', apiVersion: `${def.group}/${def.version}` };
  return { describedObject: ref, metric: { name: metric }, timestamp: rfc3339(reg.clock.now()), value };
}

/** The metric of one object (`namespace` '' for root-scoped objects); 404 as the adapter answers when it has none. */
export function metricByName(reg: Registry, gr: string, namespace: string, name: string, metric: string): CustomMetricValue {
  const def = resolveResource(reg, gr);
  const obj = def && def.namespaced === (namespace !== '') ? reg.getStored(storageKey(def), namespace, name) : undefined;
  const value = obj && annotatedValue(obj, metric);
  if (!def || !obj || value === undefined) throw metricNotFoundFor(gr, metric, name);
  return valueOf(reg, def, obj, metric, value);
}

/** The metric of every object the selector matches that has it; 404 when none has. */
export function metricBySelector(reg: Registry, gr: string, namespace: string, selector: Selector, metric: string): CustomMetricValue[] {
  const def = resolveResource(reg, gr);
  if (!def || def.namespaced !== (namespace !== '')) throw metricNotFound(gr, metric);
  const out: CustomMetricValue[] = [];
  for (const obj of reg.listStored(storageKey(def), namespace || undefined)) {
    if (!matchesSelector(selector, obj.metadata.labels ?? {})) continue;
    const value = annotatedValue(obj, metric);
    if (value !== undefined) out.push(valueOf(reg, def, obj, metric, value));
  }
  if (out.length === 0) throw metricNotFound(gr, metric);
  return out;
}

/** Discovery asks on every `/apis`: the scan over every object is reused for a few seconds, as an adapter's cache is. */
const listCacheMs = 5_000;
const listCache = new ServerSlot<{ hit?: { at: number; metrics: CustomMetricInfo[] } }>('custom metrics list', () => ({}));

/**
 * The metrics that exist now, as `ListAllMetrics` reports them: one entry per group-resource and metric name
 * found in annotations (namespaces' own metrics are root-scoped), at most `maxListedMetrics`.
 */
export function listCustomMetrics(reg: Registry): CustomMetricInfo[] {
  const cache = reg.state(listCache);
  if (cache.hit && Date.now() - cache.hit.at < listCacheMs) return cache.hit.metrics;
  const metrics = scanCustomMetrics(reg);
  cache.hit = { at: Date.now(), metrics };
  return metrics;
}

function scanCustomMetrics(reg: Registry): CustomMetricInfo[] {
  const seen = new Map<string, CustomMetricInfo>();
  const keys = new Set<string>();
  for (const def of reg.defs) {
    if (def.computed) continue;
    const key = storageKey(def);
    if (keys.has(key)) continue;
    keys.add(key);
    const gr = groupResource(def.group, def.plural);
    for (const obj of reg.listStored(key)) {
      const annotations = obj.metadata.annotations;
      if (!annotations) continue;
      for (const k of Object.keys(annotations)) {
        if (!k.startsWith(customMetricsAnnotationPrefix)) continue;
        const metric = k.slice(customMetricsAnnotationPrefix.length);
        const id = `${gr}/${metric}`;
        if (!metric || seen.has(id)) continue;
        seen.set(id, { groupResource: gr, namespaced: def.namespaced, metric });
        if (seen.size >= maxListedMetrics) return sorted(seen);
      }
    }
  }
  return sorted(seen);
}

function sorted(seen: Map<string, CustomMetricInfo>): CustomMetricInfo[] {
  return [...seen.values()].sort((a, b) => a.groupResource.localeCompare(b.groupResource) || a.metric.localeCompare(b.metric));
}
