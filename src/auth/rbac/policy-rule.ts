// RBAC policy rules: their shape as the evaluator sees them (read defensively from stored objects) and how one
// rule matches a request, with upstream's wildcards (`*`, `*/subresource`, a trailing `*` in non-resource URLs).
import { goQuote } from '../../machinery/go-quote.js';
import type { RequestAttributes } from '../types.js';

export interface PolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
  nonResourceURLs: string[];
}

export const rbacGroup = 'rbac.authorization.k8s.io';

/** A rule from the lists it has (the others empty). */
export const policyRule = (p: Partial<PolicyRule>): PolicyRule => ({ verbs: [], apiGroups: [], resources: [], resourceNames: [], nonResourceURLs: [], ...p });

/** Every verb on every resource and every non-resource URL (cluster-admin's rules; what AlwaysAllow grants). */
export const fullAuthority: readonly PolicyRule[] = [
  policyRule({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }),
  policyRule({ verbs: ['*'], nonResourceURLs: ['*'] }),
];

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** One stored rule, whatever its JSON holds: only string arrays count. */
export function toPolicyRule(v: unknown): PolicyRule {
  const r = (v !== null && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  return {
    verbs: strings(r.verbs), apiGroups: strings(r.apiGroups), resources: strings(r.resources),
    resourceNames: strings(r.resourceNames), nonResourceURLs: strings(r.nonResourceURLs),
  };
}

/** The `rules` of a stored Role or ClusterRole. */
export function rulesOf(obj: Record<string, unknown> | undefined): PolicyRule[] {
  return Array.isArray(obj?.rules) ? obj.rules.map(toPolicyRule) : [];
}

/** A rule as the API serializes it (empty lists left out). */
export function ruleJson(r: PolicyRule): Record<string, string[]> {
  const out: Record<string, string[]> = { verbs: r.verbs };
  if (r.apiGroups.length) out.apiGroups = r.apiGroups;
  if (r.resources.length) out.resources = r.resources;
  if (r.resourceNames.length) out.resourceNames = r.resourceNames;
  if (r.nonResourceURLs.length) out.nonResourceURLs = r.nonResourceURLs;
  return out;
}

const has = (list: string[], v: string) => list.includes(v);

export function verbMatches(r: PolicyRule, verb: string): boolean {
  return has(r.verbs, '*') || has(r.verbs, verb);
}

export function apiGroupMatches(r: PolicyRule, group: string): boolean {
  return has(r.apiGroups, '*') || has(r.apiGroups, group);
}

// `combined` is `resource` or `resource/subresource`; a rule resource `*/sub` matches that subresource of any resource.
export function resourceMatches(r: PolicyRule, combined: string, subresource: string): boolean {
  for (const res of r.resources) {
    if (res === '*' || res === combined) return true;
    if (subresource && res.length === subresource.length + 2 && res.startsWith('*/') && res.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(r: PolicyRule, name: string): boolean {
  return r.resourceNames.length === 0 || has(r.resourceNames, name);
}

export function nonResourceUrlMatches(r: PolicyRule, path: string): boolean {
  for (const url of r.nonResourceURLs) {
    if (url === '*' || url === path) return true;
    if (url.endsWith('*') && path.startsWith(url.replace(/\*+$/, ''))) return true;
  }
  return false;
}

export function ruleAllows(a: RequestAttributes, r: PolicyRule): boolean {
  if (a.resourceRequest) {
    const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    return verbMatches(r, a.verb) && apiGroupMatches(r, a.apiGroup) && resourceMatches(r, combined, a.subresource) && resourceNameMatches(r, a.name);
  }
  return verbMatches(r, a.verb) && nonResourceUrlMatches(r, a.path);
}

/** Go's %q for a string slice: `["a" "b"]`. */
export function goQuoteList(list: readonly string[]): string {
  return `[${list.map(goQuote).join(' ')}]`;
}

/** A rule in upstream's compact form, as escalation errors list the missing permissions. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups.length) parts.push(`APIGroups:${goQuoteList(r.apiGroups)}`);
  if (r.resources.length) parts.push(`Resources:${goQuoteList(r.resources)}`);
  if (r.nonResourceURLs.length) parts.push(`NonResourceURLs:${goQuoteList(r.nonResourceURLs)}`);
  if (r.resourceNames.length) parts.push(`ResourceNames:${goQuoteList(r.resourceNames)}`);
  if (r.verbs.length) parts.push(`Verbs:${goQuoteList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}
