// StorageClass lookups and the annotations the PV controller and provisioners put on claims and volumes.
import type { PersistentVolumeClaim } from '../../generated/k8s/core/v1.js';
import type { StorageClass } from '../../generated/k8s/storage/v1.js';
import type { Client } from '../../client/client.js';

/** The provisioner Bonsai simulates (the default `standard` class uses it). */
export const simulatedProvisioner = 'bonsai.dev/simulated';

export const ann = {
  defaultClass: 'storageclass.kubernetes.io/is-default-class',
  betaDefaultClass: 'storageclass.beta.kubernetes.io/is-default-class',
  betaClass: 'volume.beta.kubernetes.io/storage-class',
  storageProvisioner: 'volume.kubernetes.io/storage-provisioner',
  betaStorageProvisioner: 'volume.beta.kubernetes.io/storage-provisioner',
  selectedNode: 'volume.kubernetes.io/selected-node',
  bindCompleted: 'pv.kubernetes.io/bind-completed',
  boundByController: 'pv.kubernetes.io/bound-by-controller',
  provisionedBy: 'pv.kubernetes.io/provisioned-by',
} as const;

/** The default class (the one DefaultStorageClass admission uses). */

/** The class name a claim asks for: the beta annotation wins over spec.storageClassName; '' means "no class". */
export function claimClassName(pvc: PersistentVolumeClaim): string | undefined {
  const a = pvc.metadata?.annotations?.[ann.betaClass];
  if (a !== undefined) return a;
  return pvc.spec?.storageClassName ?? undefined;
}

export function storageClass(client: Client, name: string): StorageClass | undefined {
  return client.get('storage.k8s.io/v1/storageclasses', '', name);
}
