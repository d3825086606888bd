// The DRA allocator's inputs and outputs: what the DynamicResources plugin hands it for one node (the node, the
// ResourceSlices, the DeviceClasses, the pod's unallocated claims, the devices other claims hold) and what it gets
// back (one v1 AllocationResult per claim, or why not).
import type { AllocationResult, Device, DeviceClass, ResourceClaim, ResourceSlice } from '../../generated/k8s/resource/v1.js';

/** The node allocation is tried on: its name and labels (slices and devices select nodes by both). */
export interface AllocatorNode {
  name: string;
  labels?: Record<string, string>;
}

/** A device as results name it. */
export interface DeviceId {
  driver: string;
  pool: string;
  device: string;
}

/** The key of a device in sets and maps: driver, pool and device joined by NUL (none of them may contain one). */
export const deviceKey = (d: DeviceId): string => `${d.driver}\u0000${d.pool}\u0000${d.device}`;

/** The key of a pool: its driver and name. */
export const poolKey = (driver: string, pool: string): string => `${driver}\u0000${pool}`;

export interface AllocateInput {
  node: AllocatorNode;
  /** Every ResourceSlice in the cluster (slices of other nodes are skipped; pool completeness counts them all). */
  slices: readonly ResourceSlice[];
  /** The DeviceClasses by name. */
  classes: ReadonlyMap<string, DeviceClass>;
  /** The claims to allocate together, all or none (a pod's claims without an allocation yet). */
  claims: readonly ResourceClaim[];
  /** Keys (`deviceKey`) of the devices other claims hold (see `allocatedDevices`); admin-access results excluded. */
  allocated: ReadonlySet<string>;
  /** Overrides the work bounds (tests, benchmarks). */
  limits?: Partial<AllocatorLimits>;
}

/**
 * Bounds that keep one call within about 100 ms whatever the input (a selector evaluation costs some 10 µs, a search
 * step well under one): candidates the search tries, selector evaluations, and CEL cost spent in all. Upstream
 * bounds only each evaluation (1e6); here the call's whole CEL budget is lower, so one legitimate selector may not
 * spend more than it (real selectors cost tens of units).
 */
export interface AllocatorLimits {
  maxSteps: number;
  maxEvaluations: number;
  maxCelCost: number;
}

export const defaultLimits: AllocatorLimits = { maxSteps: 100_000, maxEvaluations: 2_000, maxCelCost: 50_000 };

/** Why one request (or subrequest) of a claim could not be met on this node, for the scheduling explanation. */
export interface RequestFailure {
  /** `namespace/name` of the claim. */
  claim: string;
  /** The request's name (`request/subrequest` for an alternative of firstAvailable). */
  request: string;
  reason: string;
}

/**
 * - `unschedulable`: no allocation on this node (upstream's "cannot allocate all claims"), or the work bound was
 *   reached (the message says so); other nodes may do.
 * - `unresolvable`: the claims cannot be allocated anywhere as they stand (a missing DeviceClass).
 * - `error`: the input is broken for this node (a selector that does not compile or fails at run time, a pool
 *   being updated under an "All" request): upstream's error text, reported as the filter's error.
 */
export type FailureKind = 'unschedulable' | 'unresolvable' | 'error';

export type AllocateOutcome =
  | { ok: true; allocations: AllocationResult[] }
  | { ok: false; kind: FailureKind; message: string; requests: RequestFailure[] };

/** Upstream's CELSelectorExpressionMaxCost: the cost limit of one evaluation (and of the estimate API validation checks). */
export const selectorMaxCost = 1_000_000;
/** Upstream's CELSelectorExpressionMaxLength. */
export const selectorMaxLength = 10 * 1024;

/** The verdict of one selector on one device. */
export type SelectorResult =
  | { ok: true; matches: boolean; cost: number }
  | { ok: false; error: string; cost: number; costExceeded: boolean };

export type CompiledSelector =
  | {
    ok: true;
    /** The worst-case cost the checker estimates (API validation rejects more than `selectorMaxCost`). */
    estimatedCost: number;
    /** Evaluates against one device of `driver`, spending at most `limit` (and never more than `selectorMaxCost`). */
    evaluate(device: Device, driver: string, limit: number): SelectorResult;
  }
  | { ok: false; error: string };

export interface DeviceCel {
  /** Compiles (cached by expression) a selector; errors read as upstream's (`compilation failed: ...`). */
  compile(expression: string): CompiledSelector;
}

/** What the scheduler prints when a node cannot allocate the pod's claims. */
export const cannotAllocateAllClaims = 'cannot allocate all claims';

/** A device of a pool that targets the node, with where it came from. */
export interface Candidate {
  id: DeviceId;
  key: string;
  device: Device;
  slice: ResourceSlice;
  pool: PoolInfo;
}

/** One pool as allocation sees it: the newest generation's slices only. */
export interface PoolInfo {
  driver: string;
  name: string;
  key: string;
  generation: number;
  /** Fewer slices of the newest generation than resourceSliceCount: being updated, not used. */
  incomplete: boolean;
  /** Why the pool cannot be used (duplicate device names), if so. */
  invalid?: string;
  /** Devices on slices that target the node, in slice order. */
  candidates: Candidate[];
  /** Every device of the pool's newest generation by name (devices on other nodes consume the same counters). */
  devices: Map<string, Device>;
  /** sharedCounters of the pool: counter set name -> counter name -> value. */
  counterSets: Map<string, Map<string, number>>;
}
