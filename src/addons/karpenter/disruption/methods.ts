// The disruption methods in upstream's order (Drift, Emptiness, multi-node then single-node consolidation), as pure
// functions from candidates, budgets and a scheduling simulation to at most one command.
import type { Pod } from '../../../generated/k8s/core/v1.js';
import type { InstanceType } from '../catalog.js';
import { allows, requirement } from '../scheduling/requirements.js';
import type { ClaimPlan, SimResult } from '../scheduling/types.js';
import { conditionTypes, labels as wk } from '../types.js';
import type { Allowed, DisruptionReason } from './budgets.js';
import { condTrue, type Candidate } from './candidates.js';
import { durationMs, getCondition } from './claim-conditions.js';

export type MethodName = 'Drift' | 'Emptiness' | 'MultiNodeConsolidation' | 'SingleNodeConsolidation';
export const methodOrder: readonly MethodName[] = ['Drift', 'Emptiness', 'MultiNodeConsolidation', 'SingleNodeConsolidation'];
export const reasonOf: Record<MethodName, DisruptionReason> = {
  Drift: 'Drifted', Emptiness: 'Empty', MultiNodeConsolidation: 'Underutilized', SingleNodeConsolidation: 'Underutilized',
};

export interface Command {
  method: MethodName;
  reason: DisruptionReason;
  candidates: Candidate[];
  /** NodeClaims to launch first (instance types narrowed to the cheaper ones for consolidation). */
  replacements: ClaimPlan[];
  /** $/h saved: the candidates' prices minus the replacements'. */
  savings: number;
}

export type Decision = 'Delete' | 'Replace';
export const decisionOf = (c: Command): Decision => (c.replacements.length ? 'Replace' : 'Delete');

/** Runs the scheduling simulation for the candidates' pods on every node but theirs (max new claims as given). */
export type Simulate = (candidates: readonly Candidate[], maxNewClaims: number | undefined) => SimResult;

/** Reports why a single candidate could not be consolidated (upstream's Unconsolidatable / DisruptionBlocked). */
export interface MethodReporter {
  unconsolidatable(c: Candidate, message: string): void;
  blocked(c: Candidate, message: string): void;
}

/** Budgets per NodePool (mutable: methods take from them as they choose candidates). */
export type BudgetMap = Map<string, Allowed>;

const budgetLeft = (b: BudgetMap, c: Candidate, r: DisruptionReason): number => b.get(c.pool.metadata.name ?? '')?.[r] ?? 0;
const take = (b: BudgetMap, c: Candidate, r: DisruptionReason): void => {
  const a = b.get(c.pool.metadata.name ?? '');
  if (a) a[r] -= 1;
};

const consolidationEnabled = (c: Candidate): boolean => durationMs(c.pool.spec?.disruption?.consolidateAfter ?? '0s') !== undefined;
const underutilizedPolicy = (c: Candidate): boolean => (c.pool.spec?.disruption?.consolidationPolicy ?? 'WhenEmptyOrUnderutilized') !== 'WhenEmpty';

/** Whether the method considers the candidate at all (upstream's ShouldDisrupt). */
export function shouldDisrupt(m: MethodName, c: Candidate, report?: MethodReporter): boolean {
  if (m === 'Drift') return condTrue(c.claim, conditionTypes.drifted);
  if (!consolidationEnabled(c)) {
    report?.unconsolidatable(c, `NodePool "${c.pool.metadata.name}" has consolidation disabled`);
    return false;
  }
  if (m === 'Emptiness') return c.reschedulable.length === 0 && condTrue(c.claim, conditionTypes.consolidatable);
  if (!underutilizedPolicy(c)) {
    report?.unconsolidatable(c, `NodePool "${c.pool.metadata.name}" has non-empty consolidation disabled`);
    return false;
  }
  return condTrue(c.claim, conditionTypes.consolidatable);
}

const byCost = (a: Candidate, b: Candidate): number => a.disruptionCost - b.disruptionCost || (a.claim.metadata.name ?? '').localeCompare(b.claim.metadata.name ?? '');
const priceSum = (cs: readonly Candidate[]): number => cs.reduce((s, c) => s + c.price, 0);
const podKey = (p: Pod): string => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;

