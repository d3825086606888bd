// podFailurePolicy: the first rule whose exit-code or pod-condition requirement matches a failed pod decides what the
// failure means (FailJob, FailIndex, Ignore or Count). Rules may carry a `name` (KEP-4443): a named FailJob rule
// gives the Job's FailureTarget/Failed conditions the reason `PodFailurePolicy_<name>`.
import type { PodFailurePolicy, PodFailurePolicyOnExitCodesRequirement, PodFailurePolicyRule } from '../../generated/k8s/batch/v1.js';
import type { ContainerStatus, Pod, PodCondition } from '../../generated/k8s/core/v1.js';

export type PolicyAction = 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';

/** A rule as the API now stores it: upstream's fields plus the optional name. */
export type NamedRule = PodFailurePolicyRule & { name?: string };

export interface PolicyMatch {
  /** The Job failure message when a FailJob rule matched. */
  failJobMessage?: string;
  /** The condition reason a FailJob match gives the Job. */
  failJobReason?: string;
  /** False when an Ignore rule matched: the failure counts against no limit. */
  countFailed: boolean;
  action?: PolicyAction;
  ruleIndex?: number;
}

export const podFailurePolicyReason = 'PodFailurePolicy';

/** `PodFailurePolicy`, or `PodFailurePolicy_<name>` for a named rule. */
export function reasonForRule(rule: NamedRule | undefined): string {
  return rule?.name ? `${podFailurePolicyReason}_${rule.name}` : podFailurePolicyReason;
}

function exitCodeMatches(code: number, req: PodFailurePolicyOnExitCodesRequirement): boolean {
  const listed = (req.values ?? []).includes(code);
  if (req.operator === 'In') return listed;
  if (req.operator === 'NotIn') return !listed;
  return false;
}

/** The first terminated, non-zero container (app containers before init containers) the requirement matches. */
function matchExitCodes(pod: Pod, req: PodFailurePolicyOnExitCodesRequirement): ContainerStatus | undefined {
  for (const list of [pod.status?.containerStatuses, pod.status?.initContainerStatuses]) {
    for (const cs of list ?? []) {
      const t = cs.state?.terminated;
      if (!t) continue;
      if (req.containerName && req.containerName !== cs.name) continue;
      if (t.exitCode !== 0 && exitCodeMatches(t.exitCode, req)) return cs;
    }
  }
  return undefined;
}

function matchConditions(pod: Pod, patterns: NonNullable<PodFailurePolicyRule['onPodConditions']>): PodCondition | undefined {
  for (const c of pod.status?.conditions ?? []) {
    if (patterns.some((p) => p.type === c.type && (p.status ?? 'True') === c.status)) return c;
  }
  return undefined;
}

/** Matches a failed pod against the policy (no policy: the failure simply counts). */
export function matchPodFailurePolicy(policy: PodFailurePolicy | undefined, pod: Pod): PolicyMatch {
  if (!policy) return { countFailed: true };
  const rules = (policy.rules ?? []) as NamedRule[];
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i];
    let failMessage: string | undefined;
    if (rule.onExitCodes) {
      const cs = matchExitCodes(pod, rule.onExitCodes);
      if (!cs) continue;
      failMessage = `Container ${cs.name} for pod ${pod.metadata?.namespace}/${pod.metadata?.name} failed with exit code ${cs.state?.terminated?.exitCode} matching ${rule.action} rule at index ${i}`;
    } else if (rule.onPodConditions) {
      const c = matchConditions(pod, rule.onPodConditions);
      if (!c) continue;
      failMessage = `Pod ${pod.metadata?.namespace}/${pod.metadata?.name} has condition ${c.type} matching ${rule.action} rule at index ${i}`;
    } else continue;
    switch (rule.action) {
      case 'Ignore': return { countFailed: false, action: 'Ignore', ruleIndex: i };
      case 'FailIndex': return { countFailed: true, action: 'FailIndex', ruleIndex: i };
      case 'Count': return { countFailed: true, action: 'Count', ruleIndex: i };
      case 'FailJob': return { countFailed: true, action: 'FailJob', ruleIndex: i, failJobMessage: failMessage, failJobReason: reasonForRule(rule) };
      default: continue; // an unknown action: upstream falls through to the next rule
    }
  }
  return { countFailed: true };
}
