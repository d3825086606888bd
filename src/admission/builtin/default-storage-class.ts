// DefaultStorageClass, as kube-apiserver's plugin: a new claim that names no class gets the default one (an explicit
// "" means "no class" and is kept; so is the beta annotation).
import type { PersistentVolumeClaim } from '../../generated/k8s/core/v1.js';
import { defaultStorageClass } from '../../registry/resources/claims.js';
import type { AdmissionPlugin } from '../types.js';

const betaClassAnnotation = 'volume.beta.kubernetes.io/storage-class';

export const defaultStorageClassAdmission: AdmissionPlugin = {
  name: 'DefaultStorageClass',
  mutate(a) {
    if (a.operation !== 'CREATE' || a.subresource || a.def.group !== '' || a.def.plural !== 'persistentvolumeclaims') return;
    const pvc = a.object as PersistentVolumeClaim | undefined;
    if (!pvc?.spec || pvc.spec.storageClassName != null || pvc.metadata?.annotations?.[betaClassAnnotation] !== undefined) return;
    const cls = defaultStorageClass(a.registry);
    if (cls?.metadata?.name) pvc.spec.storageClassName = cls.metadata.name;
  },
};
