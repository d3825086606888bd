// Authorization as kube-apiserver composes it: members of system:masters are always allowed, then each configured
// mode (--authorization-mode) in order until one allows or denies. Also upstream's Forbidden message.
import { ApiError } from '../machinery/errors.js';
import type { Storage } from '../storage/storage.js';
import { RbacAuthorizer } from './rbac/rbac-authorizer.js';
import { fullAuthority, ruleJson, type PolicyRule } from './rbac/policy-rule.js';
import { groups, type Authorizer, type Decision, type RequestAttributes, type UserInfo } from './types.js';

export const authorizationModes = ['AlwaysAllow', 'AlwaysDeny', 'RBAC'] as const;
export type AuthorizationMode = (typeof authorizationModes)[number];

const isMode = (m: string): m is AuthorizationMode => (authorizationModes as readonly string[]).includes(m);

/** `--authorization-mode` in upstream's comma-list form (`RBAC`, `AlwaysAllow`, `RBAC,AlwaysAllow`). Throws on a bad list. */
export function parseAuthorizationModes(spec: string | readonly string[] = 'AlwaysAllow'): AuthorizationMode[] {
  const list = (typeof spec === 'string' ? [spec] : spec).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  if (!list.length) throw new Error('at least one authorization mode must be passed');
  const out: AuthorizationMode[] = [];
  for (const m of list) {
    if (!isMode(m)) throw new Error(`authorization-mode "${m}" is not a valid mode (supported: ${authorizationModes.join(', ')})`);
    if (out.includes(m)) throw new Error(`authorization-mode "${m}" has mode specified more than once`);
    out.push(m);
  }
  return out;
}

export interface RulesReview {
  resourceRules: Array<Record<string, string[]>>;
  nonResourceRules: Array<Record<string, string[]>>;
  incomplete: boolean;
  evaluationError?: string;
}

/** The request chain's authorizer (privileged group, then the modes) with the rule resolver reviews and escalation checks use. */
export class Authorization implements Authorizer {
  readonly rbac: RbacAuthorizer;

  constructor(readonly modes: readonly AuthorizationMode[], store: Storage) {
    this.rbac = new RbacAuthorizer(store);
  }

  authorize(a: RequestAttributes): { decision: Decision; reason: string } {
    if (a.user.groups.includes(groups.masters)) return { decision: 'allow', reason: '' };
    const reasons: string[] = [];
    for (const mode of this.modes) {
      const r = mode === 'RBAC' ? this.rbac.authorize(a) : mode === 'AlwaysAllow' ? { decision: 'allow' as const, reason: '' } : { decision: 'noOpinion' as const, reason: 'Everything is forbidden.' };
      if (r.decision !== 'noOpinion') return r;
      if (r.reason) reasons.push(r.reason);
    }
    return { decision: 'noOpinion', reason: reasons.join('\n') };
  }

  allowed(a: RequestAttributes): boolean {
    return this.authorize(a).decision === 'allow';
  }

  /** What `user` may do in `namespace`, as SelfSubjectRulesReview reports it (the union of the modes' rule resolvers). */
  rulesReview(user: UserInfo, namespace: string): RulesReview {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    for (const mode of this.modes) {
      if (mode === 'AlwaysAllow') rules.push(...fullAuthority);
      else if (mode === 'RBAC') {
        const r = this.rbac.rulesFor(user, namespace);
        rules.push(...r.rules);
        errors.push(...r.errors);
      }
    }
    const out: RulesReview = {
      resourceRules: rules.filter((r) => r.resources.length).map((r) => ruleJson({ ...r, nonResourceURLs: [] })),
      nonResourceRules: rules.filter((r) => r.nonResourceURLs.length).map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs })),
      incomplete: false,
    };
    if (errors.length) out.evaluationError = errors.length === 1 ? errors[0] : `[${[...new Set(errors)].join(', ')}]`;
    return out;
  }

  stop(): void {
    this.rbac.stop();
  }
}

/** What `authorizationOf` uses of a registry (registry.ts's Registry, or a view of it). */
export interface AuthorizationHolder {
  authorization: Authorization | undefined;
  readonly store: Storage;
  /** The registry views are made from: it keeps the default authorization. */
  root(): AuthorizationHolder;
}

/**
 * The authorization of the server `reg` belongs to: the one it was given at start-up, else AlwaysAllow, made once
 * on the server's root registry (which every view reads; an Authorization made per view would never be stopped).
 */
export function authorizationOf(reg: AuthorizationHolder): Authorization {
  if (reg.authorization) return reg.authorization;
  const root = reg.root();
  return (root.authorization ??= new Authorization(['AlwaysAllow'], root.store));
}

/** `User "jane" cannot list resource "pods" in API group "" in the namespace "default"`, as upstream words it. */
export function forbiddenMessage(a: RequestAttributes): string {
  const user = `User "${a.user.username}"`;
  if (!a.resourceRequest) return `${user} cannot ${a.verb} path "${a.path}"`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return `${user} cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" ${scope}`;
}

/** The 403 Status upstream answers a denied request with (`pods is forbidden: ...`, `forbidden: ...` for paths). */
export function forbiddenError(a: RequestAttributes, reason: string): ApiError {
  const why = reason ? `${forbiddenMessage(a)}: ${reason}` : forbiddenMessage(a);
  if (!a.resourceRequest || !a.resource) return new ApiError(403, 'Forbidden', `forbidden: ${why}`, {});
  const qualified = a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource;
  const subject = a.name ? `${qualified} "${a.name}"` : qualified;
  return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${why}`, { name: a.name || undefined, group: a.apiGroup || undefined, kind: a.resource });
}
