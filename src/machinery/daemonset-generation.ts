// The DaemonSet template generation kube-apiserver keeps for apps/v1 objects in an annotation (upstream
// DeprecatedTemplateGeneration), and the pod label carrying it: read by the DaemonSet controller, written by the
// registry's DaemonSet strategy (registry/defaults/daemonset-generation.ts).
import type { DaemonSet } from '../generated/k8s/apps/v1.js';

/** The annotation holding the DaemonSet's template generation (upstream DeprecatedTemplateGeneration). */
export const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';
/** The pod label carrying the template generation a pod was created from. */
export const templateGenerationLabel = 'pod-template-generation';

export function templateGeneration(ds: DaemonSet): number | undefined {
  const v = ds.metadata?.annotations?.[templateGenerationAnnotation];
  if (v === undefined || !/^\d+$/.test(v)) return undefined;
  return Number(v);
}
