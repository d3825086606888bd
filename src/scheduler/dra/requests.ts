// The claims' requests made ready for the search: each request (or each firstAvailable alternative) with its
// class, compiled selectors, mode and count; and the selector check of a device against a request, cached per
// device and request and charged to the call's work bound.
import type { DeviceClass, DeviceRequest, DeviceSelector, DeviceSubRequest, DeviceToleration, ExactDeviceRequest, ResourceClaim } from '../../generated/k8s/resource/v1.js';
import { selectorMaxCost, type AllocatorLimits, type Candidate, type CompiledSelector, type DeviceCel, type FailureKind, type PoolInfo } from './types.js';

/** Upstream's AllocationResultsMaxSize: devices one claim may be allocated. */
export const allocationResultsMaxSize = 32;
/** Requests of all the claims one call allocates: the search recurses once per device, so this bounds its depth. */
const maxRequestsPerCall = 1024;
/** Upstream's DeviceSelectorsMaxSize: selectors of a class or a request (API validation keeps to it; so does allocation). */
export const selectorsMaxSize = 32;

/** Stops the search with a failure that is not "no solution" (an error, or the work bound). */
export class AllocationStop extends Error {
  constructor(readonly kind: FailureKind, message: string) {
    super(message);
  }
}

export interface Selector { expression: string; compiled: CompiledSelector; index: number; owner: string }

export interface RequestData {
  claimIndex: number;
  /** The request's name, and the name results carry (`request/subrequest` for an alternative). */
  base: string;
  name: string;
  className: string;
  class: DeviceClass;
  selectors: Selector[];
  all: boolean;
  /** Devices wanted: the count, or for All the number of matching devices. */
  count: number;
  adminAccess: boolean;
  tolerations: DeviceToleration[];
  /** For All: the devices, fixed up front. */
  allDevices: Candidate[];
  /** Cache of selector verdicts by device key. */
  matches: Map<string, boolean>;
}

/** Per claim, per request: the alternatives (one unless firstAvailable lists several). */
export type ClaimPlan = RequestData[][];

/**
 * A cheap bound checked before the search: requests without admin access need at least their smallest
 * alternative's count of distinct free devices. Spares the search from trying every assignment when the node has
 * too few in all.
 */
export function devicesNeeded(plans: ClaimPlan[]): number {
  let need = 0;
  for (const plan of plans) {
    for (const alts of plan) if (alts.every((a) => !a.adminAccess)) need += Math.min(...alts.map((a) => a.count));
  }
  return need;
}

export function freeDevices(candidates: readonly Candidate[], allocated: ReadonlySet<string>): number {
  let n = 0;
  for (let i = 0; i < candidates.length; i++) if (!allocated.has(candidates[i].key)) n++;
  return n;
}

export const claimName = (c: ResourceClaim) => `${c.metadata.namespace ?? ''}/${c.metadata.name ?? ''}`;
export const deviceText = (c: Candidate) => `${c.id.driver}/${c.id.pool}/${c.id.device}`;

/** Work done so far against the call's limits; throws `AllocationStop` once any is spent. */
export class Budget {
  steps = 0;
  evaluations = 0;
  celCost = 0;
  constructor(readonly limits: AllocatorLimits) {}
  step(): void {
    if (++this.steps > this.limits.maxSteps) {
      throw new AllocationStop('unschedulable', `allocation gave up after ${this.limits.maxSteps} steps: too many devices, requests or constraints to try on this node`);
    }
  }
  /** Before an evaluation: what it may spend. */
  evaluation(): number {
    if (++this.evaluations > this.limits.maxEvaluations) {
      throw new AllocationStop('unschedulable', `allocation gave up after ${this.limits.maxEvaluations} device selector evaluations: too many devices or selectors on this node`);
    }
    return this.limits.maxCelCost - this.celCost;
  }
}

export class Planner {
  constructor(
    private readonly cel: DeviceCel, private readonly classes: ReadonlyMap<string, DeviceClass>, readonly budget: Budget,
  ) {}

  /** The plan of every claim, in order; throws `AllocationStop` for what upstream reports as an error. */
  plan(claims: readonly ResourceClaim[], pools: readonly PoolInfo[]): ClaimPlan[] {
    const requests = claims.reduce((n, c) => n + (c.spec.devices?.requests?.length ?? 0), 0);
    if (requests > maxRequestsPerCall) {
      throw new AllocationStop('error', `the claims have ${requests} requests in all, more than the ${maxRequestsPerCall} one allocation handles`);
    }
    return claims.map((claim, claimIndex) => {
      let minDevices = 0;
      const plan = (claim.spec.devices?.requests ?? []).map((r) => {
        const alts = this.alternatives(claim, claimIndex, r, pools);
        minDevices += Math.min(...alts.map((a) => a.count));
        return alts;
      });
      if (minDevices > allocationResultsMaxSize) {
        throw new AllocationStop('error', `claim ${claimName(claim)}: number of requested devices ${minDevices} exceeds the claim limit of ${allocationResultsMaxSize}`);
      }
      return plan;
    });
  }

