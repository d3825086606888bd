// resource.k8s.io printers, as upstream's: claims with their state (`pending`, `allocated,reserved`, `deleted`),
// slices with node, driver and pool; templates and classes with name and age only (the default columns).
import type { KObject } from '../../machinery/types.js';
import { ageCol, ageOf, col, list, nameCol, nameOf, rec, str, type TablePrinter } from './helpers.js';

const STATE = 'A summary of the current state (allocated, pending, reserved, etc.).';
const SLICE_NODE = "NodeName identifies the node which provides the resources in this pool. A field selector can be used to list only ResourceSlice objects belonging to a certain node.\n\nThis field can be used to limit access from nodes to ResourceSlices with the same node name. It also indicates to autoscalers that adding new nodes of the same type as some old node might also make new resources available.\n\nExactly one of NodeName, NodeSelector, AllNodes, and PerDeviceNodeSelection must be set. This field is immutable.";
const SLICE_DRIVER = "Driver identifies the DRA driver providing the capacity information. A field selector can be used to list only ResourceSlice objects with a certain driver name.\n\nMust be a DNS subdomain and should end with a DNS domain owned by the vendor of the driver. It should use only lower case characters. This field is immutable.";
const POOL_NAME = "Name is used to identify the pool. For node-local devices, this is often the node name, but this is not required.\n\nIt must not be longer than 253 characters and must consist of one or more DNS sub-domains separated by slashes. This field is immutable.";

/** The state column: deleted, then pending (not allocated), or allocated and reserved when consumers hold it. */
export function resourceClaimState(obj: KObject): string {
  const states: string[] = [];
  const deleted = !!rec(obj.metadata).deletionTimestamp;
  const status = rec(obj.status);
  if (deleted) states.push('deleted');
  if (!status.allocation) {
    if (!deleted) states.push('pending');
  } else {
    states.push('allocated');
    if (list(status.reservedFor).length > 0) states.push('reserved');
  }
  return states.join(',');
}

export const resourceClaimPrinter: TablePrinter = {
  columns: [nameCol(), col('State', 'string', STATE), ageCol()],
  cells: (obj, now) => [nameOf(obj), resourceClaimState(obj), ageOf(obj, now)],
};

export const resourceSlicePrinter: TablePrinter = {
  columns: [nameCol(), col('Node', 'string', SLICE_NODE), col('Driver', 'string', SLICE_DRIVER), col('Pool', 'string', POOL_NAME), ageCol()],
  cells(obj, now) {
    const spec = rec(obj.spec);
    return [nameOf(obj), str(spec.nodeName), str(spec.driver), str(rec(spec.pool).name), ageOf(obj, now)];
  },
};

/** DeviceClasses and ResourceClaimTemplates: upstream registers name and age columns for them. */
export const nameAgePrinter: TablePrinter = {
  columns: [nameCol(), ageCol()],
  cells: (obj, now) => [nameOf(obj), ageOf(obj, now)],
};
