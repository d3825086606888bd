// Which requests a rule (RuleWithOperations / NamedRuleWithOperations) covers, as upstream's webhook predicates and
// policy matching read them; shared by webhooks and ValidatingAdmissionPolicies.
import type { AdmissionAttributes } from '../types.js';
import { isRecord, type GroupVersionKind } from '../../machinery/types.js';
import { servedVersions, storageKey, type ResourceDef } from '../../registry/resource.js';

export interface Gvr { group: string; version: string; resource: string }

/** What a rule is checked against: the request, or the request seen as an equivalent resource. */
export interface RuleTarget {
  operation: string;
  resource: Gvr;
  subresource: string;
  namespace: string;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const anyOf = (items: string[], want: string) => items.includes('*') || items.includes(want);

function scopeMatches(scope: unknown, t: RuleTarget): boolean {
  const isNamespaceObject = t.resource.group === '' && t.resource.version === 'v1' && t.resource.resource === 'namespaces';
  if (scope === undefined || scope === null || scope === '*') return true;
  if (scope === 'Namespaced') return !isNamespaceObject && t.namespace !== '';
  if (scope === 'Cluster') return isNamespaceObject || t.namespace === '';
  return false;
}

function resourceMatches(resources: string[], t: RuleTarget): boolean {
  for (const entry of resources) {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    if ((res === '*' || res === t.resource.resource) && (sub === '*' || sub === t.subresource)) return true;
  }
  return false;
}

/** Whether one rule covers the target (operations, apiGroups, apiVersions, resources with subresources, scope). */
export function ruleMatches(rule: unknown, t: RuleTarget): boolean {
  if (!isRecord(rule)) return false;
  const ops = strings(rule.operations);
  return scopeMatches(rule.scope, t)
    && (ops.includes('*') || ops.includes(t.operation))
    && anyOf(strings(rule.apiGroups), t.resource.group)
    && anyOf(strings(rule.apiVersions), t.resource.version)
    && resourceMatches(strings(rule.resources), t);
}

export function targetOf(a: AdmissionAttributes): RuleTarget {
  return { operation: a.operation, resource: a.resource, subresource: a.subresource, namespace: a.namespace };
}

/** Writes of these kinds never go to webhooks or policies (so a broken webhook can always be removed). */
export function isExemptConfiguration(kind: GroupVersionKind): boolean {
  return kind.group === 'admissionregistration.k8s.io' && (kind.kind === 'ValidatingWebhookConfiguration' || kind.kind === 'MutatingWebhookConfiguration'
    || kind.kind === 'ValidatingAdmissionPolicy' || kind.kind === 'ValidatingAdmissionPolicyBinding'
    || kind.kind === 'MutatingAdmissionPolicy' || kind.kind === 'MutatingAdmissionPolicyBinding');
}

/** A resource served under another group/version that stores the same objects (matchPolicy: Equivalent). */
export interface Equivalent { def: ResourceDef; resource: Gvr; kind: GroupVersionKind }

const equivalentCache = new WeakMap<readonly ResourceDef[], Map<ResourceDef, Equivalent[]>>();

/** Every (group, version, resource) serving the objects `def` stores, `def`'s own versions included. */
export function equivalentsOf(defs: readonly ResourceDef[], def: ResourceDef): Equivalent[] {
  let byDef = equivalentCache.get(defs);
  if (!byDef) equivalentCache.set(defs, (byDef = new Map()));
  let out = byDef.get(def);
  if (!out) {
    const key = storageKey(def);
    out = [];
    for (const d of defs) {
      if (storageKey(d) !== key) continue;
      for (const v of servedVersions(d)) out.push({ def: d, resource: { group: d.group, version: v, resource: d.plural }, kind: { group: d.group, version: v, kind: d.kind } });
    }
    byDef.set(def, out);
  }
  return out;
}

/** The matched resource and kind the request is presented as, or undefined when no rule covers it. */
export interface RuleMatch { def: ResourceDef; resource: Gvr; kind: GroupVersionKind }

/** An equivalent as the request's match: a subresource of a kind of its own (a Scale) keeps the request's kind. */
export function equivalentMatch(e: Equivalent, a: AdmissionAttributes): RuleMatch {
  return a.kind.kind === a.def.kind ? e : { ...e, kind: a.kind };
}

/**
 * The first match of `rules` for the request: the request itself, else (Equivalent) an equivalent resource, rules in
 * order first, as upstream honours earlier rules first.
 */
export function matchRules(rules: unknown, matchPolicy: unknown, a: AdmissionAttributes): RuleMatch | undefined {
  const list = Array.isArray(rules) ? rules : [];
  const t = targetOf(a);
  for (const r of list) if (ruleMatches(r, t)) return { def: a.def, resource: a.resource, kind: a.kind };
  if (matchPolicy === 'Exact') return undefined;
  const equivalents = equivalentsOf(a.registry.defs, a.def);
  for (const r of list) {
    for (const e of equivalents) {
      if (e.resource.group === a.resource.group && e.resource.version === a.resource.version && e.resource.resource === a.resource.resource) continue;
      if (ruleMatches(r, { ...t, resource: e.resource })) return equivalentMatch(e, a);
    }
  }
  return undefined;
}
