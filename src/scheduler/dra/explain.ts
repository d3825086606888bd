// Why a node could not allocate the claims, request by request, for the scheduling explanation: how many devices
// match each request's class and selectors, and how many of those are in use, tainted or short of shared counters.
// When every request could be met on its own, the claim's requests conflict (constraints, counters, or devices
// wanted twice). Bounded by what is left of the call's budget.
import { untoleratedTaint } from './constraints.js';
import { CounterState } from './counters.js';
import { AllocationStop, claimName, devicesNeeded, freeDevices, type ClaimPlan, type Planner, type RequestData } from './requests.js';
import type { AllocateInput, Candidate, PoolInfo, RequestFailure } from './types.js';

export function explainFailure(input: AllocateInput, plans: ClaimPlan[], planner: Planner, pools: PoolInfo[]): RequestFailure[] {
  const out: RequestFailure[] = [];
  for (const p of pools) {
    if (p.incomplete) out.push({ claim: '', request: '', reason: `resource pool ${p.driver}/${p.name} is currently being updated` });
    else if (p.invalid) out.push({ claim: '', request: '', reason: `resource pool ${p.driver}/${p.name} is invalid: ${p.invalid}` });
  }
  const usable = pools.filter((p) => !p.incomplete && !p.invalid).flatMap((p) => p.candidates);
  const counters = new CounterState(pools, input.allocated);
  let failed = false;
  try {
    plans.forEach((plan, ci) => {
      const claim = claimName(input.claims[ci]);
      for (const alts of plan) {
        const reasons = alts.map((rd) => ({ rd, reason: shortfall(rd, usable, input.allocated, counters, planner) }));
        if (reasons.every((r) => r.reason !== undefined)) {
          failed = true;
          for (const r of reasons) out.push({ claim, request: r.rd.name, reason: r.reason! });
        }
      }
    });
  } catch (e) {
    if (!(e instanceof AllocationStop)) throw e;
    out.push({ claim: '', request: '', reason: 'not examined further: the allocation work bound was reached' });
    return out;
  }
  const need = devicesNeeded(plans);
  const free = freeDevices(usable, input.allocated);
  if (!failed && need > free) out.push({ claim: '', request: '', reason: `the claims need ${need} devices in all, ${free} ${free === 1 ? 'is' : 'are'} free` });
  else if (!failed) {
    for (const c of input.claims) out.push({ claim: claimName(c), request: '', reason: "the claim's requests cannot be met together (constraints, shared counters, or devices wanted by more than one request)" });
  }
  return out;
}

/** Why the request cannot be met even alone, or undefined when enough devices would do. */
function shortfall(rd: RequestData, candidates: Candidate[], allocated: ReadonlySet<string>, counters: CounterState, planner: Planner): string | undefined {
  const matching = rd.all ? rd.allDevices : candidates.filter((c) => planner.selectable(rd, c));
  const cls = `device class ${rd.className}`;
  if (!matching.length) return rd.selectors.some((s) => s.owner.startsWith('claim ')) ? `no device matches ${cls} and the request's selectors` : `no device matches ${cls}`;
  let inUse = 0;
  let tainted = 0;
  let noCounters = 0;
  let ok = 0;
  for (const c of matching) {
    if (!rd.adminAccess && allocated.has(c.key)) inUse++;
    else if (untoleratedTaint(c.device, rd.tolerations)) tainted++;
    else if (!counters.take(c)) noCounters++;
    else {
      counters.release(c);
      ok++;
    }
  }
  const need = rd.all ? matching.length : rd.count;
  if (ok >= need) return undefined;
  const parts = [inUse && `${inUse} in use`, tainted && `${tainted} with a taint not tolerated`, noCounters && `${noCounters} without enough shared counters left`].filter(Boolean);
  const wanted = rd.all ? `all ${need} matching devices` : `${need} device${need === 1 ? '' : 's'}`;
  return `needs ${wanted}, ${ok} of ${matching.length} matching available${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

/** One line for a node in the scheduling explanation: the failure, then each request's reason. */
export function failureText(message: string, requests: readonly RequestFailure[]): string {
  const parts = requests.map((r) => {
    const where = r.claim && r.request ? `claim ${r.claim}, request ${r.request}: ` : r.claim ? `claim ${r.claim}: ` : '';
    return `${where}${r.reason}`;
  }).filter((p) => p !== message);
  return parts.length ? `${message}: ${parts.join('; ')}` : message;
}
