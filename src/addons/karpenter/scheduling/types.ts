// The shapes the provisioning simulation works on: nodes that exist or are launching, and the claims it plans.
import type { Pod, Taint } from '../../../generated/k8s/core/v1.js';
import type { ResourceAmounts } from '../../../machinery/resources.js';
import type { Catalog, InstanceType } from '../catalog.js';
import type { NodePool } from '../types.js';
import type { Requirements } from './requirements.js';

/** A node that exists, or a NodeClaim in flight (launched or launching, its node not yet Ready). */
export interface SimNode {
  /** The Node's name, or the NodeClaim's while it has no node. */
  name: string;
  /** The NodeClaim behind it, when Karpenter manages it. */
  nodeClaim?: string;
  /** The NodePool it belongs to (its karpenter.sh/nodepool label). */
  pool?: string;
  labels: Record<string, string>;
  /** Taints pods must tolerate (a launching claim lists its template taints, not its startup taints). */
  taints: Taint[];
  /** Allocatable in base units (cpu in cores, memory in bytes). */
  allocatable: ResourceAmounts;
  /** The pods already on it (or nominated to it). */
  pods: Pod[];
  /** No new pods go here (being disrupted or deleted); its pods still count for topology. */
  unschedulable?: boolean;
}

/** A NodeClaim the simulation would create. */
export interface ClaimPlan {
  pool: NodePool;
  pods: Pod[];
  /** The NodePool's requirements narrowed by the pods' (and a pinned zone for zonal topology spread). */
  requirements: Requirements;
  /** Instance types that fit every pod and the requirements, cheapest first. */
  instanceTypes: InstanceType[];
  /** The $/h of the cheapest compatible offering of instanceTypes[0]. */
  price: number;
  /** What the pods plus the daemonset overhead request. */
  requests: ResourceAmounts;
}

export interface SimInput {
  pods: Pod[];
  nodes: SimNode[];
  pools: NodePool[];
  catalog: Catalog;
  /** One pod per DaemonSet (its template as a pod): their requests count on every new claim they would run on. */
  daemonSets?: Pod[];
  /** Instance types already committed per pool, counted against its `limits` (capacity by resource name). */
  poolUsage?: ReadonlyMap<string, ResourceAmounts>;
  /** At most this many new claims (the disruption half asks with 0 or 1). */
  maxNewClaims?: number;
}

export interface SimResult {
  /** Node name -> the pods the simulation put there. */
  existing: Map<string, Pod[]>;
  newClaims: ClaimPlan[];
  /** `ns/name` -> why the pod fits nowhere (upstream's text, after "Failed to schedule pod, "). */
  failures: Map<string, string>;
}