/** The cheapest offering of `t` the plan's requirements allow (Infinity when none). */
export function compatiblePrice(t: InstanceType, plan: ClaimPlan): number {
  const ct = plan.requirements.get(wk.capacityType);
  const zone = plan.requirements.get(wk.zone);
  let p = Infinity;
  for (const o of t.offerings) {
    if (!o.available || (ct && !allows(ct, o.capacityType)) || (zone && !allows(zone, o.zone))) continue;
    if (o.price < p) p = o.price;
  }
  return p;
}

/** Why the candidates' pods would not all schedule (upstream's NonPendingPodSchedulingErrors), or undefined. */
function failureOf(cands: readonly Candidate[], res: SimResult): string | undefined {
  if (!res.failures.size) return undefined;
  const errs: string[] = [];
  for (const c of cands) for (const p of c.reschedulable) {
    const f = res.failures.get(podKey(p));
    if (f !== undefined) errs.push(`${podKey(p)} => ${f}`);
  }
  if (!errs.length) return undefined;
  const shown = errs.slice(0, 5).join(' ');
  return `not all pods would schedule, ${shown} ${errs.length > 5 ? ` and ${errs.length - 5} other(s)` : ''}`.trimEnd();
}

/**
 * Upstream's computeConsolidation: the candidates' pods fit on the other nodes (Delete), or on them plus one
 * NodeClaim cheaper than the candidates together (Replace); otherwise no command.
 */
export function computeConsolidation(cands: readonly Candidate[], simulate: Simulate, report?: MethodReporter): Command | undefined {
  const one = cands.length === 1 ? cands[0] : undefined;
  const res = simulate(cands, 1);
  const failure = failureOf(cands, res);
  if (failure !== undefined) {
    if (one) report?.unconsolidatable(one, failure);
    return undefined;
  }
  const base = { method: (cands.length > 1 ? 'MultiNodeConsolidation' : 'SingleNodeConsolidation') as MethodName, reason: 'Underutilized' as const, candidates: [...cands] };
  if (!res.newClaims.length) return { ...base, replacements: [], savings: priceSum(cands) };
  if (res.newClaims.length !== 1) {
    if (one) report?.unconsolidatable(one, `Can't remove without creating ${res.newClaims.length} candidates`);
    return undefined;
  }
  const current = priceSum(cands);
  let plan = res.newClaims[0];
  const ct = plan.requirements.get(wk.capacityType);
  const spotAllowed = !ct || allows(ct, 'spot');
  // Spot-to-spot consolidation is behind a feature gate upstream, off by default.
  if (spotAllowed && cands.every((c) => c.claim.metadata.labels?.[wk.capacityType] === 'spot')) {
    if (one) report?.unconsolidatable(one, "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node");
    return undefined;
  }
  // A replacement that may be spot or on-demand is launched as spot (the cheaper), as upstream narrows it.
  if (spotAllowed && (!ct || allows(ct, 'on-demand'))) {
    const reqs = new Map(plan.requirements);
    reqs.set(wk.capacityType, requirement({ key: wk.capacityType, operator: 'In', values: ['spot'] }));
    plan = { ...plan, requirements: reqs };
  }
  // Keep only the instance types cheaper than what goes away; for several candidates, also cheaper than any type
  // they already run (upstream's filterOutSameType: replacing N nodes by one of their own kind churns for little).
  let ceiling = current;
  if (cands.length > 1) {
    const own = new Map<string, number>();
    for (const c of cands) {
      const t = c.node.metadata?.labels?.[wk.instanceType];
      if (t !== undefined && c.price > 0) own.set(t, Math.min(own.get(t) ?? Infinity, c.price));
    }
    for (const t of plan.instanceTypes) if (own.has(t.name)) ceiling = Math.min(ceiling, own.get(t.name)!);
  }
  const cheaper = plan.instanceTypes.filter((t) => compatiblePrice(t, plan) < ceiling);
  if (!cheaper.length) {
    if (one) report?.unconsolidatable(one, "Can't replace with a cheaper node");
    return undefined;
  }
  const price = Math.min(...cheaper.map((t) => compatiblePrice(t, plan)));
  return { ...base, replacements: [{ ...plan, instanceTypes: cheaper, price }], savings: current - price };
}

