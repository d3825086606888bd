// Pod spec list items that upstream validates item by item (core/validation), so that a zero item (`[null]`
// decodes to one) is refused as kube-apiserver refuses it: tolerations, host aliases, readiness and scheduling
// gates, topology spread constraints, sysctls, resource claims (pod-claims.ts), and a container's envFrom and volumeDevices.
import { fieldInvalid, fieldNotSupported, fieldRequired } from '../../machinery/errors.js';
import { isRecord } from '../../machinery/types.js';
import { arr, qualifiedNameErrors, rec, str, type Errs } from './common.js';
import { invalidIpError, isDns1123Subdomain, isIp } from '../../machinery/names.js';
import { validatePodClaims } from './pod-claims.js';


/** The rules of ValidateTolerations that Bonsai's pod validation did not have: keys, empty keys, NoExecute seconds. */
export function validateTolerationKeys(tolerations: unknown, path: string): Errs {
  const errs: Errs = [];
  arr(tolerations).forEach((t, i) => {
    const r = rec(t);
    const p = `${path}[${i}]`;
    const key = str(r.key) ?? '';
    if (key) errs.push(...qualifiedNameErrors(key, `${p}.key`));
    else if (r.operator !== 'Exists') {
      errs.push(fieldInvalid(`${p}.operator`, r.operator ?? '', 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (r.tolerationSeconds !== undefined && r.tolerationSeconds !== null && r.effect !== 'NoExecute') {
      errs.push(fieldInvalid(`${p}.effect`, r.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
  });
  return errs;
}

/** Pod-level lists: hostAliases, readinessGates, schedulingGates, topologySpreadConstraints, sysctls, resourceClaims. */
export function validatePodLists(spec: Record<string, unknown>, path: string): Errs {
  const errs: Errs = [];
  arr(spec.hostAliases).forEach((h, i) => {
    const r = rec(h);
    const ip = str(r.ip) ?? '';
    if (!isIp(ip)) errs.push(fieldInvalid(`${path}.hostAliases[${i}].ip`, ip, invalidIpError));
    arr(r.hostnames).forEach((n, j) => {
      for (const m of isDns1123Subdomain(str(n) ?? '')) errs.push(fieldInvalid(`${path}.hostAliases[${i}].hostnames[${j}]`, n, m));
    });
  });
  arr(spec.readinessGates).forEach((g, i) => errs.push(...qualifiedNameErrors(rec(g).conditionType, `${path}.readinessGates[${i}].conditionType`)));
  arr(spec.schedulingGates).forEach((g, i) => errs.push(...qualifiedNameErrors(rec(g).name, `${path}.schedulingGates[${i}].name`)));
  arr(spec.topologySpreadConstraints).forEach((c, i) => {
    const r = rec(c);
    const p = `${path}.topologySpreadConstraints[${i}]`;
    if (typeof r.maxSkew !== 'number' || r.maxSkew <= 0) errs.push(fieldInvalid(`${p}.maxSkew`, r.maxSkew ?? 0, 'must be greater than zero'));
    if (!str(r.topologyKey)) errs.push(fieldRequired(`${p}.topologyKey`, 'can not be empty'));
    if (r.whenUnsatisfiable !== 'DoNotSchedule' && r.whenUnsatisfiable !== 'ScheduleAnyway') {
      errs.push(fieldNotSupported(`${p}.whenUnsatisfiable`, r.whenUnsatisfiable ?? '', ['DoNotSchedule', 'ScheduleAnyway']));
    }
  });
  arr(rec(spec.securityContext).sysctls).forEach((s, i) => {
    const name = str(rec(s).name) ?? '';
    if (!name) errs.push(fieldRequired(`${path}.securityContext.sysctls[${i}].name`));
  });
  errs.push(...validatePodClaims(spec, path));
  return errs;
}

/** Container lists: envFrom sources, volumeDevices. */
export function validateContainerLists(ctr: Record<string, unknown>, path: string): Errs {
  const errs: Errs = [];
  for (const e of arr(ctr.envFrom)) {
    const r = rec(e);
    const sources = ['configMapRef', 'secretRef'].filter((k) => isRecord(r[k]));
    if (sources.length === 0) errs.push(fieldInvalid(`${path}.envFrom`, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources.length > 1) errs.push(fieldInvalid(`${path}.envFrom`, '', 'may not have more than one field specified at a time'));
  }
  arr(ctr.volumeDevices).forEach((d, i) => {
    const r = rec(d);
    if (!str(r.name)) errs.push(fieldRequired(`${path}.volumeDevices[${i}].name`));
    if (!str(r.devicePath)) errs.push(fieldRequired(`${path}.volumeDevices[${i}].devicePath`));
  });
  return errs;
}
