// The cluster's default StorageClass (what DefaultStorageClass admission and the volume binder give a claim naming none).
import type { StorageClass } from '../../generated/k8s/storage/v1.js';
import type { KObject } from '../../machinery/types.js';

const defaultAnnotations = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

/** The default class: annotated as default, the most recently created one winning (as upstream picks it). */
export function defaultStorageClass(reg: { listStored(key: string): KObject[] }): StorageClass | undefined {
  const all = reg.listStored('storage.k8s.io/storageclasses') as StorageClass[];
  const defaults = all.filter((c) => defaultAnnotations.some((a) => c.metadata?.annotations?.[a] === 'true'));
  return defaults.sort((a, b) => (b.metadata?.creationTimestamp ?? '').localeCompare(a.metadata?.creationTimestamp ?? '') || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))[0];
}
