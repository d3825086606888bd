// Validation of ValidatingAdmissionPolicies and their bindings (admissionregistration.k8s.io/v1), upstream's paths
// and messages; CEL expressions are compiled when the engine is loaded (the kinds' `load` loads it).
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import { arr, deepEqual, present, qualifiedNameErrors, rec, str, validateLabelSelector, type Errs } from './common.js';
import { isDns1035Label, isDns1123Subdomain, isPathSegmentName } from '../../machinery/names.js';
import { celErrors, validateMatchConditions, validateRuleWithOperations } from './admissionregistration.js';
import { policyVariables } from '../../admission/policy/variables.js';

const failurePolicies = ['Fail', 'Ignore'];
const matchPolicies = ['Equivalent', 'Exact'];
const reasons = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const actions = ['Audit', 'Deny', 'Warn'];
const celReserved = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

function validateNamedRule(rule: unknown, path: string): Errs {
  const errs: Errs = [];
  const seen = new Set<string>();
  arr(rec(rule).resourceNames).forEach((n, i) => {
    const name = str(n) ?? '';
    for (const m of isPathSegmentName(name)) errs.push(fieldInvalid(`${path}.resourceNames[${i}]`, name, m));
    if (seen.has(name)) errs.push(fieldDuplicate(`${path}.resourceNames[${i}]`, name));
    seen.add(name);
  });
  return [...errs, ...validateRuleWithOperations(rule, path)];
}

export function validateMatchResources(mr: unknown, path: string): Errs {
  if (!present(mr)) return [];
  const m = rec(mr);
  const errs: Errs = [];
  if (!present(m.matchPolicy)) errs.push(fieldRequired(`${path}.matchPolicy`));
  else if (!matchPolicies.includes(str(m.matchPolicy) ?? '')) errs.push(fieldNotSupported(`${path}.matchPolicy`, m.matchPolicy, matchPolicies));
  if (!present(m.namespaceSelector)) errs.push(fieldRequired(`${path}.namespaceSelector`));
  else errs.push(...validateLabelSelector(m.namespaceSelector, `${path}.namespaceSelector`));
  if (!present(m.objectSelector)) errs.push(fieldRequired(`${path}.objectSelector`));
  else errs.push(...validateLabelSelector(m.objectSelector, `${path}.objectSelector`));
  arr(m.resourceRules).forEach((r, i) => errs.push(...validateNamedRule(r, `${path}.resourceRules[${i}]`)));
  arr(m.excludeResourceRules).forEach((r, i) => errs.push(...validateNamedRule(r, `${path}.excludeResourceRules[${i}]`)));
  return errs;
}

function validateParamKind(pk: Record<string, unknown>, path: string): Errs {
  const errs: Errs = [];
  const apiVersion = str(pk.apiVersion) ?? '';
  if (apiVersion === '') errs.push(fieldRequired(`${path}.apiVersion`));
  else {
    const parts = apiVersion.split('/');
    if (parts.length > 2) errs.push(fieldInvalid(`${path}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    else {
      const [group, version] = parts.length === 2 ? parts : ['', parts[0]];
      const ge = group ? isDns1123Subdomain(group) : [];
      if (ge.length) errs.push(fieldInvalid(`${path}.apiVersion`, group, ge.join(',')));
      if (!version) errs.push(fieldInvalid(`${path}.apiVersion`, apiVersion, 'version must be specified'));
      else {
        const ve = isDns1035Label(version);
        if (ve.length) errs.push(fieldInvalid(`${path}.apiVersion`, version, ve.join(',')));
      }
    }
  }
  const kind = str(pk.kind) ?? '';
  if (kind === '') errs.push(fieldRequired(`${path}.kind`));
  else {
    const ke = isDns1035Label(kind.toLowerCase());
    if (ke.length) errs.push(fieldInvalid(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${ke.join(',')}`));
  }
  return errs;
}

