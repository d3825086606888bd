// The allocator's "yes" for the common pod without running its search on every node the scheduler filters. When
// every request of the pod's claims is ExactCount from one class with the same selectors and tolerations (no
// firstAvailable, admin access or All) and the claims have no constraints, any free matching device will do: the
// node fits when it has as many free matching devices as the requests want in all. Which devices of a node match is
// found once per node's pools as gathered (a changed slice brings new ones) and demand; what is free is counted
// against the held devices on every call (allocations and in-flight reservations change them).
// It says "fits" only where the allocator is sure to find the devices as well: no matching device consumes shared
// counters, no selector failed on the pool's devices, and the search cannot reach its work bounds on the node.
// Otherwise (and to build the allocation itself) the caller runs the allocator.
import type { DeviceClass, DeviceToleration, ResourceClaim } from '../../generated/k8s/resource/v1.js';
import { untoleratedTaint } from './constraints.js';
import { nodePools } from './pools.js';
import { Budget, deviceSelected, Planner, type RequestData, type Selector } from './requests.js';
import { defaultLimits, type AllocateInput, type DeviceCel, type PoolInfo } from './types.js';

/** What the pod's claims want when all their requests want the same kind of device. */
interface Demand {
  /** Names the devices that match: the selectors' expressions (class then request) and tolerations. */
  key: string;
  selectors: Selector[];
  tolerations: DeviceToleration[];
  /** Devices wanted in all. */
  need: number;
  requests: number;
  /** The selectors' estimated cost on one device. */
  cost: number;
}

const demands = new WeakMap<readonly ResourceClaim[], { classes: ReadonlyMap<string, DeviceClass>; demand: Demand | undefined }>();

/** The claims' demand (kept per claim list and classes), or undefined when they want more than one kind of device. */
function demandOf(claims: readonly ResourceClaim[], classes: ReadonlyMap<string, DeviceClass>, cel: DeviceCel): Demand | undefined {
  const hit = demands.get(claims);
  if (hit?.classes === classes) return hit.demand;
  const demand = simpleDemand(claims, classes, cel);
  demands.set(claims, { classes, demand });
  return demand;
}

function simpleDemand(claims: readonly ResourceClaim[], classes: ReadonlyMap<string, DeviceClass>, cel: DeviceCel): Demand | undefined {
  for (const c of claims) {
    if (c.spec.devices?.constraints?.length) return undefined;
    for (const r of c.spec.devices?.requests ?? []) {
      const e = r.exactly;
      if (r.firstAvailable?.length || !e || e.adminAccess || (e.allocationMode ?? 'ExactCount') !== 'ExactCount') return undefined;
    }
  }
  let requests: RequestData[];
  try {
    // The allocator's own planning (classes, selectors, counts): what it refuses, it reports itself.
    requests = new Planner(cel, classes, new Budget(defaultLimits)).plan(claims, []).flat(2);
  } catch {
    return undefined;
  }
  if (!requests.length) return undefined;
  const keyOf = (r: RequestData) => JSON.stringify([r.selectors.map((s) => s.expression), r.tolerations]);
  const key = keyOf(requests[0]);
  if (requests.some((r) => keyOf(r) !== key)) return undefined;
  const { selectors, tolerations } = requests[0];
  return {
    key, selectors, tolerations, need: requests.reduce((n, r) => n + r.count, 0), requests: requests.length,
    cost: selectors.reduce((n, s) => n + (s.compiled.ok ? s.compiled.estimatedCost : Infinity), 0),
  };
}

/** What a node offers a demand: its candidates (for the work bounds) and the keys of the matching devices, in order. */
interface Offer {
  candidates: number;
  keys: string[];
}

/**
 * Per node's pools (nodePools' array, the same for a node until a slice changes), per demand: the offer, or null
 * when the allocator decides (a matching device consumes counters, a selector failed, a pool is too large to examine).
 */
const offers = new WeakMap<readonly PoolInfo[], Map<string, Offer | null>>();
const maxDemandsPerNode = 64;

function offerOf(pools: readonly PoolInfo[], d: Demand): Offer | null {
  let m = offers.get(pools);
  if (!m) offers.set(pools, (m = new Map()));
  else {
    const hit = m.get(d.key);
    if (hit !== undefined) return hit;
    if (m.size >= maxDemandsPerNode) m.clear();
  }
  const offer = findOffer(pools, d);
  m.set(d.key, offer);
  return offer;
}

function findOffer(pools: readonly PoolInfo[], d: Demand): Offer | null {
  const offer: Offer = { candidates: 0, keys: [] };
  for (const p of pools) {
    if (p.incomplete || p.invalid) continue;
    offer.candidates += p.candidates.length;
    const budget = new Budget(defaultLimits);
    try {
      for (const c of p.candidates) {
        if (!deviceSelected(d.selectors, c, budget) || untoleratedTaint(c.device, d.tolerations)) continue;
        if (c.device.consumesCounters?.length) return null;
        offer.keys.push(c.key);
      }
    } catch {
      return null;
    }
  }
  return offer;
}

/**
 * True only when `allocate(input)` is sure to succeed: the claims' demand is simple, the node's matching devices are
 * known, and enough of them are free (the search then takes the first free ones, in pool order, within its bounds).
 */
export function surelyFits(input: AllocateInput, cel: DeviceCel): boolean {
  const d = demandOf(input.claims, input.classes, cel);
  if (!d) return false;
  const offer = offerOf(nodePools(input.slices, input.node), d);
  if (!offer) return false;
  const limits = input.limits ? { ...defaultLimits, ...input.limits } : defaultLimits;
  // The search tries each candidate at most once per request and evaluates each selector on it at most once.
  const tries = offer.candidates * d.requests;
  if (tries > limits.maxSteps || tries * d.selectors.length > limits.maxEvaluations || tries * d.cost > limits.maxCelCost) return false;
  const { keys } = offer;
  let free = 0;
  for (let i = 0; i < keys.length; i++) if (!input.allocated.has(keys[i]) && ++free >= d.need) return true;
  return false;
}
