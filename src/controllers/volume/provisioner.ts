// The simulated dynamic provisioner: for a claim of a class whose provisioner is `bonsai.dev/simulated`, it creates
// a PersistentVolume named `pvc-<claim uid>` pre-bound to the claim (claimRef), sized like the request, with the
// class's reclaim policy, as an external provisioner (local-path, hostpath) does. No data is stored anywhere.
import type { PersistentVolume, PersistentVolumeClaim } from '../../generated/k8s/core/v1.js';
import type { StorageClass } from '../../generated/k8s/storage/v1.js';
import type { EventRecorder } from '../../client/event-recorder.js';
import type { KObject } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import { errorMessage, statusCode } from '../workload/pod-control.js';
import { ann } from './classes.js';

export const volumeNameFor = (pvc: PersistentVolumeClaim): string => `pvc-${pvc.metadata?.uid}`;

/** The volume the provisioner would create for the claim. */
export function volumeFor(pvc: PersistentVolumeClaim, cls: StorageClass): PersistentVolume {
  const name = volumeNameFor(pvc);
  const selected = pvc.metadata?.annotations?.[ann.selectedNode];
  return {
    apiVersion: 'v1', kind: 'PersistentVolume',
    metadata: {
      name,
      annotations: { [ann.provisionedBy]: cls.provisioner, ...(selected ? { 'bonsai.dev/selected-node': selected } : {}) },
    },
    spec: {
      accessModes: [...(pvc.spec?.accessModes ?? ['ReadWriteOnce'])],
      capacity: { storage: String(pvc.spec?.resources?.requests?.storage ?? '1Gi') },
      claimRef: {
        apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: pvc.metadata?.namespace, name: pvc.metadata?.name,
        uid: pvc.metadata?.uid, resourceVersion: pvc.metadata?.resourceVersion,
      },
      hostPath: { path: `/var/lib/bonsai/volumes/${name}_${pvc.metadata?.namespace}_${pvc.metadata?.name}`, type: 'DirectoryOrCreate' },
      persistentVolumeReclaimPolicy: cls.reclaimPolicy ?? 'Delete',
      storageClassName: cls.metadata?.name,
      volumeMode: pvc.spec?.volumeMode ?? 'Filesystem',
      ...(cls.mountOptions?.length ? { mountOptions: [...cls.mountOptions] } : {}),
    },
  };
}

/**
 * Provisions a volume for the claim and records the provisioner's events on the claim. Returns the volume (an
 * existing one when provisioning already happened), or undefined when creation failed.
 */
export async function provision(client: Client, events: EventRecorder, pvc: PersistentVolumeClaim, cls: StorageClass): Promise<PersistentVolume | undefined> {
  const def = client.resource('v1/persistentvolumes')!;
  const existing = client.get('v1/persistentvolumes', '', volumeNameFor(pvc));
  if (existing) return existing;
  const claim = pvc;
  events.event(claim, 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${pvc.metadata?.namespace}/${pvc.metadata?.name}"`);
  try {
    const pv = await client.create(def, '', volumeFor(pvc, cls));
    events.event(claim, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${pv.metadata?.name}`);
    return pv;
  } catch (err) {
    if (statusCode(err) === 409) return client.get('v1/persistentvolumes', '', volumeNameFor(pvc));
    events.event(claim, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${cls.metadata?.name}": ${errorMessage(err)}`);
    return undefined;
  }
}