function validateValidation(v: Record<string, unknown>, path: string, vars: readonly string[]): Errs {
  const errs: Errs = [];
  const expr = str(v.expression) ?? '';
  if (expr.trim() === '') errs.push(fieldRequired(`${path}.expression`, 'expression is not specified'));
  else errs.push(...celErrors(expr, `${path}.expression`, vars));
  const me = str(v.messageExpression) ?? '';
  if (me.length > 0 && me.trim() === '') errs.push(fieldInvalid(`${path}.messageExpression`, me, 'must be non-empty if specified'));
  else if (me.trim() !== '') errs.push(...celErrors(me, `${path}.messageExpression`, vars.filter((x) => x !== 'authorizer')));
  const msg = str(v.message) ?? '';
  if (msg.length > 0 && msg.trim() === '') errs.push(fieldInvalid(`${path}.message`, msg, 'message must be non-empty if specified'));
  else if (/[\n\r]/.test(msg.trim())) errs.push(fieldInvalid(`${path}.message`, msg, 'message must not contain line breaks'));
  if (present(v.reason) && !reasons.includes(str(v.reason) ?? '')) errs.push(fieldNotSupported(`${path}.reason`, v.reason, reasons));
  return errs;
}

function validateAuditAnnotation(a: Record<string, unknown>, policyName: string, path: string, vars: readonly string[]): Errs {
  const errs: Errs = [];
  const key = str(a.key) ?? '';
  if (policyName) errs.push(...qualifiedNameErrors(`${policyName}/${key}`, `${path}.key`));
  else errs.push(fieldInvalid(`${path}.key`, key, 'requires metadata.name be non-empty'));
  const ve = (str(a.valueExpression) ?? '').trim();
  if (ve === '') errs.push(fieldRequired(`${path}.valueExpression`, 'valueExpression is not specified'));
  else if (Buffer.byteLength(ve) > 5 * 1024) errs.push(fieldRequired(`${path}.valueExpression`, 'must not exceed 5120 bytes in length'));
  else errs.push(...celErrors(ve, `${path}.valueExpression`, vars).map((e) => ({ ...e, message: e.message.replace(JSON.stringify(ve), JSON.stringify(str(a.valueExpression) ?? '')) })));
  return errs;
}

