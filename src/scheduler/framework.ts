// The scheduling framework: plugin interfaces, the per-attempt cycle state, filtering and scoring.
import type { PersistentVolumeClaim, Pod, PodExtendedResourceClaimStatus } from '../generated/k8s/core/v1.js';
import type { StorageClass } from '../generated/k8s/storage/v1.js';
import type { AllocationResult, DeviceClass, ResourceClaim, ResourceClaimStatus, ResourceSlice } from '../generated/k8s/resource/v1.js';
import type { Selector } from '../machinery/labels.js';
import type { NodeInfo } from './node-info.js';
import type { PodIndex } from './pod-index.js';
import type { NamespaceLabels, PodInfo } from './pod-info.js';

export type Code = 'Unschedulable' | 'UnschedulableAndUnresolvable';

/** A filter plugin's verdict on one node (success is `undefined`). */
export interface Failure {
  plugin: string;
  code: Code;
  reasons: string[];
  /** What the node's verdict explains beyond the reasons (DynamicResources: each request not met), for the scheduling explanation only. */
  details?: string[];
}

export const maxNodeScore = 100;

/** Cluster lookups that plugins need beyond nodes and pods. */
export interface Lookups {
  nsLabels: NamespaceLabels;
  /** The combined selector of Services, ReplicationControllers, ReplicaSets and StatefulSets selecting the pod. */
  defaultSelector(pod: Pod): Selector | undefined;
  /** Indexes of assigned pods (optional: without them plugins scan every pod). */
  index?: PodIndex;
  /** Claims and classes, for VolumeBinding (optional: without them volumes are not checked). */
  volumes?: {
    claim(namespace: string, name: string): PersistentVolumeClaim | undefined;
    storageClass(name: string): StorageClass | undefined;
  };
  /** Claims, slices and classes, for DynamicResources (optional: without them a pod with claims is unschedulable). */
  dra?: DraLookups;
}

/** What the plugin reads and writes of the cluster (Lookups.dra). */
export interface DraLookups {
  claim(namespace: string, name: string): ResourceClaim | undefined;
  /** Every claim (for the devices allocated ones hold). */
  claims(): readonly ResourceClaim[];
  /** The devices allocated claims hold (`allocatedDevices` of every claim), when the lookups keep them up to date. */
  allocated?(): ReadonlySet<string>;
  /** The slices a node may use: its own (spec.nodeName) and those of pools not bound to one node. */
  slicesFor(node: string): readonly ResourceSlice[];
  /** Whether slices name the node (its drivers publish devices: extended resources DeviceClasses map come from them). */
  nodeHasDevices(node: string): boolean;
  /** Creates a claim (the special claim of a pod's extended resources); returns it as stored. */
  createClaim(claim: ResourceClaim): Promise<ResourceClaim>;
  deleteClaim(namespace: string, name: string, uid: string): void | Promise<unknown>;
  /** Writes (or, with undefined, clears) the pod's status.extendedResourceClaimStatus. */
  setExtendedClaimStatus(pod: Pod, status: PodExtendedResourceClaimStatus | undefined): void | Promise<unknown>;
  classes(): ReadonlyMap<string, DeviceClass>;
  /** Writes a claim's allocation and reservations (adding the finalizer first when it has none). */
  reserve(claim: ResourceClaim, status: ResourceClaimStatus): void | Promise<unknown>;
  /** Called once the selector engine has loaded (pods waiting for it may go on). */
  engineLoaded(): void;
  /**
   * Allocations found for pods holding a reserved place (a gang waiting at Permit) and not written yet, by claim
   * uid: their devices count as taken, and a pod sharing the claim uses that allocation.
   */
  readonly inFlight: Map<string, InFlightAllocation>;
}

/** An allocation kept in memory between Reserve and PreBind. */
export interface InFlightAllocation {
  allocation: AllocationResult;
  /** The uid of the pod whose Reserve made it. */
  pod: string;
}

/** Everything computed for one attempt to schedule one pod. Plugins keep their pre-computed data here. */
export class CycleState {
  readonly data = new Map<string, unknown>();
  constructor(
    readonly pi: PodInfo,
    readonly allNodes: NodeInfo[],
    readonly lookups: Lookups,
    /**
     * Pods nominated to a node (preemptors waiting for their victims) that count against its resources; undefined
     * when no pod is nominated anywhere (the usual case: the per-node filter then asks nothing).
     */
    readonly nominated?: (node: string) => PodInfo[],
  ) {}
  /** NodeResourcesFit's list of the pod's requests, kept here rather than in `data` (it is read once per node). */
  fitRequests: Array<[string, number]> | undefined;
  /**
   * The pod's extended resources a DeviceClass maps (set by DynamicResources' PreFilter): on a node whose drivers
   * publish devices, DynamicResources allocates them and NodeResourcesFit leaves them out.
   */
  draExtended: ReadonlySet<string> | undefined;
  get<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }
}