  private alternatives(claim: ResourceClaim, claimIndex: number, r: DeviceRequest, pools: readonly PoolInfo[]): RequestData[] {
    if (r.firstAvailable?.length) return r.firstAvailable.map((s: DeviceSubRequest) => this.request(claim, claimIndex, r.name, `${r.name}/${s.name}`, s, false, pools));
    if (!r.exactly) throw new AllocationStop('error', `claim ${claimName(claim)}, request ${r.name}: missing device class name (unsupported request type?)`);
    return [this.request(claim, claimIndex, r.name, r.name, r.exactly, r.exactly.adminAccess ?? false, pools)];
  }

  private request(claim: ResourceClaim, claimIndex: number, base: string, name: string, r: ExactDeviceRequest | DeviceSubRequest, adminAccess: boolean, pools: readonly PoolInfo[]): RequestData {
    const cls = this.classes.get(r.deviceClassName);
    if (!cls) throw new AllocationStop('unresolvable', `request ${name}: device class ${r.deviceClassName} does not exist`);
    const selectors = [
      ...this.compileAll(cls.spec.selectors, `class ${cls.metadata.name ?? ''}`, claim, name),
      ...this.compileAll(r.selectors, `claim ${claimName(claim)}`, claim, name),
    ];
    const mode = r.allocationMode || 'ExactCount';
    if (mode !== 'ExactCount' && mode !== 'All') throw new AllocationStop('error', `claim ${claimName(claim)}, request ${name}: unsupported count mode ${mode}`);
    const count = r.count ?? 1;
    if (mode === 'ExactCount' && (!Number.isSafeInteger(count) || count < 1)) throw new AllocationStop('error', `claim ${claimName(claim)}, request ${name}: count ${count} is not a positive number`);
    const data: RequestData = {
      claimIndex, base, name, className: r.deviceClassName, class: cls, selectors, all: mode === 'All', count: mode === 'All' ? 0 : count,
      adminAccess, tolerations: r.tolerations ?? [], allDevices: [], matches: new Map(),
    };
    if (data.all) {
      for (const p of pools) {
        if (p.incomplete) throw new AllocationStop('error', `claim ${claimName(claim)}, request ${name}: asks for all devices, but resource pool ${p.driver}/${p.name} is currently being updated`);
        if (p.invalid) throw new AllocationStop('error', `claim ${claimName(claim)}, request ${name}: asks for all devices, but resource pool ${p.driver}/${p.name} is currently invalid`);
        for (const c of p.candidates) if (this.selectable(data, c)) data.allDevices.push(c);
      }
      data.count = data.allDevices.length;
    }
    return data;
  }

  private compileAll(list: DeviceSelector[] | undefined, owner: string, claim: ResourceClaim, request: string): Selector[] {
    if ((list?.length ?? 0) > selectorsMaxSize) throw new AllocationStop('error', `${owner}, request ${request}: ${list!.length} selectors exceed the limit of ${selectorsMaxSize}`);
    return (list ?? []).map((s, index) => {
      if (!s.cel) throw new AllocationStop('error', `claim ${claimName(claim)}, request ${request}, selector #${index}: CEL expression empty (unsupported selector type?)`);
      const compiled = this.cel.compile(s.cel.expression);
      if (!compiled.ok) throw new AllocationStop('error', `${owner}: selector #${index}: CEL compile error: ${compiled.error}`);
      return { expression: s.cel.expression, compiled, index, owner };
    });
  }

  /** Whether the device satisfies the class's selectors, then the request's (devices with binding conditions never). */
  selectable(r: RequestData, c: Candidate): boolean {
    const hit = r.matches.get(c.key);
    if (hit !== undefined) return hit;
    const ok = deviceSelected(r.selectors, c, this.budget);
    r.matches.set(c.key, ok);
    return ok;
  }
}

/**
 * Whether the device satisfies the selectors, in order (devices with binding conditions never). Each evaluation is
 * charged to the budget; throws `AllocationStop` when the budget runs out or a selector fails.
 */
export function deviceSelected(selectors: readonly Selector[], c: Candidate, budget: Budget): boolean {
  if (c.device.bindingConditions?.length) return false;
  for (const s of selectors) {
    if (!s.compiled.ok) return false;
    const left = budget.evaluation();
    const res = s.compiled.evaluate(c.device, c.id.driver, left);
    budget.celCost += res.cost;
    if (!res.ok) {
      if (res.costExceeded && left < selectorMaxCost) {
        throw new AllocationStop('unschedulable', `allocation gave up: device selectors spent the CEL cost budget of ${budget.limits.maxCelCost} on this node`);
      }
      throw new AllocationStop('error', `${s.owner}: selector #${s.index} on device ${deviceText(c)}: CEL runtime error: ${res.error}`);
    }
    if (!res.matches) return false;
  }
  return true;
}