/** A ValidatingAdmissionPolicy's spec (status writes are checked by the generic rules only). */
export function validateValidatingAdmissionPolicy(obj: KObject, old: KObject | undefined): FieldError[] {
  const spec = rec(obj.spec);
  const oldSpec = old ? rec(old.spec) : undefined;
  const errs: Errs = [];
  if (!present(spec.failurePolicy)) errs.push(fieldRequired('spec.failurePolicy'));
  else if (!failurePolicies.includes(str(spec.failurePolicy) ?? '')) errs.push(fieldNotSupported('spec.failurePolicy', spec.failurePolicy, failurePolicies));
  const hasParams = present(spec.paramKind);
  if (hasParams) errs.push(...validateParamKind(rec(spec.paramKind), 'spec.paramKind'));
  if (!present(spec.matchConstraints)) errs.push(fieldRequired('spec.matchConstraints'));
  else {
    errs.push(...validateMatchResources(spec.matchConstraints, 'spec.matchConstraints'));
    if (arr(rec(spec.matchConstraints).resourceRules).length === 0) errs.push(fieldRequired('spec.matchConstraints.resourceRules'));
  }
  const vars = policyVariables(hasParams, arr(spec.variables).length > 0);
  const unchangedConditions = oldSpec !== undefined && deepEqual(oldSpec.paramKind, spec.paramKind) && deepEqual(oldSpec.matchConditions, spec.matchConditions);
  if (!unchangedConditions) errs.push(...validateMatchConditions(spec.matchConditions, 'spec.matchConditions', vars));
  arr(spec.variables).forEach((v, i) => {
    const m = rec(v);
    const p = `spec.variables[${i}]`;
    const name = str(m.name) ?? '';
    if (name.trim() === '') errs.push(fieldRequired(`${p}.name`, 'name is not specified'));
    else if (!/^[_a-zA-Z][_a-zA-Z0-9]*$/.test(name) || celReserved.has(name)) errs.push(fieldInvalid(`${p}.name`, name, 'name is not a valid CEL identifier'));
    const expr = str(m.expression) ?? '';
    if (expr.trim() === '') errs.push(fieldRequired(`${p}.expression`, 'expression is not specified'));
    else errs.push(...celErrors(expr, `${p}.expression`, vars));
  });
  const validations = arr(spec.validations);
  const annotations = arr(spec.auditAnnotations);
  if (validations.length === 0 && annotations.length === 0) {
    errs.push(fieldRequired('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    errs.push(fieldRequired('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  validations.forEach((v, i) => errs.push(...validateValidation(rec(v), `spec.validations[${i}]`, vars)));
  if (annotations.length > 20) errs.push(fieldInvalid('spec.auditAnnotations', annotations, 'must not have more than 20 auditAnnotations'));
  const keys = new Set<string>();
  annotations.forEach((a, i) => {
    const m = rec(a);
    errs.push(...validateAuditAnnotation(m, obj.metadata.name ?? '', `spec.auditAnnotations[${i}]`, vars));
    const key = str(m.key) ?? '';
    if (keys.has(key)) errs.push(fieldDuplicate(`spec.auditAnnotations[${i}].key`, key));
    keys.add(key);
  });
  return errs;
}

function validateParamRef(pr: unknown, path: string): Errs {
  if (!present(pr)) return [];
  const p = rec(pr);
  const errs: Errs = [];
  const name = str(p.name) ?? '';
  if (name) {
    for (const m of isPathSegmentName(name)) errs.push(fieldInvalid(`${path}.name`, name, m));
    if (present(p.selector)) errs.push(fieldForbidden(`${path}.name`, 'name and selector are mutually exclusive'));
  }
  if (present(p.selector)) {
    errs.push(...validateLabelSelector(p.selector, `${path}.selector`));
    if (name) errs.push(fieldForbidden(`${path}.selector`, 'name and selector are mutually exclusive'));
  }
  if (!name && !present(p.selector)) errs.push(fieldRequired(path, 'one of name or selector must be specified'));
  const action = str(p.parameterNotFoundAction) ?? '';
  if (action === '') errs.push(fieldRequired(`${path}.parameterNotFoundAction`));
  else if (action !== 'Deny' && action !== 'Allow') errs.push(fieldNotSupported(`${path}.parameterNotFoundAction`, action, ['Deny', 'Allow']));
  return errs;
}

export function validateValidatingAdmissionPolicyBinding(obj: KObject): FieldError[] {
  const spec = rec(obj.spec);
  const errs: Errs = [];
  const policyName = str(spec.policyName) ?? '';
  if (policyName === '') errs.push(fieldRequired('spec.policyName'));
  else for (const m of isDns1123Subdomain(policyName)) errs.push(fieldInvalid('spec.policyName', policyName, m));
  errs.push(...validateParamRef(spec.paramRef, 'spec.paramRef'));
  // Upstream's path has this spelling.
  errs.push(...validateMatchResources(spec.matchResources, 'spec.matchResouces'));
  const va = arr(spec.validationActions);
  const seen = new Set<string>();
  va.forEach((a, i) => {
    const s = str(a) ?? '';
    if (!actions.includes(s)) errs.push(fieldNotSupported(`spec.validationActions[${i}]`, a, actions));
    if (seen.has(s)) errs.push(fieldDuplicate(`spec.validationActions[${i}]`, a));
    seen.add(s);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(fieldInvalid('spec.validationActions', va, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (seen.size === 0) errs.push(fieldRequired('spec.validationActions', 'at least one validation action is required'));
  return errs;
}
