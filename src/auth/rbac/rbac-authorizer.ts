// The RBAC authorizer: decisions from the stored Roles, ClusterRoles and their bindings, as upstream's
// rbac.RBACAuthorizer and DefaultRuleResolver. The bindings are indexed by subject once per RBAC change, so a
// request looks only at the bindings naming its user or one of its groups.
import type { KObject } from '../../machinery/types.js';
import type { Storage } from '../../storage/storage.js';
import type { Decision, RequestAttributes, UserInfo } from '../types.js';
import { serviceAccountUsername } from '../identities.js';
import { aggregateErrors } from '../authn/outcome.js';
import { rbacGroup, ruleAllows, rulesOf, type PolicyRule } from './policy-rule.js';

export const rbacKeys = {
  roles: `${rbacGroup}/roles`,
  roleBindings: `${rbacGroup}/rolebindings`,
  clusterRoles: `${rbacGroup}/clusterroles`,
  clusterRoleBindings: `${rbacGroup}/clusterrolebindings`,
} as const;

export interface RoleRef {
  kind: string;
  name: string;
  apiGroup: string;
}

interface Subject {
  kind: string;
  name: string;
  namespace: string;
}

/** One (binding, subject) pair, filed under the user or group it names. */
interface Entry {
  /** Position of the binding in listing order: decisions visit bindings in this order. */
  seq: number;
  subjectIndex: number;
  binding: KObject;
  roleRef: RoleRef;
  subject: Subject;
}

type SubjectIndex = Map<string, Entry[]>;

interface Index {
  clusterRoles: Map<string, PolicyRule[]>;
  roles: Map<string, PolicyRule[]>;
  cluster: SubjectIndex;
  byNamespace: Map<string, SubjectIndex>;
}

