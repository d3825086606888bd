// flowcontrol.apiserver.k8s.io/v1 validation, as upstream's pkg/apis/flowcontrol/validation: FlowSchema precedence,
// distinguisher, subjects and rules; PriorityLevelConfiguration type, shares, percents and shuffle-sharding limits;
// the mandatory objects' specs fixed (the exempt level's `spec.exempt` excepted); unique condition types.
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import { isDns1123Label, isDns1123Subdomain } from '../../machinery/names.js';
import { arr, deepEqual, present, rec, str, type Errs } from './common.js';
import { mandatoryFlowSchemas, mandatoryPriorityLevels } from '../../flowcontrol/bootstrap.js';

const maxMatchingPrecedence = 10000;
const maxQueues = 10_000_000;
/** Shuffle sharding takes its hand from one 64-bit hash, of which it may use this many bits. */
const maxHashBits = 60;
const distinguisherMethods = ['ByNamespace', 'ByUser'];
const supportedVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const subjectKinds = ['Group', 'ServiceAccount', 'User'];
const nsErrIntro = "each member of this list must be '*' or a DNS-1123 label; ";

const has = (list: unknown[], v: string) => list.includes(v);

/** Go's zero values (absent, null, false, 0, "", empty list or map) dropped, so specs compare as upstream's Semantic.DeepEqual. */
function withoutZeroes(v: unknown, depth = 0): unknown {
  if (depth > 32) return v;
  if (Array.isArray(v)) return v.map((x) => withoutZeroes(x, depth + 1));
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, x] of Object.entries(v)) {
    const y = withoutZeroes(x, depth + 1);
    if (y === undefined || y === null || y === false || y === 0 || y === '') continue;
    if (Array.isArray(y) && y.length === 0) continue;
    if (typeof y === 'object' && !Array.isArray(y) && Object.keys(y).length === 0) continue;
    out[k] = y;
  }
  return out;
}
/** Specs equal as upstream's semantic equality compares them (zero values and absent fields alike). */
export const sameSpec = (a: unknown, b: unknown) => deepEqual(withoutZeroes(a), withoutZeroes(b));

function verbErrors(verbs: unknown[], path: string): Errs {
  if (verbs.length === 0) return [fieldRequired(path, 'verbs must contain at least one value')];
  if (has(verbs, '*')) return verbs.length > 1 ? [fieldInvalid(path, verbs, "if '*' is present, must not specify other verbs")] : [];
  if (verbs.some((v) => typeof v !== 'string' || !supportedVerbs.includes(v))) return [fieldNotSupported(path, verbs, supportedVerbs)];
  return [];
}

function nonResourceUrlError(p: string, path: string): FieldError | undefined {
  if (p.length === 0) return fieldInvalid(path, p, 'must not be empty');
  if (p === '/') return undefined;
  if (!p.startsWith('/')) return fieldInvalid(path, p, 'must start with slash');
  if (p.includes(' ')) return fieldInvalid(path, p, 'must not contain white-space');
  if (p.includes('//')) return fieldInvalid(path, p, 'must not contain double slash');
  const stars = p.split('*').length - 1;
  if (stars > 1 || (stars === 1 && !p.endsWith('/*'))) return fieldInvalid(path, p, 'wildcard can only do suffix matching');
  return undefined;
}

function nonResourceRuleErrors(rule: Record<string, unknown>, path: string): Errs {
  const errs = verbErrors(arr(rule.verbs), `${path}.verbs`);
  const urls = arr(rule.nonResourceURLs);
  if (urls.length === 0) errs.push(fieldRequired(`${path}.nonResourceURLs`, 'nonResourceURLs must contain at least one value'));
  else if (has(urls, '*')) {
    if (urls.length > 1) errs.push(fieldInvalid(`${path}.nonResourceURLs`, urls, "if '*' is present, must not specify other non-resource URLs"));
  } else {
    urls.forEach((u, i) => {
      const e = nonResourceUrlError(str(u) ?? '', `${path}.nonResourceURLs[${i}]`);
      if (e) errs.push(e);
    });
  }
  return errs;
}

