// NodePool disruption budgets as karpenter.sh/v1 reads them: each budget caps how many of the pool's nodes may be
// disrupted at once (a count, or a percentage of the pool's nodes rounded up), optionally only inside a cron window
// (`schedule` + `duration`, UTC) and only for some reasons; the most restrictive active budget wins, and nodes
// already being disrupted are subtracted.
import { parseSchedule, type Schedule } from '../../../controllers/cronjob/schedule.js';
import { parseGoDuration } from '../../../util/duration.js';
import type { Budget, NodePool } from '../types.js';

export const disruptionReasons = ['Underutilized', 'Empty', 'Drifted'] as const;
export type DisruptionReason = (typeof disruptionReasons)[number];

/** What a pool's budgets allow per reason (Infinity: unlimited). */
export type Allowed = Record<DisruptionReason, number>;

/** The default when a pool sets no budgets (the CRD defaults `[{nodes: 10%}]`). */
const defaultBudgets: Budget[] = [{ nodes: '10%' }];

// Parsed schedules by expression: pools are few, expressions repeat on every pass (bounded).
const schedules = new Map<string, Schedule | null>();
function scheduleOf(expr: string): Schedule | undefined {
  let s = schedules.get(expr);
  if (s === undefined) {
    try {
      s = parseSchedule(expr, 'UTC');
    } catch {
      s = null;
    }
    if (schedules.size >= 256) schedules.clear();
    schedules.set(expr, s);
  }
  return s ?? undefined;
}

/**
 * Whether the budget is in force at `nowMs`: always without a schedule; with one, when the schedule fired within
 * the last `duration` (its first firing after now − duration is not later than now). An unparsable schedule or
 * duration makes the budget block everything, as upstream's invariant error does (allowed 0).
 */
export function budgetActive(b: Budget, nowMs: number): boolean | 'invalid' {
  if (b.schedule === undefined && b.duration === undefined) return true;
  // Client data: only short strings reach the cron parser (the CRD's pattern bounds neither).
  const sched = typeof b.schedule !== 'string' || b.schedule.length > 256 ? undefined : scheduleOf(b.schedule);
  const dur = typeof b.duration !== 'string' || b.duration.length > 64 ? undefined : parseGoDuration(b.duration);
  if (!sched || dur === undefined) return 'invalid';
  const next = sched.next(nowMs - dur);
  return next !== undefined && next <= nowMs;
}

/** The budget's node count for a pool of `numNodes` nodes: `N`, or `P%` of them rounded up; undefined if malformed. */
export function budgetNodes(nodes: string, numNodes: number): number | undefined {
  const pct = /^(100|[0-9]{1,2})%$/.exec(nodes);
  if (pct) return Math.ceil((Number(pct[1]) * numNodes) / 100);
  return /^[0-9]+$/.test(nodes) ? Number(nodes) : undefined;
}

/** The most restrictive active budget per reason (before subtracting nodes already being disrupted). */
export function allowedByBudgets(pool: NodePool, numNodes: number, nowMs: number): Allowed {
  const out: Allowed = { Underutilized: Infinity, Empty: Infinity, Drifted: Infinity };
  const budgets = Array.isArray(pool.spec?.disruption?.budgets) ? pool.spec.disruption.budgets : defaultBudgets;
  for (const b of budgets.slice(0, 50)) {
    if (typeof b !== 'object' || b === null) continue;
    const active = budgetActive(b, nowMs);
    let value: number;
    if (active === 'invalid') value = 0;
    else if (!active) continue;
    else value = budgetNodes(String(b.nodes ?? '10%'), numNodes) ?? 0;
    const reasons = Array.isArray(b.reasons) ? b.reasons.slice(0, 50) : disruptionReasons;
    for (const r of reasons) if ((disruptionReasons as readonly unknown[]).includes(r)) out[r as DisruptionReason] = Math.min(out[r as DisruptionReason], value);
  }
  return out;
}

/** What may still be disrupted now: the budgets' allowance minus the pool's nodes already being disrupted, ≥ 0. */
export function allowedDisruptions(pool: NodePool, numNodes: number, disrupting: number, nowMs: number): Allowed {
  const a = allowedByBudgets(pool, numNodes, nowMs);
  for (const r of disruptionReasons) a[r] = Math.max(0, a[r] - disrupting);
  return a;
}
