// Validation of admissionregistration.k8s.io/v1 webhook configurations, with upstream's paths and messages
// (pkg/apis/admissionregistration/validation). Policies and bindings: admissionregistration-policy.ts.
import { fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import { loadedCel } from '../../admission/policy/cel-adapter.js';
import { arr, deepEqual, present, qualifiedNameErrors, rec, str, validateLabelSelector, type Errs } from './common.js';
import { isDns1035Label, isDns1123Subdomain } from '../../machinery/names.js';

const has = (list: unknown[], v: string) => list.includes(v);

function validateResources(resources: unknown[], path: string): Errs {
  const errs: Errs = [];
  if (resources.length === 0) errs.push(fieldRequired(path));
  const wildSub = new Set<string>();
  const wildRes = new Set<string>();
  let doubleWild = false;
  let singleWild = false;
  let plain = false;
  resources.forEach((r, i) => {
    const rs = str(r) ?? '';
    if (rs === '') { errs.push(fieldRequired(`${path}[${i}]`)); return; }
    if (rs === '*/*') doubleWild = true;
    if (rs === '*') singleWild = true;
    const slash = rs.indexOf('/');
    if (slash < 0) { plain = rs !== '*'; return; }
    const res = rs.slice(0, slash);
    const sub = rs.slice(slash + 1);
    if (wildSub.has(res)) errs.push(fieldInvalid(`${path}[${i}]`, rs, `if '${res}/*' is present, must not specify ${rs}`));
    if (wildRes.has(sub)) errs.push(fieldInvalid(`${path}[${i}]`, rs, `if '*/${sub}' is present, must not specify ${rs}`));
    if (sub === '*') wildSub.add(res);
    if (res === '*') wildRes.add(sub);
  });
  if (resources.length > 1 && doubleWild) errs.push(fieldInvalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWild && plain) errs.push(fieldInvalid(path, resources, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

const scopes = ['*', 'Cluster', 'Namespaced'];
const operations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];

/** A RuleWithOperations at `path` (its fields sit directly under `path`). */
export function validateRuleWithOperations(rule: unknown, path: string): Errs {
  const r = rec(rule);
  const errs: Errs = [];
  const ops = arr(r.operations);
  if (ops.length === 0) errs.push(fieldRequired(`${path}.operations`));
  if (ops.length > 1 && has(ops, '*')) errs.push(fieldInvalid(`${path}.operations`, ops, "if '*' is present, must not specify other operations"));
  ops.forEach((o, i) => { if (!operations.includes(str(o) ?? '')) errs.push(fieldNotSupported(`${path}.operations[${i}]`, o, operations)); });
  const groups = arr(r.apiGroups);
  if (groups.length === 0) errs.push(fieldRequired(`${path}.apiGroups`));
  if (groups.length > 1 && has(groups, '*')) errs.push(fieldInvalid(`${path}.apiGroups`, groups, "if '*' is present, must not specify other API groups"));
  const versions = arr(r.apiVersions);
  if (versions.length === 0) errs.push(fieldRequired(`${path}.apiVersions`));
  if (versions.length > 1 && has(versions, '*')) errs.push(fieldInvalid(`${path}.apiVersions`, versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => { if (v === '') errs.push(fieldRequired(`${path}.apiVersions[${i}]`)); });
  errs.push(...validateResources(arr(r.resources), `${path}.resources`));
  if (present(r.scope) && !scopes.includes(str(r.scope) ?? '')) errs.push(fieldNotSupported(`${path}.scope`, r.scope, scopes));
  return errs;
}

/** utilvalidation.IsFullyQualifiedName: a DNS subdomain with at least three segments. */
function fullyQualifiedName(v: unknown, path: string): Errs {
  const name = str(v) ?? '';
  if (name === '') return [fieldRequired(path)];
  const errs = isDns1123Subdomain(name);
  if (errs.length) return [fieldInvalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [fieldInvalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

const form = '; desired format: https://host[/path]';

function validateUrl(v: string, path: string): Errs {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return [fieldRequired(path, `url must be a valid URL: parse ${JSON.stringify(v)}: invalid URI for request${form}`)];
  }
  const errs: Errs = [];
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'https') errs.push(fieldInvalid(path, scheme, `'https' is the only allowed URL scheme${form}`));
  if (u.host === '') errs.push(fieldInvalid(path, u.host, `host must be specified${form}`));
  if (u.username || u.password) errs.push(fieldInvalid(path, u.password ? `${u.username}:${u.password}` : u.username, 'user information is not permitted in the URL'));
  if (u.hash.length > 1) errs.push(fieldInvalid(path, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search.length > 1) errs.push(fieldInvalid(path, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return errs;
}

function validateService(s: Record<string, unknown>, path: string): Errs {
  const errs: Errs = [];
  if (!str(s.name)) errs.push(fieldRequired(`${path}.name`));
  if (!str(s.namespace)) errs.push(fieldRequired(`${path}.namespace`));
  const port = typeof s.port === 'number' ? s.port : 443;
  if (!Number.isInteger(port) || port < 1 || port > 65535) errs.push(fieldInvalid(`${path}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  const p = str(s.path);
  if (p === undefined || p === '' || p === '/') return errs;
  if (p === '//') return [...errs, fieldInvalid(`${path}.path`, p, 'segment[0] may not be empty')];
  if (!p.startsWith('/')) errs.push(fieldInvalid(`${path}.path`, p, "must start with a '/'"));
  let check = p.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step === '') { errs.push(fieldInvalid(`${path}.path`, p, `segment[${i}] may not be empty`)); return; }
    for (const f of isDns1123Subdomain(step)) errs.push(fieldInvalid(`${path}.path`, p, `segment[${i}]: ${f}`));
  });
  return errs;
}

/** matchConditions (webhooks and policies): names unique and qualified, expressions compile (when CEL is loaded). */
export function validateMatchConditions(conds: unknown, path: string, vars: readonly string[]): Errs {
  const list = arr(conds);
  const errs: Errs = [];
  if (list.length > 64) errs.push({ type: 'FieldValueTooMany', field: path, message: `Too many: ${list.length}: must have at most 64 items` });
  const names = new Set<string>();
  list.forEach((c, i) => {
    const m = rec(c);
    const p = `${path}[${i}]`;
    const expr = (str(m.expression) ?? '').trim();
    if (expr === '') errs.push(fieldRequired(`${p}.expression`));
    else errs.push(...celErrors(expr, `${p}.expression`, vars));
    const name = str(m.name) ?? '';
    if (name === '') errs.push(fieldRequired(`${p}.name`));
    else errs.push(...qualifiedNameErrors(name, `${p}.name`));
    if (name) {
      if (names.has(name)) errs.push(fieldDuplicate(`${p}.name`, name));
      names.add(name);
    }
  });
  return errs;
}

/** A compile error of `expr` as an invalid value at `path`; nothing when the engine is not loaded yet. */
export function celErrors(expr: string, path: string, vars: readonly string[]): Errs {
  const cel = loadedCel();
  if (!cel) return [];
  const r = cel.compile(expr, vars);
  return 'error' in r ? [fieldInvalid(path, expr, r.error)] : [];
}

const failurePolicies = ['Fail', 'Ignore'];
const matchPolicies = ['Equivalent', 'Exact'];
const noSideEffects = ['None', 'NoneOnDryRun'];
const allSideEffects = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const acceptedReviewVersions = ['v1', 'v1beta1'];

interface Options { requireNoSideEffects: boolean; requireRecognizedVersion: boolean; requireUniqueNames: boolean; ignoreMatchConditions: boolean }

function validateWebhook(w: Record<string, unknown>, path: string, mutating: boolean, opts: Options): Errs {
  const errs: Errs = [...fullyQualifiedName(w.name, `${path}.name`)];
  arr(w.rules).forEach((r, i) => errs.push(...validateRuleWithOperations(r, `${path}.rules[${i}]`)));
  if (present(w.failurePolicy) && !failurePolicies.includes(str(w.failurePolicy) ?? '')) errs.push(fieldNotSupported(`${path}.failurePolicy`, w.failurePolicy, failurePolicies));
  if (present(w.matchPolicy) && !matchPolicies.includes(str(w.matchPolicy) ?? '')) errs.push(fieldNotSupported(`${path}.matchPolicy`, w.matchPolicy, matchPolicies));
  const allowed = opts.requireNoSideEffects ? noSideEffects : allSideEffects;
  if (!present(w.sideEffects)) errs.push(fieldRequired(`${path}.sideEffects`, `must specify one of ${allowed.join(', ')}`));
  else if (!allowed.includes(str(w.sideEffects) ?? '')) errs.push(fieldNotSupported(`${path}.sideEffects`, w.sideEffects, allowed));
  const t = w.timeoutSeconds;
  if (typeof t === 'number' && (t > 30 || t < 1)) errs.push(fieldInvalid(`${path}.timeoutSeconds`, t, 'the timeout value must be between 1 and 30 seconds'));
  if (present(w.namespaceSelector)) errs.push(...validateLabelSelector(w.namespaceSelector, `${path}.namespaceSelector`));
  if (present(w.objectSelector)) errs.push(...validateLabelSelector(w.objectSelector, `${path}.objectSelector`));
  if (mutating && present(w.reinvocationPolicy) && !['IfNeeded', 'Never'].includes(str(w.reinvocationPolicy) ?? '')) {
    errs.push(fieldNotSupported(`${path}.reinvocationPolicy`, w.reinvocationPolicy, ['IfNeeded', 'Never']));
  }
  const cc = rec(w.clientConfig);
  if (present(cc.url) === present(cc.service)) errs.push(fieldRequired(`${path}.clientConfig`, 'exactly one of url or service is required'));
  else if (present(cc.url)) errs.push(...validateUrl(str(cc.url) ?? '', `${path}.clientConfig.url`));
  else errs.push(...validateService(rec(cc.service), `${path}.clientConfig.service`));
  if (!opts.ignoreMatchConditions) errs.push(...validateMatchConditions(w.matchConditions, `${path}.matchConditions`, ['object', 'oldObject', 'request', 'authorizer']));
  return errs;
}

function validateReviewVersions(versions: unknown, path: string, requireRecognized: boolean): Errs {
  const list = arr(versions);
  if (list.length === 0) return [fieldRequired(path, `must specify one of ${acceptedReviewVersions.join(', ')}`)];
  const errs: Errs = [];
  const seen = new Set<string>();
  let accepted = false;
  list.forEach((v, i) => {
    const s = str(v) ?? '';
    if (seen.has(s)) { errs.push(fieldInvalid(`${path}[${i}]`, s, 'duplicate version')); return; }
    seen.add(s);
    for (const m of isDns1035Label(s)) errs.push(fieldInvalid(`${path}[${i}]`, s, m));
    if (acceptedReviewVersions.includes(s)) accepted = true;
  });
  if (requireRecognized && !accepted) errs.push(fieldInvalid(path, list, `must include at least one of ${acceptedReviewVersions.join(', ')}`));
  return errs;
}

function optionsFor(old: KObject | undefined, webhooks: Array<Record<string, unknown>>): Options {
  if (!old) return { requireNoSideEffects: true, requireRecognizedVersion: true, requireUniqueNames: true, ignoreMatchConditions: false };
  const oldHooks = arr(old.webhooks).map(rec);
  const names = oldHooks.map((h) => str(h.name) ?? '');
  return {
    requireNoSideEffects: oldHooks.every((h) => noSideEffects.includes(str(h.sideEffects) ?? '')),
    requireRecognizedVersion: oldHooks.every((h) => arr(h.admissionReviewVersions).length === 0 || arr(h.admissionReviewVersions).some((v) => acceptedReviewVersions.includes(str(v) ?? ''))),
    requireUniqueNames: new Set(names).size === names.length,
    ignoreMatchConditions: oldHooks.length === webhooks.length && oldHooks.every((h, i) => deepEqual(h.matchConditions, webhooks[i].matchConditions)),
  };
}

/** A Validating- or MutatingWebhookConfiguration (metadata is checked by the generic rules). */
export function validateWebhookConfiguration(obj: KObject, old: KObject | undefined, mutating: boolean): FieldError[] {
  const webhooks = arr(obj.webhooks).map(rec);
  const opts = optionsFor(old, webhooks);
  const errs: Errs = [];
  const names = new Set<string>();
  webhooks.forEach((w, i) => {
    const path = `webhooks[${i}]`;
    errs.push(...validateWebhook(w, path, mutating, opts));
    errs.push(...validateReviewVersions(w.admissionReviewVersions, `${path}.admissionReviewVersions`, opts.requireRecognizedVersion));
    const name = str(w.name) ?? '';
    if (opts.requireUniqueNames && name) {
      if (names.has(name)) errs.push(fieldDuplicate(`${path}.name`, name));
      names.add(name);
    }
  });
  return errs;
}