/** Drift: empty drifted nodes all at once (within budget), else the oldest drifted node with its replacements. */
function drift(cands: Candidate[], budgets: BudgetMap, simulate: Simulate, report?: MethodReporter): Command | undefined {
  const since = (c: Candidate) => Date.parse(getCondition(c.claim, conditionTypes.drifted)?.lastTransitionTime ?? '') || 0;
  cands.sort((a, b) => since(a) - since(b));
  const empty: Candidate[] = [];
  for (const c of cands) {
    if (c.reschedulable.length || budgetLeft(budgets, c, 'Drifted') <= 0) continue;
    empty.push(c);
    take(budgets, c, 'Drifted');
  }
  if (empty.length) return { method: 'Drift', reason: 'Drifted', candidates: empty, replacements: [], savings: priceSum(empty) };
  for (const c of cands) {
    if (budgetLeft(budgets, c, 'Drifted') <= 0) continue;
    const res = simulate([c], undefined);
    const failure = failureOf([c], res);
    if (failure !== undefined) {
      report?.blocked(c, failure);
      continue;
    }
    const cost = res.newClaims.reduce((s, p) => s + p.price, 0);
    return { method: 'Drift', reason: 'Drifted', candidates: [c], replacements: res.newClaims, savings: c.price - cost };
  }
  return undefined;
}

/** Emptiness: every empty, consolidatable candidate the budgets allow, in one command. */
function emptiness(cands: Candidate[], budgets: BudgetMap): Command | undefined {
  const empty: Candidate[] = [];
  for (const c of cands.sort(byCost)) {
    if (c.reschedulable.length || budgetLeft(budgets, c, 'Empty') <= 0) continue;
    empty.push(c);
    take(budgets, c, 'Empty');
  }
  return empty.length ? { method: 'Emptiness', reason: 'Empty', candidates: empty, replacements: [], savings: priceSum(empty) } : undefined;
}

/** Multi-node: the longest prefix (by disruption cost, at most 100) that consolidates, by binary search. */
function multiNode(cands: Candidate[], budgets: BudgetMap, simulate: Simulate): Command | undefined {
  const pick: Candidate[] = [];
  for (const c of cands.sort(byCost)) {
    if (budgetLeft(budgets, c, 'Underutilized') <= 0 || !c.reschedulable.length) continue;
    pick.push(c);
    take(budgets, c, 'Underutilized');
    if (pick.length >= 100) break;
  }
  if (pick.length < 2) return undefined;
  let lo = 1;
  let hi = pick.length - 1;
  let best: Command | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const cmd = computeConsolidation(pick.slice(0, mid + 1), simulate);
    if (cmd) {
      best = cmd;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/** Single-node: the first candidate (by disruption cost) that can be deleted or replaced by a cheaper node. */
function singleNode(cands: Candidate[], budgets: BudgetMap, simulate: Simulate, report?: MethodReporter): Command | undefined {
  for (const c of cands.sort(byCost)) {
    if (budgetLeft(budgets, c, 'Underutilized') <= 0 || !c.reschedulable.length) continue;
    const cmd = computeConsolidation([c], simulate, report);
    if (cmd) return cmd;
  }
  return undefined;
}

/** The method's command over the candidates it should disrupt, or undefined. `budgets` is consumed. */
export function computeCommand(m: MethodName, all: readonly Candidate[], budgets: BudgetMap, simulate: Simulate, report?: MethodReporter): Command | undefined {
  const cands = all.filter((c) => shouldDisrupt(m, c, report));
  if (!cands.length) return undefined;
  switch (m) {
    case 'Drift': return drift(cands, budgets, simulate, report);
    case 'Emptiness': return emptiness(cands, budgets);
    case 'MultiNodeConsolidation': return multiNode(cands, budgets, simulate);
    case 'SingleNodeConsolidation': return singleNode(cands, budgets, simulate, report);
  }
}
