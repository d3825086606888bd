// storage.k8s.io printers: storageclasses.
import type { StorageClass } from '../../generated/k8s/storage/v1.js';
import { SC_BINDING_MODE, SC_EXPANSION, SC_PROVISIONER, SC_RECLAIM } from './descriptions.js';
import { ageCol, ageOf, col, meta, nameCol, nameOf, str, strMap, type TablePrinter } from './helpers.js';

const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
const BETA_DEFAULT_CLASS_ANNOTATION = 'storageclass.beta.kubernetes.io/is-default-class';

export const storageClassPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Provisioner', 'string', SC_PROVISIONER),
    col('ReclaimPolicy', 'string', SC_RECLAIM),
    col('VolumeBindingMode', 'string', SC_BINDING_MODE),
    col('AllowVolumeExpansion', 'string', SC_EXPANSION),
    ageCol(),
  ],
  cells(obj, now) {
    const sc = obj;
    const annotations = strMap(meta(obj).annotations);
    const isDefault =
      annotations[DEFAULT_CLASS_ANNOTATION] === 'true' || annotations[BETA_DEFAULT_CLASS_ANNOTATION] === 'true';
    const name = isDefault ? `${nameOf(obj)} (default)` : nameOf(obj);
    const reclaimPolicy = sc.reclaimPolicy == null ? 'Delete' : str(sc.reclaimPolicy);
    const bindingMode = sc.volumeBindingMode == null ? 'Immediate' : str(sc.volumeBindingMode);
    const expansion = typeof sc.allowVolumeExpansion === 'boolean' ? sc.allowVolumeExpansion : false;
    return [name, str(sc.provisioner), reclaimPolicy, bindingMode, expansion, ageOf(obj, now)];
  },
};
