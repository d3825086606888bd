// The HPA a ScaledObject owns (controllers/keda/hpa.go): named keda-hpa-<name> or advanced.horizontalPodAutoscalerConfig
// .name, upstream's labels plus the ScaledObject's own (minus scaledobject.keda.sh/hpa-excluded-labels), its
// annotations, min max(minReplicaCount, 1), max maxReplicaCount (100), one metric per trigger (External metrics
// selected by scaledobject.keda.sh/name, sorted by type), the behavior given, scale-in/out disabled by the paused
// annotations, and the ScaledObject as its controller owner.
import type { KObject } from '../../machinery/types.js';
import { getOwn } from '../../util/own.js';
import type { MetricSpec } from './scalers/scaler.js';
import { hpaMaxReplicas, hpaMinReplicas, pauseScaleIn, pauseScaleOut, type ScaledObjectSpec } from './spec.js';
import { apiVersion, excludedLabelsAnnotation, kedaVersion, scaledObjectNameLabel, type ScaledObject } from './types.js';
import type { Gvkr } from './scale-target.js';

export const defaultHpaName = (name: string) => `keda-hpa-${name}`;
export const hpaNameOf = (so: ScaledObject, spec: ScaledObjectSpec) => spec.hpaName ?? defaultHpaName(so.metadata.name ?? '');

/** The metrics the HPA gets: External ones selected by the ScaledObject's name; sorted by type as upstream sorts. */
export function hpaMetrics(soName: string, specs: MetricSpec[]): MetricSpec[] {
  const out = specs.map((m) => (m.external ? { ...m, external: { ...m.external, metric: { ...m.external.metric, selector: { matchLabels: { [scaledObjectNameLabel]: soName } } } } } : m));
  return out.sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

/** A duplicate external metric name is upstream's error. */
export function duplicateMetricError(soName: string, specs: MetricSpec[]): string | undefined {
  const seen = new Set<string>();
  for (const m of specs) {
    const n = m.external?.metric.name;
    if (n === undefined) continue;
    if (seen.has(n)) return `metricName ${n} defined multiple times in ScaledObject ${soName}`;
    seen.add(n);
  }
  return undefined;
}

function hpaLabels(so: ScaledObject, hpaName: string): Record<string, string> {
  let labelName = hpaName;
  if (labelName.length > 63) labelName = labelName.slice(0, 63).replace(/[^\p{L}\p{N}]+$/u, '');
  const labels: Record<string, string> = Object.create(null) as Record<string, string>;
  Object.assign(labels, { 'app.kubernetes.io/name': labelName, 'app.kubernetes.io/version': kedaVersion, 'app.kubernetes.io/part-of': so.metadata.name ?? '', 'app.kubernetes.io/managed-by': 'keda-operator' });
  const ann = so.metadata.annotations ?? {};
  const excludedRaw = getOwn(ann, excludedLabelsAnnotation);
  const excluded = new Set(typeof excludedRaw === 'string' ? excludedRaw.split(',') : []);
  for (const [k, v] of Object.entries(so.metadata.labels ?? {})) {
    if (!excluded.has(k)) Object.defineProperty(labels, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return { ...labels };
}

function behaviorOf(so: ScaledObject, spec: ScaledObjectSpec): Record<string, unknown> | undefined {
  let b = spec.behavior && typeof spec.behavior === 'object' ? structuredClone(spec.behavior) as Record<string, unknown> : undefined;
  const disable = (side: 'scaleUp' | 'scaleDown') => {
    b ??= {};
    const cur = getOwn(b, side);
    b[side] = { ...(cur && typeof cur === 'object' ? cur : {}), selectPolicy: 'Disabled' };
  };
  if (pauseScaleIn(so.metadata.annotations)) disable('scaleDown');
  if (pauseScaleOut(so.metadata.annotations)) disable('scaleUp');
  return b;
}

export function desiredHpa(so: ScaledObject, spec: ScaledObjectSpec, gvkr: Gvkr, metrics: MetricSpec[]): KObject {
  const name = hpaNameOf(so, spec);
  const behavior = behaviorOf(so, spec);
  return {
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler',
    metadata: {
      name, namespace: so.metadata.namespace, labels: hpaLabels(so, name),
      ...(so.metadata.annotations ? { annotations: { ...so.metadata.annotations } } : {}),
      ownerReferences: [{ apiVersion, kind: 'ScaledObject', name: so.metadata.name ?? '', uid: so.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      minReplicas: hpaMinReplicas(spec), maxReplicas: hpaMaxReplicas(spec), metrics: hpaMetrics(so.metadata.name ?? '', metrics),
      ...(behavior ? { behavior } : {}),
      scaleTargetRef: { name: spec.target.name, kind: gvkr.kind, apiVersion: gvkr.group ? `${gvkr.group}/${gvkr.version}` : gvkr.version },
    },
  } as KObject;
}

/** Semantic DeepDerivative: every value set in `want` is equal in `have` (unset ones are free), depth-bounded. */
export function derivative(want: unknown, have: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (want === undefined || want === null) return true;
  if (Array.isArray(want)) {
    return Array.isArray(have) && want.length === have.length && want.every((w, i) => derivative(w, have[i], depth + 1));
  }
  if (typeof want === 'object') {
    if (!have || typeof have !== 'object' || Array.isArray(have)) return false;
    return Object.keys(want).every((k) => derivative(getOwn(want, k), getOwn(have, k), depth + 1));
  }
  if (typeof want === 'string' && typeof have === 'string' && want !== have) return quantityEqual(want, have);
  return want === have;
}

function quantityEqual(a: string, b: string): boolean {
  const n = (s: string) => (/^\d+m$/.test(s) ? Number(s.slice(0, -1)) / 1000 : /^\d+(\.\d+)?$/.test(s) ? Number(s) : NaN);
  return !Number.isNaN(n(a)) && n(a) === n(b);
}

/** Whether the stored HPA needs the desired one written over it. */
export function hpaNeedsUpdate(want: KObject, have: KObject): boolean {
  const ws = want.spec as { metrics?: unknown[] }, hs = have.spec as { metrics?: unknown[] } | undefined;
  if ((ws.metrics?.length ?? 0) !== (hs?.metrics?.length ?? 0)) return true;
  if (!derivative(want.spec, have.spec)) return true;
  if (!derivative(want.metadata.labels, have.metadata.labels)) return true;
  if ((want.metadata.annotations === undefined) !== (have.metadata.annotations === undefined)) return true;
  return !derivative(want.metadata.annotations, have.metadata.annotations);
}
