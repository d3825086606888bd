// The DaemonSet template generation kube-apiserver keeps for apps/v1 objects in an annotation (upstream
// DeprecatedTemplateGeneration): 1 on create, one more on every change of spec.template.
import type { DaemonSet } from '../../generated/k8s/apps/v1.js';
import type { KObject } from '../../machinery/types.js';
import { templateGeneration, templateGenerationAnnotation } from '../../machinery/daemonset-generation.js';
import { deepEqual } from '../validation/common.js';

/** A new DaemonSet starts at template generation 1. */
export function prepareDaemonSetCreate(obj: KObject): void {
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [templateGenerationAnnotation]: '1' };
}

/** The template generation moves on with every change of spec.template, and is kept otherwise. */
export function prepareDaemonSetUpdate(obj: KObject, old: KObject): void {
  const oldGen = templateGeneration(old) ?? 1;
  const template = (o: KObject) => (o.spec as DaemonSet['spec'])?.template;
  const next = deepEqual(template(obj), template(old)) ? oldGen : oldGen + 1;
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [templateGenerationAnnotation]: String(next) };
}

