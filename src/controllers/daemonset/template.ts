// The DaemonSet's pod template as its controller uses it: the deprecated template generation (kept in an
// annotation by the API server), the labels stamped on pods, which pods are up to date, and the revision data
// (a strategic merge patch restoring the template, the shape `kubectl rollout undo` applies).
import type { DaemonSet } from '../../generated/k8s/apps/v1.js';
import type { Pod, PodTemplateSpec } from '../../generated/k8s/core/v1.js';
import { revisionHashLabel } from '../workload/history.js';
import { addDaemonTolerations } from './eligibility.js';

export { templateGenerationAnnotation, templateGenerationLabel, templateGeneration } from '../../machinery/daemonset-generation.js';
import { templateGeneration, templateGenerationLabel } from '../../machinery/daemonset-generation.js';

/** The template pods are created from: daemon tolerations plus the generation and revision hash labels. */
export function daemonPodTemplate(ds: DaemonSet, hash: string): PodTemplateSpec {
  const t: PodTemplateSpec = structuredClone(ds.spec?.template ?? {});
  t.spec ??= { containers: [] };
  addDaemonTolerations(t.spec);
  const labels = { ...(t.metadata?.labels ?? {}) };
  const gen = templateGeneration(ds);
  if (gen !== undefined) labels[templateGenerationLabel] = String(gen);
  if (hash) labels[revisionHashLabel] = hash;
  t.metadata = { ...(t.metadata ?? {}), labels };
  return t;
}

/** Upstream IsPodUpdated: the pod carries the current revision hash, or the current template generation. */
export function isPodUpdated(pod: Pod, hash: string, ds: DaemonSet): boolean {
  const labels = pod.metadata?.labels ?? {};
  const gen = templateGeneration(ds);
  return (!!hash && labels[revisionHashLabel] === hash) || (gen !== undefined && labels[templateGenerationLabel] === String(gen));
}

/** Revision data: `{"spec":{"template":{...,"$patch":"replace"}}}`, a strategic merge patch restoring the template. */
export function revisionData(ds: DaemonSet): Record<string, unknown> {
  const template = structuredClone(ds.spec?.template ?? {}) as Record<string, unknown>;
  return { spec: { template: { ...template, $patch: 'replace' } } };
}
