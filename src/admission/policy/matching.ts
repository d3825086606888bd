// Whether a policy's matchConstraints or a binding's matchResources take a request (upstream's policy/matching):
// selectors, excluded rules, then rules (with resourceNames), exact first and then, under Equivalent, equivalents.
import type { AdmissionAttributes } from '../types.js';
import { isRecord } from '../../machinery/types.js';
import { equivalentMatch, equivalentsOf, ruleMatches, targetOf, type RuleMatch } from '../webhook/rules.js';
import { matchesNamespaceSelector, matchesObjectSelector } from '../webhook/selectors.js';

function nameAllowed(rule: Record<string, unknown>, name: string): boolean {
  const names = Array.isArray(rule.resourceNames) ? rule.resourceNames : [];
  return names.length === 0 || names.includes(name);
}

/** The first named rule covering the request, as the request or (Equivalent) an equivalent resource. */
export function matchNamedRules(rules: unknown, matchPolicy: unknown, a: AdmissionAttributes): RuleMatch | undefined {
  const list = Array.isArray(rules) ? rules.filter(isRecord) : [];
  const t = targetOf(a);
  for (const r of list) if (ruleMatches(r, t) && nameAllowed(r, a.name)) return { def: a.def, resource: a.resource, kind: a.kind };
  if (matchPolicy !== 'Equivalent') return undefined;
  const equivalents = equivalentsOf(a.registry.defs, a.def);
  for (const r of list) {
    for (const e of equivalents) {
      if (e.resource.group === a.resource.group && e.resource.version === a.resource.version && e.resource.resource === a.resource.resource) continue;
      if (ruleMatches(r, { ...t, resource: e.resource }) && nameAllowed(r, a.name)) return equivalentMatch(e, a);
    }
  }
  return undefined;
}

/** Rules only (no selectors): the cheap test `handles` uses. */
export function rulesCover(mr: unknown, a: AdmissionAttributes): boolean {
  const m = isRecord(mr) ? mr : {};
  return matchNamedRules(m.resourceRules, m.matchPolicy, a) !== undefined;
}

/** The full match of MatchResources; throws the namespace lookup's error (a missing namespace). */
export function matchResources(mr: unknown, a: AdmissionAttributes): RuleMatch | undefined {
  const m = isRecord(mr) ? mr : {};
  if (!matchesNamespaceSelector(m.namespaceSelector, a)) return undefined;
  if (!matchesObjectSelector(m.objectSelector, a)) return undefined;
  if (matchNamedRules(m.excludeResourceRules, m.matchPolicy, a)) return undefined;
  if (!Array.isArray(m.resourceRules) || m.resourceRules.length === 0) return { def: a.def, resource: a.resource, kind: a.kind };
  return matchNamedRules(m.resourceRules, m.matchPolicy, a);
}

/** A binding without matchResources matches whatever its policy matches; otherwise both must. */
export function bindingMatches(binding: Record<string, unknown>, a: AdmissionAttributes): boolean {
  const mr = binding.matchResources;
  return mr === undefined || mr === null || matchResources(mr, a) !== undefined;
}
