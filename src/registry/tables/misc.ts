// Printers for the small groups: policy (poddisruptionbudgets), coordination.k8s.io (leases)
// and scheduling.k8s.io (priorityclasses).
import type { PodDisruptionBudget } from '../../generated/k8s/policy/v1.js';
import type { Lease } from '../../generated/k8s/coordination/v1.js';
import type { PriorityClass } from '../../generated/k8s/scheduling/v1.js';
import { LEASE_HOLDER, PC_GLOBAL_DEFAULT, PC_PREEMPTION, PC_VALUE } from './descriptions.js';
import { ageCol, ageOf, col, int, intOrString, nameCol, nameOf, rec, str, type TablePrinter } from './helpers.js';

export const podDisruptionBudgetPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Min Available', 'string', 'The minimum number of pods that must be available.'),
    col('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    col('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    ageCol(),
  ],
  cells(obj, now) {
    const pdb = obj;
    const spec = rec(pdb.spec);
    const minAvailable = spec.minAvailable == null ? 'N/A' : intOrString(spec.minAvailable);
    const maxUnavailable = spec.maxUnavailable == null ? 'N/A' : intOrString(spec.maxUnavailable);
    return [nameOf(obj), minAvailable, maxUnavailable, int(rec(pdb.status).disruptionsAllowed), ageOf(obj, now)];
  },
};

export const leasePrinter: TablePrinter = {
  columns: [nameCol(), col('Holder', 'string', LEASE_HOLDER), ageCol()],
  cells(obj, now) {
    return [nameOf(obj), str(rec((obj).spec).holderIdentity), ageOf(obj, now)];
  },
};

export const priorityClassPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Value', 'integer', PC_VALUE),
    col('Global-Default', 'boolean', PC_GLOBAL_DEFAULT),
    ageCol(),
    col('PreemptionPolicy', 'string', PC_PREEMPTION),
  ],
  cells(obj, now) {
    const pc = obj;
    return [nameOf(obj), int(pc.value), pc.globalDefault === true, ageOf(obj, now), str(pc.preemptionPolicy)];
  },
};
