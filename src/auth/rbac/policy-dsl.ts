// A compact notation for the bootstrap policy: each rule is one call with space-separated lists (`core` is the
// core group ""), sorted as upstream's rule builder sorts them.
import { rbacGroup } from './policy-rule.js';

export type Rule = Record<string, string[]>;

export const read = 'get list watch';
export const write = 'create delete deletecollection patch update';
export const readWrite = `${read} ${write}`;

const list = (s: string) => [...new Set(s.split(/\s+/).filter(Boolean).map((x) => (x === 'core' ? '' : x)))].sort();

/** A resource rule: verbs, API groups, resources and (optionally) resource names. */
export function r(verbs: string, apiGroups: string, resources: string, resourceNames = ''): Rule {
  const out: Rule = { verbs: list(verbs), apiGroups: list(apiGroups), resources: list(resources) };
  if (resourceNames) out.resourceNames = list(resourceNames);
  return out;
}

/** A non-resource rule. */
export function urls(verbs: string, paths: string): Rule {
  return { verbs: list(verbs), nonResourceURLs: list(paths) };
}

/** The events rule every component gets. */
export const events = r('create patch update', 'core events.k8s.io', 'events');

export interface RoleSpec {
  name: string;
  rules?: Rule[];
  /** Labels besides kubernetes.io/bootstrapping. */
  labels?: Record<string, string>;
  /** The label value `true` of the ClusterRoles aggregated into this one. */
  aggregateFrom?: string;
}

export type SubjectSpec = { kind: 'User' | 'Group'; name: string } | { kind: 'ServiceAccount'; name: string; namespace: string };

export const user = (name: string): SubjectSpec => ({ kind: 'User', name });
export const group = (name: string): SubjectSpec => ({ kind: 'Group', name });
export const serviceAccount = (name: string, namespace = 'kube-system'): SubjectSpec => ({ kind: 'ServiceAccount', name, namespace });

export interface BindingSpec {
  name: string;
  roleRef: { kind: 'Role' | 'ClusterRole'; name: string };
  subjects: SubjectSpec[];
}

export const bind = (name: string, subjects: SubjectSpec[], roleName = name, kind: 'Role' | 'ClusterRole' = 'ClusterRole'): BindingSpec => ({
  name, roleRef: { kind, name: roleName }, subjects,
});

export function subjectJson(s: SubjectSpec): Record<string, string> {
  if (s.kind === 'ServiceAccount') return { kind: s.kind, name: s.name, namespace: s.namespace };
  return { apiGroup: rbacGroup, kind: s.kind, name: s.name };
}
