// The structured-parameters allocator: finds devices on one node for all of a pod's claims at once, or none.
// A depth-first search with backtracking, claim by claim, request by request, device by device: each request
// tries its firstAvailable alternatives in order; each device it takes must match the class's and the request's
// selectors, be free (or the request has admin access), have its taints tolerated, leave its pool's shared counters
// non-negative and keep the claim's constraints. Devices of one request are tried as combinations (in pool order),
// never as permutations. The first complete solution wins. Every candidate tried and every selector evaluated is
// one step of a bounded budget, so hostile input ends with a clear error, not a blocked scheduler.
import type { AllocationResult, ResourceClaim } from '../../generated/k8s/resource/v1.js';
import { ClaimConstraint, untoleratedTaint } from './constraints.js';
import { CounterState } from './counters.js';
import { explainFailure } from './explain.js';
import { nodePools } from './pools.js';
import { allocationResultsMaxSize, AllocationStop, Budget, devicesNeeded, freeDevices, Planner, type ClaimPlan, type RequestData } from './requests.js';
import { buildAllocation, type Pick } from './result.js';
import { cannotAllocateAllClaims, defaultLimits, type AllocateInput, type AllocateOutcome, type Candidate, type DeviceCel, type PoolInfo } from './types.js';

/** Allocates devices on `input.node` for every claim in `input.claims`, all or none. Never throws. */
export function allocate(input: AllocateInput, cel: DeviceCel): AllocateOutcome {
  const budget = new Budget({ ...defaultLimits, ...input.limits });
  try {
    const pools = nodePools(input.slices, input.node);
    const planner = new Planner(cel, input.classes, budget);
    const plans = plansFor(planner, input, pools);
    const candidates = pools.filter((p) => !p.incomplete && !p.invalid).flatMap((p) => p.candidates);
    const search = new Search(input, plans, planner, candidates, new CounterState(pools, input.allocated));
    if (devicesNeeded(plans) <= freeDevices(candidates, input.allocated) && search.place(0, 0, -1, 0, 0)) {
      // Built when read: the scheduler finds a solution on many nodes and binds to one.
      let built: AllocationResult[] | undefined;
      return {
        ok: true,
        get allocations() {
          return (built ??= input.claims.map((claim, i): AllocationResult => buildAllocation(claim, plans[i], search.chosen[i], search.picks[i], input.node.name)));
        },
      };
    }
    return { ok: false, kind: 'unschedulable', message: cannotAllocateAllClaims, requests: explainFailure(input, plans, planner, pools) };
  } catch (e) {
    if (e instanceof AllocationStop) return { ok: false, kind: e.kind, message: e.message, requests: e.kind === 'unschedulable' ? [{ claim: '', request: '', reason: e.message }] : [] };
    return { ok: false, kind: 'error', message: e instanceof Error ? e.message : String(e), requests: [] };
  }
}

/**
 * Plans by claim list and classes: the scheduler asks for the same claims on node after node, and a plan without an
 * "All" request depends on neither the node nor its pools (selector verdicts are kept by device, which names its pool).
 */
const planMemo = new WeakMap<readonly ResourceClaim[], { classes: AllocateInput['classes']; plans: ClaimPlan[] }>();

function plansFor(planner: Planner, input: AllocateInput, pools: readonly PoolInfo[]): ClaimPlan[] {
  const memo = planMemo.get(input.claims);
  if (memo && memo.classes === input.classes) return memo.plans;
  const plans = planner.plan(input.claims, pools);
  if (plans.every((plan) => plan.every((alts) => alts.every((a) => !a.all)))) planMemo.set(input.claims, { classes: input.classes, plans });
  return plans;
}

class Search {
  /** Per claim, per request: the index of the alternative taken. */
  readonly chosen: number[][];
  /** Per claim: the devices taken, in order. */
  readonly picks: Pick[][];
  /** Devices taken by this allocation: device key -> indexes of the claims holding it. */
  private readonly taking = new Map<string, Set<number>>();
  private readonly constraints: ClaimConstraint[][];

  constructor(
    private readonly input: AllocateInput, private readonly plans: ClaimPlan[], private readonly planner: Planner,
    private readonly candidates: Candidate[], private readonly counters: CounterState,
  ) {
    this.chosen = plans.map((p) => p.map(() => 0));
    this.picks = plans.map(() => []);
    this.constraints = input.claims.map((c) => (c.spec.devices?.constraints ?? []).map((k) => new ClaimConstraint(k)));
  }

  /**
   * Places device `device` of request `request` of claim `claim` (alternative `alt`, -1: not chosen yet), trying
   * candidates from index `start` on; true once everything after it is placed too.
   */
  place(claim: number, request: number, alt: number, device: number, start: number): boolean {
    if (claim >= this.plans.length) return true;
    const plan = this.plans[claim];
    if (request >= plan.length) return this.place(claim + 1, 0, -1, 0, 0);
    if (alt < 0) {
      for (let a = 0; a < plan[request].length; a++) {
        this.chosen[claim][request] = a;
        if (this.place(claim, request, a, 0, 0)) return true;
      }
      return false;
    }
    const rd = plan[request][alt];
    if (rd.all && rd.allDevices.length === 0) return false;
    if (device >= rd.count) return this.place(claim, request + 1, -1, 0, 0);
    if (this.picks[claim].length + rd.count - device > allocationResultsMaxSize) return false;
    if (rd.all) {
      // "All" wants exactly these devices: if one cannot be had, there is no solution with this alternative.
      this.planner.budget.step();
      const undo = this.take(rd, rd.allDevices[device]);
      if (!undo) return false;
      if (this.place(claim, request, alt, device + 1, 0)) return true;
      undo();
      return false;
    }
    for (let i = start; i < this.candidates.length; i++) {
      const c = this.candidates[i];
      this.planner.budget.step();
      if (!this.free(rd, c) || !this.planner.selectable(rd, c)) continue;
      const undo = this.take(rd, c);
      if (!undo) continue;
      if (this.place(claim, request, alt, device + 1, i + 1)) return true;
      undo();
    }
    return false;
  }

  /** Not held by another claim, nor taken by this allocation (admin access: not taken for the same claim). */
  private free(rd: RequestData, c: Candidate): boolean {
    const holders = this.taking.get(c.key);
    if (rd.adminAccess) return !holders?.has(rd.claimIndex);
    return !this.input.allocated.has(c.key) && !holders?.size;
  }

  /** Takes the device for the request if its taints, counters and the claim's constraints allow; the undo, or undefined. */
  private take(rd: RequestData, c: Candidate): (() => void) | undefined {
    if (!this.free(rd, c) || untoleratedTaint(c.device, rd.tolerations)) return undefined;
    if (!this.counters.take(c)) return undefined;
    const cons = this.constraints[rd.claimIndex];
    for (let i = 0; i < cons.length; i++) {
      if (!cons[i].add(rd.base, rd.name, c.device, c.id.driver)) {
        for (let j = 0; j < i; j++) cons[j].remove(rd.base, rd.name, c.device, c.id.driver);
        this.counters.release(c);
        return undefined;
      }
    }
    let holders = this.taking.get(c.key);
    if (!holders) this.taking.set(c.key, (holders = new Set()));
    holders.add(rd.claimIndex);
    const picks = this.picks[rd.claimIndex];
    picks.push({ request: rd, candidate: c });
    return () => {
      picks.pop();
      holders.delete(rd.claimIndex);
      for (const k of cons) k.remove(rd.base, rd.name, c.device, c.id.driver);
      this.counters.release(c);
    };
  }
}
