// Classification, as upstream's APF filter does it: the FlowSchemas in order (matchingPrecedence, then name), the
// first whose rules match the request's subject and target wins; its distinguisher method splits the requests
// it matches into flows (by user, by namespace, or one flow).
import type { RequestAttributes } from '../../auth/types.js';
import type { FlowSchema, NonResourcePolicyRule, PolicyRulesWithSubjects, ResourcePolicyRule, Subject } from '../types.js';

const all = '*';
const serviceAccountPrefix = 'system:serviceaccount:';

/** The schemas in the order they are tried (a copy). */
export function sortFlowSchemas(schemas: readonly FlowSchema[]): FlowSchema[] {
  return [...schemas].sort((a, b) => {
    const d = a.spec.matchingPrecedence - b.spec.matchingPrecedence;
    if (d !== 0) return d;
    const x = a.metadata.name;
    const y = b.metadata.name;
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

const has = (list: readonly string[] | undefined, v: string) => !!list && (list.includes(all) || list.includes(v));

function subjectMatches(s: Subject, a: RequestAttributes): boolean {
  const u = a.user;
  switch (s.kind) {
    case 'User':
      return !!s.user && (s.user.name === all || s.user.name === u.username);
    case 'Group':
      return !!s.group && (s.group.name === all || u.groups.includes(s.group.name));
    case 'ServiceAccount': {
      if (!s.serviceAccount || !u.username.startsWith(serviceAccountPrefix)) return false;
      const [ns, name, extra] = u.username.slice(serviceAccountPrefix.length).split(':');
      if (extra !== undefined || !ns || !name) return false;
      return s.serviceAccount.namespace === ns && (s.serviceAccount.name === all || s.serviceAccount.name === name);
    }
    default:
      return false;
  }
}

function resourceRuleMatches(r: ResourcePolicyRule, a: RequestAttributes): boolean {
  if (!has(r.verbs, a.verb) || !has(r.apiGroups, a.apiGroup)) return false;
  if (!has(r.resources, a.subresource ? `${a.resource}/${a.subresource}` : a.resource)) return false;
  // A request naming no namespace (cluster-scoped objects, lists across namespaces) needs clusterScope.
  return a.namespace === '' ? r.clusterScope === true : has(r.namespaces, a.namespace);
}

function nonResourceRuleMatches(r: NonResourcePolicyRule, a: RequestAttributes): boolean {
  if (!has(r.verbs, a.verb)) return false;
  for (const p of r.nonResourceURLs ?? []) {
    if (p === all || p === a.path) return true;
    if (p.endsWith('/*') && a.path.startsWith(p.slice(0, -1))) return true;
  }
  return false;
}

/** Whether one of `items` matches (a loop: every request is classified, and closures cost garbage). */
function anyMatches<T>(items: readonly T[] | undefined, a: RequestAttributes, matches: (item: T, a: RequestAttributes) => boolean): boolean {
  if (!items) return false;
  for (const item of items) if (matches(item, a)) return true;
  return false;
}

function rulesMatch(rules: PolicyRulesWithSubjects, a: RequestAttributes): boolean {
  // Stored objects passed validation; the guards keep one odd object (another version's, on a shared store) harmless.
  if (!anyMatches(rules.subjects, a, subjectMatches)) return false;
  if (a.resourceRequest) return anyMatches(rules.resourceRules, a, resourceRuleMatches);
  return anyMatches(rules.nonResourceRules, a, nonResourceRuleMatches);
}

/** Whether the schema matches the request. */
export function flowSchemaMatches(fs: FlowSchema, a: RequestAttributes): boolean {
  return anyMatches(fs.spec.rules, a, rulesMatch);
}

/** The flow a request belongs to within its schema: its user, its namespace, or none. */
export function distinguisherOf(fs: FlowSchema, a: RequestAttributes): string {
  switch (fs.spec.distinguisherMethod?.type) {
    case 'ByUser': return a.user.username;
    case 'ByNamespace': return a.namespace;
    default: return '';
  }
}

/** The first of `sorted` matching the request (schemas whose level is unknown are skipped by the caller). */
export function classify(sorted: readonly FlowSchema[], a: RequestAttributes): FlowSchema | undefined {
  for (const fs of sorted) if (flowSchemaMatches(fs, a)) return fs;
  return undefined;
}