/** A rule with where it came from, as upstream's visitor sees it. */
export interface SourcedRule {
  rule: PolicyRule;
  source: string;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** The roleRef of a RoleBinding or ClusterRoleBinding (missing or mistyped fields empty). */
export function roleRefOf(obj: KObject): RoleRef {
  const r = (obj.roleRef ?? {}) as Record<string, unknown>;
  return { kind: str(r.kind), name: str(r.name), apiGroup: str(r.apiGroup) };
}

function subjectsOf(obj: KObject): Subject[] {
  const list = Array.isArray(obj.subjects) ? obj.subjects : [];
  return list.map((s) => {
    const r = (s !== null && typeof s === 'object' ? s : {}) as Record<string, unknown>;
    return { kind: str(r.kind), name: str(r.name), namespace: str(r.namespace) };
  });
}

/** The index key of a subject: a user name (ServiceAccounts become theirs) or a group; undefined when it names nobody. */
function subjectKey(s: Subject, bindingNamespace: string): string | undefined {
  switch (s.kind) {
    case 'User':
      return `u:${s.name}`;
    case 'Group':
      return `g:${s.name}`;
    case 'ServiceAccount': {
      const ns = s.namespace || bindingNamespace;
      return ns ? `u:${serviceAccountUsername(ns, s.name)}` : undefined;
    }
    default:
      return undefined;
  }
}

function file(index: SubjectIndex, key: string, entry: Entry): void {
  const list = index.get(key);
  if (list) list.push(entry);
  else index.set(key, [entry]);
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} "${s.name}/${s.namespace || bindingNamespace}"`;
  return `${s.kind} "${s.name}"`;
}

function describe(e: Entry): string {
  const m = e.binding.metadata;
  if (m.namespace) {
    return `RoleBinding "${m.name ?? ''}/${m.namespace}" of ${e.roleRef.kind} "${e.roleRef.name}" to ${describeSubject(e.subject, m.namespace)}`;
  }
  return `ClusterRoleBinding "${m.name ?? ''}" of ${e.roleRef.kind} "${e.roleRef.name}" to ${describeSubject(e.subject, '')}`;
}

export class RbacAuthorizer {
  private index: Index | undefined;
  private readonly stops: Array<() => void>;

  constructor(private readonly store: Storage) {
    const invalidate = () => {
      this.index = undefined;
    };
    this.stops = Object.values(rbacKeys).map((key) => store.hub.subscribe(key, invalidate));
  }

  stop(): void {
    this.stops.forEach((s) => s());
  }

  private build(): Index {
    const clusterRoles = new Map<string, PolicyRule[]>();
    for (const o of this.store.list(rbacKeys.clusterRoles)) clusterRoles.set(o.metadata.name ?? '', rulesOf(o));
    const roles = new Map<string, PolicyRule[]>();
    for (const o of this.store.list(rbacKeys.roles)) roles.set(`${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`, rulesOf(o));
    let seq = 0;
    const cluster: SubjectIndex = new Map();
    for (const b of this.store.list(rbacKeys.clusterRoleBindings)) {
      const n = seq++;
      subjectsOf(b).forEach((subject, subjectIndex) => {
        // A ServiceAccount subject of a ClusterRoleBinding must name its namespace.
        const key = subjectKey(subject, '');
        if (key) file(cluster, key, { seq: n, subjectIndex, binding: b, roleRef: roleRefOf(b), subject });
      });
    }
    const byNamespace = new Map<string, SubjectIndex>();
    for (const b of this.store.list(rbacKeys.roleBindings)) {
      const n = seq++;
      const ns = b.metadata.namespace ?? '';
      let index = byNamespace.get(ns);
      if (!index) byNamespace.set(ns, (index = new Map()));
      const idx = index;
      subjectsOf(b).forEach((subject, subjectIndex) => {
        const key = subjectKey(subject, ns);
        if (key) file(idx, key, { seq: n, subjectIndex, binding: b, roleRef: roleRefOf(b), subject });
      });
    }
    return { clusterRoles, roles, cluster, byNamespace };
  }

  private current(): Index {
    return (this.index ??= this.build());
  }

  /** The bindings that apply to `user`, each once (with its first matching subject), in listing order. */
  private entriesFor(index: SubjectIndex | undefined, user: UserInfo): Entry[] {
    if (!index) return [];
    const found = new Map<number, Entry>();
    const take = (list: Entry[] | undefined) => {
      for (const e of list ?? []) {
        const prev = found.get(e.seq);
        if (!prev || e.subjectIndex < prev.subjectIndex) found.set(e.seq, e);
      }
    };
    take(index.get(`u:${user.username}`));
    for (const g of user.groups) take(index.get(`g:${g}`));
    return [...found.values()].sort((a, b) => a.seq - b.seq);
  }

  /** The rules a role reference grants, or upstream's error text when it cannot be resolved. */
  roleReferenceRules(ref: RoleRef, bindingNamespace: string): PolicyRule[] | { error: string } {
    const idx = this.current();
    if (ref.kind === 'ClusterRole') {
      return idx.clusterRoles.get(ref.name) ?? { error: `clusterrole.${rbacGroup} "${ref.name}" not found` };
    }
    if (ref.kind === 'Role') {
      return idx.roles.get(`${bindingNamespace}/${ref.name}`) ?? { error: `role.${rbacGroup} "${ref.name}" not found` };
    }
    return { error: `unsupported role reference kind: "${ref.kind}"` };
  }

  /**
   * Visits the rules that apply to `user` in `namespace` (cluster bindings first, then the namespace's role
   * bindings) until `visit` returns false; resolution errors are collected.
   */
  visitRulesFor(user: UserInfo, namespace: string, visit: (r: SourcedRule) => boolean, errors: string[]): void {
    const idx = this.current();
    const scopes: Array<[SubjectIndex | undefined, string]> = [[idx.cluster, '']];
    if (namespace) scopes.push([idx.byNamespace.get(namespace), namespace]);
    for (const [index, ns] of scopes) {
      for (const e of this.entriesFor(index, user)) {
        const rules = this.roleReferenceRules(e.roleRef, ns);
        if ('error' in rules) {
          errors.push(rules.error);
          continue;
        }
        let source: string | undefined;
        for (const rule of rules) {
          if (!visit({ rule, get source() { return (source ??= describe(e)); } })) return;
        }
      }
    }
  }

  authorize(a: RequestAttributes): { decision: Decision; reason: string } {
    const errors: string[] = [];
    let reason: string | undefined;
    this.visitRulesFor(a.user, a.namespace, (r) => {
      if (!ruleAllows(a, r.rule)) return true;
      reason = `RBAC: allowed by ${r.source}`;
      return false;
    }, errors);
    if (reason !== undefined) return { decision: 'allow', reason };
    return { decision: 'noOpinion', reason: errors.length ? `RBAC: ${aggregateErrors(errors)}` : '' };
  }

  /** Every rule that applies to `user` in `namespace`, and the resolution errors met (upstream's RulesFor). */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (r) => {
      rules.push(r.rule);
      return true;
    }, errors);
    return { rules, errors };
  }
}
