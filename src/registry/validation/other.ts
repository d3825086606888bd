// Validation for the smaller groups: rbac, autoscaling, policy, networking (trimmed to common mistakes).
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from '../../machinery/errors.js';
import { isRecord, type KObject } from '../../machinery/types.js';
import { arr, deepEqual, rec, str, validateLabelSelector, type Errs } from './common.js';
import { isValidPercent } from '../../machinery/names.js';

/** Go's %#v of a string list, as upstream's field errors print one. */
const goStrings = (v: unknown[]) => `[]string{${v.map((x) => JSON.stringify(String(x))).join(', ')}}`;
const invalidUrls = (field: string, urls: unknown[], detail: string): Errs[number] => ({ type: 'FieldValueInvalid', field, message: `Invalid value: ${goStrings(urls)}: ${detail}` });

/** A Role's or ClusterRole's rules, as upstream's ValidatePolicyRule (namespaced roles cannot name URLs). */
export function validateRole(obj: KObject, namespaced: boolean): Errs {
  const errs: Errs = [];
  arr(obj.rules).forEach((r, i) => {
    const rule = rec(r);
    const p = `rules[${i}]`;
    if (arr(rule.verbs).length === 0) errs.push(fieldRequired(`${p}.verbs`, 'verbs must contain at least one value'));
    const urls = arr(rule.nonResourceURLs);
    if (urls.length > 0) {
      if (namespaced) errs.push(invalidUrls(`${p}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
      if (arr(rule.resources).length > 0 || arr(rule.apiGroups).length > 0 || arr(rule.resourceNames).length > 0) {
        errs.push(invalidUrls(`${p}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
      }
      return;
    }
    if (arr(rule.apiGroups).length === 0) errs.push(fieldRequired(`${p}.apiGroups`, 'resource rules must supply at least one api group'));
    if (arr(rule.resources).length === 0) errs.push(fieldRequired(`${p}.resources`, 'resource rules must supply at least one resource'));
  });
  return errs;
}

export function validateRoleBinding(obj: KObject, old: KObject | undefined, cluster: boolean): Errs {
  const errs: Errs = [];
  const ref = rec(obj.roleRef);
  const kinds = cluster ? ['ClusterRole'] : ['Role', 'ClusterRole'];
  if (ref.apiGroup !== 'rbac.authorization.k8s.io') errs.push(fieldNotSupported('roleRef.apiGroup', ref.apiGroup ?? '', ['rbac.authorization.k8s.io']));
  if (!kinds.includes(ref.kind as string)) errs.push(fieldNotSupported('roleRef.kind', ref.kind ?? '', kinds));
  if (!str(ref.name)) errs.push(fieldRequired('roleRef.name'));
  arr(obj.subjects).forEach((s, i) => {
    const sub = rec(s);
    const p = `subjects[${i}]`;
    if (!str(sub.name)) errs.push(fieldRequired(`${p}.name`));
    switch (sub.kind) {
      case 'ServiceAccount':
        if (sub.apiGroup) errs.push(fieldNotSupported(`${p}.apiGroup`, sub.apiGroup, ['']));
        // A RoleBinding's ServiceAccount subjects default to the binding's namespace.
        if (cluster && !str(sub.namespace)) errs.push(fieldRequired(`${p}.namespace`));
        break;
      case 'User':
      case 'Group':
        if (sub.apiGroup !== 'rbac.authorization.k8s.io') errs.push(fieldNotSupported(`${p}.apiGroup`, sub.apiGroup ?? '', ['rbac.authorization.k8s.io']));
        break;
      default:
        errs.push(fieldNotSupported(`${p}.kind`, sub.kind ?? '', ['ServiceAccount', 'User', 'Group']));
    }
  });
  if (old && !deepEqual(obj.roleRef, old.roleRef)) errs.push(fieldInvalid('roleRef', obj.roleRef, 'cannot change roleRef'));
  return errs;
}

export function validateHpa(obj: KObject): Errs {
  const errs: Errs = [];
  const spec = rec(obj.spec);
  const ref = rec(spec.scaleTargetRef);
  if (!str(ref.kind)) errs.push(fieldRequired('spec.scaleTargetRef.kind'));
  if (!str(ref.name)) errs.push(fieldRequired('spec.scaleTargetRef.name'));
  const min = spec.minReplicas;
  const max = spec.maxReplicas;
  if (typeof min === 'number' && min < 1) errs.push(fieldInvalid('spec.minReplicas', min, 'must be greater than or equal to 1'));
  if (typeof max === 'number' && max < 1) errs.push(fieldInvalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (typeof min === 'number' && typeof max === 'number' && max < min) {
    errs.push(fieldInvalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  }
  const cpu = spec.targetCPUUtilizationPercentage;
  if (typeof cpu === 'number' && cpu < 1) errs.push(fieldInvalid('spec.targetCPUUtilizationPercentage', cpu, 'must be greater than 0'));
  return errs;
}

function intOrPercent(v: unknown, path: string): Errs {
  if (typeof v === 'number') return v < 0 ? [fieldInvalid(path, v, 'must be greater than or equal to 0')] : [];
  if (typeof v === 'string') {
    const msgs = isValidPercent(v);
    if (msgs.length) return msgs.map((m) => fieldInvalid(path, v, m));
    if (parseInt(v, 10) > 100) return [fieldInvalid(path, v, 'must not be greater than 100%')];
  }
  return [];
}

export function validatePdb(obj: KObject): Errs {
  const spec = rec(obj.spec);
  const errs: Errs = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    errs.push(fieldInvalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  }
  errs.push(...intOrPercent(spec.minAvailable, 'spec.minAvailable'), ...intOrPercent(spec.maxUnavailable, 'spec.maxUnavailable'));
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && policy !== 'IfHealthyBudget' && policy !== 'AlwaysAllow') {
    errs.push(fieldNotSupported('spec.unhealthyPodEvictionPolicy', policy, ['AlwaysAllow', 'IfHealthyBudget']));
  }
  return errs;
}

const pathTypes = ['Exact', 'ImplementationSpecific', 'Prefix'];

function validateBackend(b: unknown, path: string): Errs {
  const errs: Errs = [];
  const backend = rec(b);
  const svc = backend.service;
  if (isRecord(svc) && isRecord(backend.resource)) errs.push(fieldInvalid(path, b, 'cannot set both resource and service backends'));
  if (isRecord(svc)) {
    if (!str(svc.name)) errs.push(fieldRequired(`${path}.service.name`));
    const port = rec(svc.port);
    if (port.name && port.number) errs.push(fieldInvalid(`${path}.service.port`, port, 'cannot set both port name & port number'));
    else if (!port.name && !port.number) errs.push(fieldInvalid(`${path}.service.port`, port, 'port name or number is required'));
  } else if (!isRecord(backend.resource)) {
    errs.push(fieldInvalid(path, b ?? {}, 'resource or service backend is required'));
  }
  return errs;
}

export function validateIngress(obj: KObject): Errs {
  const errs: Errs = [];
  const spec = rec(obj.spec);
  if (spec.defaultBackend !== undefined) errs.push(...validateBackend(spec.defaultBackend, 'spec.defaultBackend'));
  if (arr(spec.rules).length === 0 && spec.defaultBackend === undefined) {
    errs.push(fieldInvalid('spec', spec, 'either `defaultBackend` or `rules` must be specified'));
  }
  arr(spec.rules).forEach((r, i) => {
    const rule = rec(r);
    const http = rule.http;
    if (!isRecord(http)) return;
    const paths = arr(http.paths);
    if (paths.length === 0) errs.push(fieldRequired(`spec.rules[${i}].http.paths`));
    paths.forEach((pp, j) => {
      const p = rec(pp);
      const fp = `spec.rules[${i}].http.paths[${j}]`;
      const pt = p.pathType;
      if (!pt) errs.push(fieldRequired(`${fp}.pathType`, 'pathType must be specified'));
      else if (!pathTypes.includes(pt as string)) errs.push(fieldNotSupported(`${fp}.pathType`, pt, pathTypes));
      const path = str(p.path);
      if ((pt === 'Exact' || pt === 'Prefix') && !path?.startsWith('/')) errs.push(fieldInvalid(`${fp}.path`, path ?? '', 'must be an absolute path'));
      errs.push(...validateBackend(p.backend, `${fp}.backend`));
    });
  });
  return errs;
}

export function validateNetworkPolicy(obj: KObject): Errs {
  const spec = rec(obj.spec);
  const errs = validateLabelSelector(spec.podSelector, 'spec.podSelector');
  arr(spec.policyTypes).forEach((t, i) => {
    if (t !== 'Ingress' && t !== 'Egress') errs.push(fieldNotSupported(`spec.policyTypes[${i}]`, t, ['Ingress', 'Egress']));
  });
  if (arr(spec.policyTypes).length > 2) errs.push(fieldForbidden('spec.policyTypes', 'may not specify more than two policyTypes'));
  return errs;
}
