// successPolicy (Indexed Jobs): the Job succeeds early once any rule's succeededIndexes and/or succeededCount is met.
import type { SuccessPolicy } from '../../generated/k8s/batch/v1.js';
import { type Intervals, overlapCount, parseIntervals, totalOf } from './intervals.js';

/** The SuccessCriteriaMet message ("Matched rules at index N") when a rule is met, else undefined. */
export function matchSuccessPolicy(policy: SuccessPolicy | undefined, completions: number, succeeded: Intervals): string | undefined {
  if (!policy || !succeeded.length) return undefined;
  const rules = policy.rules ?? [];
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i];
    if (r.succeededIndexes !== undefined && r.succeededIndexes !== null) {
      const want = parseIntervals(r.succeededIndexes, completions);
      if (!want.length) continue;
      const have = overlapCount(want, succeeded);
      if (have === totalOf(want) || (r.succeededCount !== undefined && have >= r.succeededCount)) return `Matched rules at index ${i}`;
    } else if (r.succeededCount !== undefined && totalOf(succeeded) >= r.succeededCount) {
      return `Matched rules at index ${i}`;
    }
  }
  return undefined;
}
