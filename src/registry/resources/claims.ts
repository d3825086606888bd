// PersistentVolumeClaim admission: DefaultStorageClass, as kube-apiserver's admission plugin of that name sets
// spec.storageClassName on a new claim that names no class (an explicit "" means "no class" and is kept).
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import type { KObject } from '../../machinery/types.js';
import type { Registry } from '../registry.js';
import type { StrategyContext } from '../resource.js';

const defaultAnnotations = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];
const betaClassAnnotation = 'volume.beta.kubernetes.io/storage-class';

/** The default class: annotated as default, the most recently created one winning (as upstream picks it). */
export function defaultStorageClass(reg: Registry): StorageClass | undefined {
  const all = reg.store.list('storage.k8s.io/storageclasses') as unknown as StorageClass[];
  const defaults = all.filter((c) => defaultAnnotations.some((a) => c.metadata?.annotations?.[a] === 'true'));
  return defaults.sort((a, b) => (b.metadata?.creationTimestamp ?? '').localeCompare(a.metadata?.creationTimestamp ?? '') || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))[0];
}

export function admitClaim(obj: KObject, ctx: StrategyContext): void {
  const pvc = obj as unknown as PersistentVolumeClaim;
  if (!pvc.spec || pvc.spec.storageClassName != null || pvc.metadata?.annotations?.[betaClassAnnotation] !== undefined) return;
  const cls = defaultStorageClass(ctx.registry);
  if (cls?.metadata?.name) pvc.spec.storageClassName = cls.metadata.name;
}