function resourceRuleErrors(rule: Record<string, unknown>, path: string): Errs {
  const errs = verbErrors(arr(rule.verbs), `${path}.verbs`);
  const groups = arr(rule.apiGroups);
  if (groups.length === 0) errs.push(fieldRequired(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  else if (groups.length > 1 && has(groups, '*')) errs.push(fieldInvalid(`${path}.apiGroups`, groups, "if '*' is present, must not specify other api groups"));
  const resources = arr(rule.resources);
  if (resources.length === 0) errs.push(fieldRequired(`${path}.resources`, 'resource rules must supply at least one resource'));
  else if (resources.length > 1 && has(resources, '*')) errs.push(fieldInvalid(`${path}.resources`, resources, "if '*' is present, must not specify other resources"));
  const namespaces = arr(rule.namespaces);
  if (namespaces.length === 0 && rule.clusterScope !== true) {
    errs.push(fieldRequired(`${path}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (has(namespaces, '*')) {
    if (namespaces.length > 1) errs.push(fieldInvalid(`${path}.namespaces`, namespaces, "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => {
      const s = str(ns) ?? '';
      for (const m of isDns1123Label(s)) errs.push(fieldInvalid(`${path}.namespaces[${i}]`, s, nsErrIntro + m));
    });
  }
  return errs;
}

function subjectErrors(subject: Record<string, unknown>, path: string): Errs {
  const errs: Errs = [];
  const kind = str(subject.kind) ?? '';
  const forbid = (field: 'user' | 'group' | 'serviceAccount', what: string) => {
    if (present(subject[field])) errs.push(fieldForbidden(`${path}.${field}`, `${field} is forbidden when subject kind is not '${what}'`));
  };
  if (kind === 'ServiceAccount') {
    const sa = subject.serviceAccount;
    if (!present(sa)) errs.push(fieldRequired(`${path}.serviceAccount`, "serviceAccount is required when subject kind is 'ServiceAccount'"));
    else {
      const name = str(rec(sa).name) ?? '';
      const namespace = str(rec(sa).namespace) ?? '';
      if (!name) errs.push(fieldRequired(`${path}.serviceAccount.name`));
      else if (name !== '*') for (const m of isDns1123Subdomain(name)) errs.push(fieldInvalid(`${path}.serviceAccount.name`, name, m));
      if (!namespace) errs.push(fieldRequired(`${path}.serviceAccount.namespace`, 'must specify namespace for service account'));
      else for (const m of isDns1123Label(namespace)) errs.push(fieldInvalid(`${path}.serviceAccount.namespace`, namespace, m));
    }
    forbid('user', 'User');
    forbid('group', 'Group');
  } else if (kind === 'User' || kind === 'Group') {
    const field = kind === 'User' ? 'user' : 'group';
    const v = subject[field];
    if (!present(v)) errs.push(fieldRequired(`${path}.${field}`, `${field} is required when subject kind is '${kind}'`));
    else if (!str(rec(v).name)) errs.push(fieldRequired(`${path}.${field}.name`));
    forbid('serviceAccount', 'ServiceAccount');
    forbid(kind === 'User' ? 'group' : 'user', kind === 'User' ? 'Group' : 'User');
  } else {
    errs.push(fieldNotSupported(`${path}.kind`, kind, subjectKinds));
  }
  return errs;
}

function rulesErrors(rule: Record<string, unknown>, path: string): Errs {
  const errs: Errs = [];
  const subjects = arr(rule.subjects);
  if (subjects.length === 0) errs.push(fieldRequired(`${path}.subjects`, 'subjects must contain at least one value'));
  subjects.forEach((s, i) => errs.push(...subjectErrors(rec(s), `${path}.subjects[${i}]`)));
  const resourceRules = arr(rule.resourceRules);
  const nonResourceRules = arr(rule.nonResourceRules);
  if (resourceRules.length === 0 && nonResourceRules.length === 0) errs.push(fieldRequired(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  resourceRules.forEach((r, i) => errs.push(...resourceRuleErrors(rec(r), `${path}.resourceRules[${i}]`)));
  nonResourceRules.forEach((r, i) => errs.push(...nonResourceRuleErrors(rec(r), `${path}.nonResourceRules[${i}]`)));
  return errs;
}

function conditionErrors(status: unknown, path: string): Errs {
  const errs: Errs = [];
  const seen = new Set<string>();
  arr(rec(status).conditions).forEach((c, i) => {
    const type = str(rec(c).type) ?? '';
    if (seen.has(type)) errs.push(fieldDuplicate(`${path}.conditions[${i}].type`, type));
    seen.add(type);
    if (!type) errs.push(fieldRequired(`${path}.conditions[${i}].type`, 'must not be empty'));
  });
  return errs;
}

export function validateFlowSchema(obj: KObject): FieldError[] {
  const errs: Errs = [];
  const name = str(obj.metadata?.name) ?? '';
  const spec = rec(obj.spec);
  const precedence = typeof spec.matchingPrecedence === 'number' ? spec.matchingPrecedence : 0;
  if (precedence <= 0) errs.push(fieldInvalid('spec.matchingPrecedence', precedence, 'must be a positive value'));
  if (precedence > maxMatchingPrecedence) errs.push(fieldInvalid('spec.matchingPrecedence', precedence, `must not be greater than ${maxMatchingPrecedence}`));
  if (precedence === 1 && name !== 'exempt') errs.push(fieldInvalid('spec.matchingPrecedence', precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  if (present(spec.distinguisherMethod) && !distinguisherMethods.includes(str(rec(spec.distinguisherMethod).type) ?? '')) {
    errs.push(fieldNotSupported('spec.distinguisherMethod.type', spec.distinguisherMethod, distinguisherMethods));
  }
  const plName = str(rec(spec.priorityLevelConfiguration).name) ?? '';
  if (plName) for (const m of isDns1123Subdomain(plName)) errs.push(fieldInvalid('spec.priorityLevelConfiguration.name', plName, m));
  else errs.push(fieldRequired('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  arr(spec.rules).forEach((r, i) => errs.push(...rulesErrors(rec(r), `spec.rules[${i}]`)));
  const mandatory = mandatoryFlowSchemas.find((m) => m.metadata.name === name);
  if (mandatory && !sameSpec(obj.spec, mandatory.spec)) errs.push(fieldInvalid('spec', obj.spec, `spec of '${name}' must equal the fixed value`));
  errs.push(...conditionErrors(obj.status, 'status'));
  return errs;
}

function queuingErrors(q: Record<string, unknown>, path: string): Errs {
  const errs: Errs = [];
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  const queueLengthLimit = n(q.queueLengthLimit);
  const queues = n(q.queues);
  const handSize = n(q.handSize);
  if (queueLengthLimit <= 0) errs.push(fieldInvalid(`${path}.queueLengthLimit`, queueLengthLimit, 'must be positive'));
  if (queues <= 0) errs.push(fieldInvalid(`${path}.queues`, queues, 'must be positive'));
  else if (queues > maxQueues) errs.push(fieldInvalid(`${path}.queues`, queues, `must not be greater than ${maxQueues}`));
  if (handSize <= 0) errs.push(fieldInvalid(`${path}.handSize`, handSize, 'must be positive'));
  else if (handSize > queues) errs.push(fieldInvalid(`${path}.handSize`, handSize, `should not be greater than queues (${queues})`));
  else if (Math.ceil(Math.log2(queues) * handSize) > maxHashBits) {
    errs.push(fieldInvalid(`${path}.handSize`, handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${maxHashBits}`));
  }
  return errs;
}

function percentErrors(v: unknown, path: string): Errs {
  return typeof v === 'number' && (v < 0 || v > 100) ? [fieldInvalid(path, v, 'must be between 0 and 100, inclusive')] : [];
}

function limitedErrors(l: Record<string, unknown>, path: string): Errs {
  const errs: Errs = [];
  const shares = typeof l.nominalConcurrencyShares === 'number' ? l.nominalConcurrencyShares : 0;
  if (shares < 0) errs.push(fieldInvalid(`${path}.nominalConcurrencyShares`, shares, 'must be a non-negative integer'));
  const lr = rec(l.limitResponse);
  const type = str(lr.type) ?? '';
  if (type === 'Reject') {
    if (present(lr.queuing)) errs.push(fieldForbidden(`${path}.limitResponse.queuing`, 'must be nil if limited.limitResponse.type is not Limited'));
  } else if (type === 'Queue') {
    if (!present(lr.queuing)) errs.push(fieldRequired(`${path}.limitResponse.queuing`, 'must not be empty if limited.limitResponse.type is Limited'));
    else errs.push(...queuingErrors(rec(lr.queuing), `${path}.limitResponse.queuing`));
  } else {
    errs.push(fieldNotSupported(`${path}.limitResponse.type`, type, ['Queue', 'Reject']));
  }
  errs.push(...percentErrors(l.lendablePercent, `${path}.lendablePercent`));
  if (typeof l.borrowingLimitPercent === 'number' && l.borrowingLimitPercent < 0) {
    errs.push(fieldInvalid(`${path}.borrowingLimitPercent`, l.borrowingLimitPercent, 'if specified, must be a non-negative integer'));
  }
  return errs;
}

function mandatoryLevelErrors(name: string, spec: unknown): Errs {
  const mandatory = mandatoryPriorityLevels.find((m) => m.metadata.name === name);
  if (!mandatory) return [];
  if (name === 'exempt') {
    // The exempt level's `spec.exempt` is the administrator's to change; the rest is fixed.
    const mine = { ...rec(spec), exempt: mandatory.spec.exempt };
    return sameSpec(mine, mandatory.spec) ? [] : [fieldInvalid('spec', spec, `spec of '${name}' except the 'spec.exempt' field must equal the fixed value`)];
  }
  return sameSpec(spec, mandatory.spec) ? [] : [fieldInvalid('spec', spec, `spec of '${name}' must equal the fixed value`)];
}

export function validatePriorityLevelConfiguration(obj: KObject): FieldError[] {
  const errs: Errs = [];
  const name = str(obj.metadata?.name) ?? '';
  const spec = rec(obj.spec);
  const type = str(spec.type) ?? '';
  if ((name === 'exempt') !== (type === 'Exempt')) errs.push(fieldInvalid('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  if (type === 'Exempt') {
    if (present(spec.limited)) errs.push(fieldForbidden('spec.limited', 'must be nil if the type is not Limited'));
    if (present(spec.exempt)) {
      const e = rec(spec.exempt);
      if (typeof e.nominalConcurrencyShares === 'number' && e.nominalConcurrencyShares < 0) {
        errs.push(fieldInvalid('spec.exempt.nominalConcurrencyShares', e.nominalConcurrencyShares, 'must be a non-negative integer'));
      }
      errs.push(...percentErrors(e.lendablePercent, 'spec.exempt.lendablePercent'));
    }
  } else if (type === 'Limited') {
    if (present(spec.exempt)) errs.push(fieldForbidden('spec.exempt', 'must be nil if the type is Limited'));
    if (!present(spec.limited)) errs.push(fieldRequired('spec.limited', 'must not be empty when type is Limited'));
    else errs.push(...limitedErrors(rec(spec.limited), 'spec.limited'));
  } else {
    errs.push(fieldNotSupported('spec.type', type, ['Exempt', 'Limited']));
  }
  errs.push(...mandatoryLevelErrors(name, obj.spec));
  errs.push(...conditionErrors(obj.status, 'status'));
  return errs;
}
