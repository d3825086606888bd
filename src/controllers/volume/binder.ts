// Binding PersistentVolumes and claims (upstream pkg/controller/volume/persistentvolume, much reduced):
// a claim binds to a volume pre-bound to it (claimRef) or to the smallest Available volume that fits; a volume
// whose claim is gone is Released, and deleted when its reclaim policy is Delete.
import type { PersistentVolume, PersistentVolumeClaim } from '../../generated/k8s/core/v1.js';
import { labelSelectorMatches } from '../../machinery/labels.js';
import { quantityValue } from '../../machinery/resources.js';
import type { KObject, Mutable } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import { rfc3339 } from '../../util/clock.js';
import { ann, claimClassName } from './classes.js';

const pvKey = 'v1/persistentvolumes';

export function getVolume(client: Client, name: string): PersistentVolume | undefined {
  return client.get(pvKey, '', name) as PersistentVolume | undefined;
}

/** Whether the volume's claimRef names this claim (and, when it carries a uid, this very claim). */
export function refersToClaim(pv: PersistentVolume, pvc: PersistentVolumeClaim): boolean {
  const ref = pv.spec?.claimRef;
  return !!ref && ref.name === pvc.metadata?.name && ref.namespace === pvc.metadata?.namespace && (!ref.uid || ref.uid === pvc.metadata?.uid);
}

/** An Available, unclaimed volume of the claim's class that is big enough and offers the requested access modes. */
export function findMatchingVolume(client: Client, pvc: PersistentVolumeClaim): PersistentVolume | undefined {
  const want = quantityValue(pvc.spec?.resources?.requests?.storage ?? '0');
  const cls = claimClassName(pvc) ?? '';
  const modes = pvc.spec?.accessModes ?? [];
  const fits = (client.list(pvKey) as PersistentVolume[]).filter((pv) => {
    if (pv.spec?.claimRef || pv.metadata?.deletionTimestamp || pv.status?.phase === 'Released' || pv.status?.phase === 'Failed') return false;
    if ((pv.spec?.storageClassName ?? '') !== cls) return false;
    if ((pv.spec?.volumeMode ?? 'Filesystem') !== (pvc.spec?.volumeMode ?? 'Filesystem')) return false;
    if (!modes.every((m) => pv.spec?.accessModes?.includes(m))) return false;
    if (pvc.spec?.selector && !labelSelectorMatches(pvc.spec.selector, pv.metadata?.labels ?? {})) return false;
    return quantityValue(pv.spec?.capacity?.storage ?? '0') >= want;
  });
  fits.sort((a, b) => quantityValue(a.spec?.capacity?.storage ?? '0') - quantityValue(b.spec?.capacity?.storage ?? '0'));
  return fits[0];
}

async function setVolumePhase(client: Client, name: string, phase: string): Promise<void> {
  const def = client.resource('v1/persistentvolumes')!;
  await client.guaranteedUpdate(def, '', name, (cur) => {
    const pv = structuredClone(cur) as Mutable<PersistentVolume>;
    const status = { ...(pv.status ?? {}) } as Mutable<NonNullable<PersistentVolume['status']>>;
    if (status.phase !== phase) status.lastPhaseTransitionTime = rfc3339(client.clock.now());
    status.phase = phase;
    pv.status = status;
    return pv as KObject;
  }, { subresource: 'status' });
}

/** Binds both ways: claimRef on the volume, volumeName and annotations on the claim, Bound phases on both. */
export async function bind(client: Client, pv: PersistentVolume, pvc: PersistentVolumeClaim): Promise<void> {
  const pvDef = client.resource('v1/persistentvolumes')!;
  const pvcDef = client.resource('v1/persistentvolumeclaims')!;
  const name = pv.metadata?.name ?? '';
  if (!pv.spec?.claimRef?.uid) {
    await client.guaranteedUpdate(pvDef, '', name, (cur) => {
      const v = structuredClone(cur) as PersistentVolume;
      if (v.spec?.claimRef?.uid && v.spec.claimRef.uid !== pvc.metadata?.uid) throw new Error(`volume ${name} was claimed by another claim`);
      if (!v.spec?.claimRef) v.metadata = { ...v.metadata, annotations: { ...(v.metadata?.annotations ?? {}), [ann.boundByController]: 'yes' } };
      v.spec = { ...v.spec, claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: pvc.metadata?.namespace, name: pvc.metadata?.name, uid: pvc.metadata?.uid, resourceVersion: pvc.metadata?.resourceVersion } };
      return v as KObject;
    });
  }
  if (pv.status?.phase !== 'Bound') await setVolumePhase(client, name, 'Bound');
  const ns = pvc.metadata?.namespace ?? '';
  const claimName = pvc.metadata?.name ?? '';
  const fresh = getVolume(client, name) ?? pv;
  if (pvc.spec?.volumeName !== name || pvc.metadata?.annotations?.[ann.bindCompleted] !== 'yes') {
    await client.guaranteedUpdate(pvcDef, ns, claimName, (cur) => {
      const c = structuredClone(cur) as PersistentVolumeClaim;
      const annotations: Record<string, string> = { ...(c.metadata?.annotations ?? {}), [ann.bindCompleted]: 'yes' };
      if (!c.spec?.volumeName) annotations[ann.boundByController] = 'yes';
      c.metadata = { ...c.metadata, annotations };
      c.spec = { ...c.spec, volumeName: name };
      return c as KObject;
    });
  }
  const claim = client.get('v1/persistentvolumeclaims', ns, claimName) as PersistentVolumeClaim | undefined;
  if (claim?.status?.phase === 'Bound' && claim.status.capacity?.storage === fresh.spec?.capacity?.storage) return;
  await client.guaranteedUpdate(pvcDef, ns, claimName, (cur) => ({
    ...cur,
    status: { ...(cur.status as object ?? {}), phase: 'Bound', accessModes: [...(fresh.spec?.accessModes ?? [])], capacity: { ...(fresh.spec?.capacity ?? {}) } },
  }), { subresource: 'status' });
}

/**
 * Keeps a volume's phase in line with its claim: Available without a claimRef, Bound while the claim is bound to
 * it, Released once the claim is gone (then deleted if the reclaim policy says Delete). Returns true when deleted.
 */
export async function syncVolume(client: Client, pv: PersistentVolume): Promise<boolean> {
  const name = pv.metadata?.name ?? '';
  if (pv.metadata?.deletionTimestamp) return false;
  const ref = pv.spec?.claimRef;
  if (!ref) {
    if (pv.status?.phase !== 'Available') await setVolumePhase(client, name, 'Available');
    return false;
  }
  const pvc = client.get('v1/persistentvolumeclaims', ref.namespace ?? '', ref.name ?? '') as PersistentVolumeClaim | undefined;
  const claimGone = !pvc || (!!ref.uid && pvc.metadata?.uid !== ref.uid);
  if (!claimGone) return false; // the claim side binds it
  if (!ref.uid) return false; // pre-bound by an administrator to a claim that does not exist yet
  if (pv.spec?.persistentVolumeReclaimPolicy === 'Delete') {
    try {
      await client.delete(client.resource('v1/persistentvolumes')!, '', name, { preconditions: { uid: pv.metadata?.uid } });
    } catch { /* already gone */ }
    return true;
  }
  if (pv.status?.phase !== 'Released') await setVolumePhase(client, name, 'Released');
  return false;
}
