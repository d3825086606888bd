// ClusterRole aggregation: the rules an aggregated ClusterRole (one with an aggregationRule) gathers from the
// ClusterRoles its selectors match. Used by the clusterrole-aggregation controller and the bootstrap policy.
import type { KObject, LabelSelector } from '../../machinery/types.js';
import { labelSelectorMatches } from '../../machinery/labels.js';
import { isRecord } from '../../machinery/types.js';

export function selectorsOf(role: KObject): LabelSelector[] | undefined {
  const rule = role.aggregationRule;
  if (!isRecord(rule)) return undefined;
  const sel = rule.clusterRoleSelectors;
  return Array.isArray(sel) ? sel.filter(isRecord).map((s) => s as LabelSelector) : [];
}

/** The rules `role` aggregates from the ClusterRoles there are. */
export function aggregatedRules(role: KObject, all: KObject[]): unknown[] {
  const selectors = selectorsOf(role) ?? [];
  const out: unknown[] = [];
  const seen = new Set<string>();
  const byName = [...all].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  for (const sel of selectors) {
    // An empty selector matches every other ClusterRole, as upstream's; a role never aggregates itself.
    for (const other of byName) {
      if (other.metadata.name === role.metadata.name) continue;
      if (!labelSelectorMatches(sel, (other.metadata.labels ?? {}) as Record<string, string>)) continue;
      for (const rule of Array.isArray(other.rules) ? other.rules : []) {
        const k = JSON.stringify(rule);
        if (seen.has(k)) continue;
        seen.add(k);
        out.push(rule);
      }
    }
  }
  return out;
}
