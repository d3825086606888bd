// What the metrics adapter's group versions list in discovery, as custom-metrics-apiserver builds it from its
// provider: custom metrics as `<group-resource>/<metric>` (kind MetricValueList), external metrics by name (kind
// ExternalMetricValueList), verbs `get` only. The aggregated form is what kube-aggregator makes of it: a
// custom metric is a subresource of a parent entry that has no kind.
import type { Registry } from '../registry/registry.js';
import { listCustomMetrics, maxListedMetrics } from './custom-metrics.js';

export const customMetricsGroup = 'custom.metrics.k8s.io';
export const externalMetricsGroup = 'external.metrics.k8s.io';

/** The adapter's groups and versions, preferred version first (v1beta2 has the higher version priority). */
export const adapterGroups: ReadonlyArray<{ name: string; versions: readonly string[] }> = [
  { name: customMetricsGroup, versions: ['v1beta2', 'v1beta1'] },
  { name: externalMetricsGroup, versions: ['v1beta1'] },
];

export function isAdapterGroupVersion(group: string, version: string): boolean {
  return adapterGroups.some((g) => g.name === group && g.versions.includes(version));
}

export const isAdapterGroup = (group: string): boolean => adapterGroups.some((g) => g.name === group);

/** Every external metric name the sources have in any namespace (at most `maxListedMetrics`). */
export function listExternalMetrics(reg: Registry): string[] {
  const names = new Set<string>();
  for (const ns of reg.listStored('core/namespaces')) {
    for (const s of reg.externalMetrics) {
      for (const n of s.metricNames(ns.metadata.name ?? '')) {
        names.add(n);
        if (names.size >= maxListedMetrics) return [...names].sort();
      }
    }
  }
  return [...names].sort();
}

/** The `resources` of the legacy APIResourceList of an adapter group version. */
export function adapterResources(reg: Registry, group: string, version: string): Array<Record<string, unknown>> {
  if (group === externalMetricsGroup) {
    return listExternalMetrics(reg).map((name) => ({ name, singularName: '', namespaced: true, kind: 'ExternalMetricValueList', verbs: ['get'] }));
  }
  void version;
  return listCustomMetrics(reg).map((m) => ({ name: `${m.groupResource}/${m.metric}`, singularName: '', namespaced: m.namespaced, kind: 'MetricValueList', verbs: ['get'] }));
}

/** The same resources in aggregated discovery's form (apidiscovery.k8s.io APIResourceDiscovery). */
export function adapterAggregatedResources(reg: Registry, group: string, version: string): Array<Record<string, unknown>> {
  if (group === externalMetricsGroup) {
    return listExternalMetrics(reg).map((name) => ({ resource: name, responseKind: { group, version, kind: 'ExternalMetricValueList' }, scope: 'Namespaced', singularResource: '', verbs: ['get'] }));
  }
  const parents = new Map<string, { resource: string; scope: string; singularResource: string; verbs: string[]; subresources: Array<Record<string, unknown>> }>();
  for (const m of listCustomMetrics(reg)) {
    let p = parents.get(m.groupResource);
    if (!p) {
      p = { resource: m.groupResource, scope: m.namespaced ? 'Namespaced' : 'Cluster', singularResource: '', verbs: [], subresources: [] };
      parents.set(m.groupResource, p);
    }
    p.subresources.push({ subresource: m.metric, responseKind: { group, version, kind: 'MetricValueList' }, verbs: ['get'] });
  }
  return [...parents.values()];
}
