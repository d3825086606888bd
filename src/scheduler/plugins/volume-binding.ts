// VolumeBinding, the part that decides whether a pod can be scheduled at all: every PersistentVolumeClaim it
// mounts (directly or as a generic ephemeral volume) must exist, not be terminating, and be bound unless its
// StorageClass binds on first consumer (the volume controller then provisions for the chosen node). Rejections
// happen in PreFilter, for the pod as a whole, with upstream's messages.
import type { PersistentVolumeClaim } from '../../generated/k8s/core/v1.js';
import type { Failure, FilterPlugin } from '../framework.js';

const reject = (reason: string): Failure => ({ plugin: 'VolumeBinding', code: 'UnschedulableAndUnresolvable', reasons: [reason] });

/** The claims a pod mounts: `persistentVolumeClaim` volumes and the claims of generic ephemeral volumes. */
export function podClaimNames(pod: { metadata?: { name?: string }; spec?: { volumes?: Array<{ name: string; persistentVolumeClaim?: { claimName: string }; ephemeral?: unknown }> } }): string[] {
  const out: string[] = [];
  for (const v of pod.spec?.volumes ?? []) {
    if (v.persistentVolumeClaim?.claimName) out.push(v.persistentVolumeClaim.claimName);
    else if (v.ephemeral) out.push(`${pod.metadata?.name ?? ''}-${v.name}`);
  }
  return out;
}

export const volumeBinding: FilterPlugin = {
  name: 'VolumeBinding',
  preFilter(s) {
    const claims = podClaimNames(s.pi.pod);
    const volumes = s.lookups.volumes;
    if (!claims.length || !volumes) return undefined;
    let unboundImmediate = false;
    for (const name of claims) {
      const pvc: PersistentVolumeClaim | undefined = volumes.claim(s.pi.ns, name);
      if (!pvc) return reject(`persistentvolumeclaim "${name}" not found`);
      if (pvc.metadata?.deletionTimestamp) return reject(`persistentvolumeclaim "${name}" is being deleted`);
      if (pvc.spec?.volumeName) continue;
      const className = pvc.spec?.storageClassName ?? '';
      const cls = className ? volumes.storageClass(className) : undefined;
      if (cls?.volumeBindingMode !== 'WaitForFirstConsumer') unboundImmediate = true;
    }
    return unboundImmediate ? reject('pod has unbound immediate PersistentVolumeClaims') : undefined;
  },
  filter: () => undefined,
  skips: () => true,
};