export interface FilterPlugin {
  name: string;
  /** Pre-computes for the pod; a Failure rejects the pod on every node at once (upstream PreFilter). */
  preFilter?(s: CycleState): Failure | void;
  filter(s: CycleState, n: NodeInfo): Failure | undefined;
  /**
   * After PreFilter: true when Filter passes every node for this pod (upstream's PreFilter Skip status), so the
   * node-by-node search leaves the plugin out. Preemption's simulations still call Filter (a simulated pod may
   * give the plugin something to check).
   */
  skips?(s: CycleState): boolean;
  /** Once `host` is chosen (upstream's Reserve): keeps in memory what the pod takes, so that later attempts see it taken. */
  reserve?(s: CycleState, host: NodeInfo): void;
  /**
   * Before the pod is bound to `host` (upstream's PreBind): writes what the binding needs; throws (or rejects) to
   * refuse. A Promise only when a write has to wait (a create, which admission webhooks may see).
   */
  preBind?(s: CycleState, host: NodeInfo): void | Promise<void>;
  /** Undoes reserve and whatever preBind wrote (the place was given up: a failed gang attempt or pre-bind). Never throws. */
  unreserve?(s: CycleState): void;
  /** Keep pre-computed data right when preemption simulates removing or re-adding a pod on a node. */
  addPod?(s: CycleState, pi: PodInfo, n: NodeInfo): void;
  removePod?(s: CycleState, pi: PodInfo, n: NodeInfo): void;
}

export interface ScorePlugin {
  name: string;
  weight: number;
  /** Returns false to skip scoring for this pod. */
  preScore?(s: CycleState, feasible: NodeInfo[]): boolean;
  score(s: CycleState, n: NodeInfo): number;
  normalize?(s: CycleState, feasible: NodeInfo[], scores: number[]): void;
}

/** Runs every PreFilter; returns the first rejection. */
export function runPreFilters(plugins: FilterPlugin[], s: CycleState): Failure | undefined {
  for (const p of plugins) {
    const f = p.preFilter?.(s);
    if (f) return f;
  }
  return undefined;
}

export function runFilters(plugins: FilterPlugin[], s: CycleState, n: NodeInfo): Failure | undefined {
  for (const p of plugins) {
    const f = p.filter(s, n);
    if (f) return f;
  }
  return undefined;
}

/** Upstream's adaptive percentageOfNodesToScore: how many feasible nodes are enough to stop filtering. */
export function numFeasibleNodesToFind(numAllNodes: number): number {
  if (numAllNodes < 100) return numAllNodes;
  let pct = 50 - Math.trunc(numAllNodes / 125);
  if (pct < 5) pct = 5;
  const n = Math.trunc((numAllNodes * pct) / 100);
  return n < 100 ? 100 : n;
}

export interface FilterResult {
  feasible: NodeInfo[];
  failures: Map<string, Failure>;
  processed: number;
}

/** Filters nodes from `start` round the list until enough feasible ones are found. */
export function findFeasible(plugins: FilterPlugin[], s: CycleState, nodes: NodeInfo[], start: number): FilterResult {
  const want = numFeasibleNodesToFind(nodes.length);
  const active = plugins.filter((p) => !p.skips?.(s));
  const feasible: NodeInfo[] = [];
  const failures = new Map<string, Failure>();
  let processed = 0;
  let at = nodes.length ? start % nodes.length : 0;
  for (let i = 0; i < nodes.length && feasible.length < want; i++) {
    const n = nodes[at];
    if (++at === nodes.length) at = 0;
    processed++;
    const f = runFilters(active, s, n);
    if (f) failures.set(n.name, f);
    else feasible.push(n);
  }
  return { feasible, failures, processed };
}

/** Weighted sum of the normalized plugin scores for each feasible node; `seen` is shown each plugin's normalized scores. */
export function prioritize(plugins: ScorePlugin[], s: CycleState, feasible: NodeInfo[], seen?: (p: ScorePlugin, scores: readonly number[]) => void): number[] {
  const totals = new Array<number>(feasible.length).fill(0);
  const scores = new Array<number>(feasible.length);
  for (const p of plugins) {
    if (p.preScore && !p.preScore(s, feasible)) continue;
    for (let i = 0; i < feasible.length; i++) scores[i] = p.score(s, feasible[i]);
    p.normalize?.(s, feasible, scores);
    seen?.(p, scores);
    for (let i = 0; i < feasible.length; i++) totals[i] += scores[i] * p.weight;
  }
  return totals;
}

/** The highest total; ties are broken at random (reservoir sampling, as upstream). */
export function selectHost(feasible: NodeInfo[], totals: number[], random: () => number = Math.random): NodeInfo {
  let best = 0;
  let seen = 1;
  for (let i = 1; i < feasible.length; i++) {
    if (totals[i] > totals[best]) {
      best = i;
      seen = 1;
    } else if (totals[i] === totals[best]) {
      seen++;
      if (random() * seen < 1) best = i;
    }
  }
  return feasible[best];
}

/** Upstream's DefaultNormalizeScore: scale to 0..100 by the maximum, optionally reversed. */
export function defaultNormalize(scores: number[], reverse: boolean): void {
  let max = 0;
  for (const v of scores) if (v > max) max = v;
  for (let i = 0; i < scores.length; i++) {
    if (max === 0) {
      scores[i] = reverse ? maxNodeScore : 0;
      continue;
    }
    const v = Math.trunc((maxNodeScore * scores[i]) / max);
    scores[i] = reverse ? maxNodeScore - v : v;
  }
}
