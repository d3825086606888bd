// RBAC's privilege-escalation prevention, as upstream's policy-based role and binding storage: a user may only write a
// Role or ClusterRole granting what they already hold (or with the `escalate` verb), and only bind a role whose
// permissions they hold (or with the `bind` verb). Members of system:masters may do anything.
import { ApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import type { StrategyContext } from '../../registry/resource.js';
import type { Authorization } from '../authorization.js';
import { groups, type RequestAttributes, type UserInfo } from '../types.js';
import { aggregateErrors } from '../authn/outcome.js';
import { roleRefOf } from './rbac-authorizer.js';
import { compactString, fullAuthority, goQuoteList, policyRule, rbacGroup, rulesOf, type PolicyRule } from './policy-rule.js';

/** Splits a rule into rules of one group, resource, verb and resource name (or one URL and verb). */
export function breakdownRule(r: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const g of r.apiGroups) {
    for (const res of r.resources) {
      for (const v of r.verbs) {
        if (r.resourceNames.length) for (const n of r.resourceNames) out.push(policyRule({ apiGroups: [g], resources: [res], verbs: [v], resourceNames: [n] }));
        else out.push(policyRule({ apiGroups: [g], resources: [res], verbs: [v] }));
      }
    }
  }
  for (const url of r.nonResourceURLs) for (const v of r.verbs) out.push(policyRule({ nonResourceURLs: [url], verbs: [v] }));
  return out;
}

const hasAll = (set: string[], wanted: string[]) => wanted.every((w) => set.includes(w));

function resourcesCover(owner: string[], wanted: string[]): boolean {
  if (owner.includes('*') || hasAll(owner, wanted)) return true;
  return wanted.every((path) => {
    if (owner.includes(path)) return true;
    const slash = path.indexOf('/');
    return slash >= 0 && owner.includes(`*/${path.slice(slash + 1)}`);
  });
}

function urlsCover(owner: string[], wanted: string[]): boolean {
  return wanted.every((path) => owner.some((o) => o === path || (o.endsWith('*') && path.startsWith(o.replace(/\*+$/, '')))));
}

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = owner.verbs.includes('*') || hasAll(owner.verbs, sub.verbs);
  const apiGroups = owner.apiGroups.includes('*') || hasAll(owner.apiGroups, sub.apiGroups);
  const names = sub.resourceNames.length === 0 ? owner.resourceNames.length === 0 : owner.resourceNames.length === 0 || hasAll(owner.resourceNames, sub.resourceNames);
  return verbs && apiGroups && resourcesCover(owner.resources, sub.resources) && names && urlsCover(owner.nonResourceURLs, sub.nonResourceURLs);
}

/** The parts of `wanted` that `owned` does not cover (empty: covered). */
export function uncovered(owned: PolicyRule[], wanted: readonly PolicyRule[]): PolicyRule[] {
  return wanted.flatMap(breakdownRule).filter((sub) => !owned.some((o) => ruleCovers(o, sub)));
}

/** Merges single-group, single-resource rules that differ only in verbs (upstream's CompactRules). */
export function compactRules(rules: PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple = r.resourceNames.length <= 1 && !r.nonResourceURLs.length && r.apiGroups.length === 1 && r.resources.length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups[0], r.resources[0], r.resourceNames.length > 0, r.resourceNames[0] ?? '']);
    const prev = simple.get(key);
    if (!prev) simple.set(key, { ...r, verbs: [...r.verbs] });
    else for (const v of r.verbs) if (!prev.verbs.includes(v)) prev.verbs.push(v);
  }
  return [...out, ...simple.values()];
}

/** Upstream's ConfirmNoEscalation: an error text when `user` does not hold every rule in `wanted` in `namespace`. */
export function escalationError(authz: Authorization, user: UserInfo, namespace: string, wanted: readonly PolicyRule[]): string | undefined {
  const { rules, errors } = authz.rbac.rulesFor(user, namespace);
  const missing = uncovered(rules, wanted);
  if (!missing.length) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user "${user.username}" (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (errors.length) msg += `; resolution errors: [${aggregateErrors(errors)}]`;
  return msg;
}

function forbidden(resource: string, name: string, message: string): ApiError {
  const qualified = `${resource}.${rbacGroup}`;
  return new ApiError(403, 'Forbidden', `${name ? `${qualified} "${name}"` : qualified} is forbidden: ${message}`, { name: name || undefined, group: rbacGroup, kind: resource });
}

/** The user and authorizer of a write that escalation rules apply to: a request's, never a trusted component's. */
function checked(ctx: StrategyContext): { user: UserInfo; authz: Authorization } | undefined {
  const authz = ctx.registry.authorization;
  const user = ctx.user;
  if (!authz || !user || ctx.registry.component) return undefined;
  if (user.groups.includes(groups.masters)) return undefined;
  return { user, authz };
}

function attrs(user: UserInfo, verb: string, resource: string, namespace: string, name: string, apiGroup = rbacGroup): RequestAttributes {
  return { user, verb, resourceRequest: true, path: '', apiGroup, apiVersion: '*', namespace, resource, subresource: '', name };
}

/** Only owner references, finalizers or managed fields changed (what the garbage collector writes). */
function onlyGcFields(obj: KObject, old: KObject): boolean {
  const strip = (o: KObject) => {
    const { ownerReferences: _o, finalizers: _f, managedFields: _m, resourceVersion: _r, selfLink: _s, generation: _g, ...meta } = o.metadata;
    return JSON.stringify({ ...o, metadata: meta });
  };
  return strip(obj) === strip(old);
}

/** Role and ClusterRole writes: the rules must not grant more than the writer holds, unless they may `escalate`. */
export function checkRoleWrite(resource: 'roles' | 'clusterroles', obj: KObject, old: KObject | undefined, ctx: StrategyContext): void {
  const c = checked(ctx);
  if (!c || (old && onlyGcFields(obj, old))) return;
  const namespace = resource === 'roles' ? obj.metadata.namespace ?? '' : '';
  const name = obj.metadata.name ?? '';
  if (c.authz.allowed(attrs(c.user, 'escalate', resource, namespace, old ? name : ''))) return;
  const err = escalationError(c.authz, c.user, namespace, rulesOf(obj));
  if (err) throw forbidden(resource, name, err);
  if (resource === 'clusterroles' && obj.aggregationRule && escalationError(c.authz, c.user, '', fullAuthority)) {
    throw forbidden(resource, name, 'must have cluster-admin privileges to use the aggregationRule');
  }
}

/** RoleBinding and ClusterRoleBinding writes: binding a role needs the `bind` verb on it or every permission it grants. */
export function checkBindingWrite(resource: 'rolebindings' | 'clusterrolebindings', obj: KObject, old: KObject | undefined, ctx: StrategyContext): void {
  const c = checked(ctx);
  if (!c || (old && onlyGcFields(obj, old))) return;
  const namespace = resource === 'rolebindings' ? obj.metadata.namespace ?? '' : '';
  const name = obj.metadata.name ?? '';
  const ref = roleRefOf(obj);
  if (ref.kind === 'ClusterRole' || ref.kind === 'Role') {
    if (c.authz.allowed(attrs(c.user, 'bind', ref.kind === 'Role' ? 'roles' : 'clusterroles', namespace, ref.name, ref.apiGroup))) return;
  }
  const rules = c.authz.rbac.roleReferenceRules(ref, namespace);
  if ('error' in rules) throw forbidden(resource, name, rules.error);
  const err = escalationError(c.authz, c.user, namespace, rules);
  if (err) throw forbidden(resource, name, err);
}
