// A pod's resource claims (core/validation): `spec.resourceClaims` entries with unique DNS-label names, each naming
// exactly one of a ResourceClaim or a ResourceClaimTemplate; containers' `resources.claims`, each naming one of
// them (once per request); and the `status.resourceClaimStatuses` the resourceclaim controller writes.
import { fieldDuplicate, fieldInvalid, fieldNotFound, fieldRequired } from '../../machinery/errors.js';
import { isDns1123Label, isDns1123Subdomain } from '../../machinery/names.js';
import { arr, rec, str, type Errs } from './common.js';

const set = (v: unknown) => v !== undefined && v !== null;

/** spec.resourceClaims, then every container's resources.claims against them. */
export function validatePodClaims(spec: Record<string, unknown>, path: string): Errs {
  const errs: Errs = [];
  const names = new Set<string>();
  arr(spec.resourceClaims).forEach((c, i) => {
    const claim = rec(c);
    const p = `${path}.resourceClaims[${i}]`;
    const name = str(claim.name) ?? '';
    if (!name) errs.push(fieldRequired(`${p}.name`));
    else if (names.has(name)) errs.push(fieldDuplicate(`${p}.name`, name));
    else {
      for (const m of isDns1123Label(name)) errs.push(fieldInvalid(`${p}.name`, name, m));
      names.add(name);
    }
    const byName = set(claim.resourceClaimName);
    const byTemplate = set(claim.resourceClaimTemplateName);
    if (byName && byTemplate) errs.push(fieldInvalid(p, claim, 'at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified'));
    if (!byName && !byTemplate) errs.push(fieldInvalid(p, claim, 'must specify one of: `resourceClaimName`, `resourceClaimTemplateName`'));
    for (const f of ['resourceClaimName', 'resourceClaimTemplateName']) {
      if (!set(claim[f])) continue;
      const v = str(claim[f]) ?? '';
      for (const m of isDns1123Subdomain(v)) errs.push(fieldInvalid(`${p}.${f}`, v, m));
    }
  });
  const known = [...names].sort();
  for (const kind of ['initContainers', 'containers', 'ephemeralContainers']) {
    arr(spec[kind]).forEach((ctr, i) => errs.push(...containerClaimErrors(rec(rec(ctr).resources).claims, `${path}.${kind}[${i}].resources.claims`, names, known)));
  }
  return errs;
}

function containerClaimErrors(claims: unknown, path: string, names: Set<string>, known: string[]): Errs {
  const errs: Errs = [];
  const seen = new Set<string>();
  arr(claims).forEach((c, i) => {
    const claim = rec(c);
    const p = `${path}[${i}]`;
    const name = str(claim.name) ?? '';
    const request = str(claim.request) ?? '';
    if (!name) { errs.push(fieldRequired(p)); return; }
    const key = request ? `${name}/${request}` : name;
    if (seen.has(key)) errs.push(fieldDuplicate(p, key));
    else seen.add(key);
    if (!names.has(name)) {
      const e = fieldNotFound(p, name);
      errs.push({ ...e, message: `${e.message}: must be one of the names in pod.spec.resourceClaims${known.length ? `: ${known.join(', ')}` : ' which is empty'}` });
    }
    if (request) for (const m of isDns1123Label(request)) errs.push(fieldInvalid(`${p}.request`, request, m));
  });
  return errs;
}

/** status.resourceClaimStatuses: one entry per claim of the spec, each with a valid claim name when set. */
export function validatePodClaimStatuses(spec: unknown, status: unknown): Errs {
  const podClaims = new Set(arr(rec(spec).resourceClaims).map((c) => str(rec(c).name) ?? ''));
  const errs: Errs = [];
  const seen = new Set<string>();
  arr(rec(status).resourceClaimStatuses).forEach((s, i) => {
    const st = rec(s);
    const p = `status.resourceClaimStatuses[${i}].name`;
    const name = str(st.name) ?? '';
    if (!podClaims.has(name)) errs.push(fieldInvalid(p, name, 'must match the name of an entry in `spec.resourceClaims`'));
    if (seen.has(name)) errs.push(fieldDuplicate(p, name));
    else seen.add(name);
    if (set(st.resourceClaimName)) {
      const v = str(st.resourceClaimName) ?? '';
      for (const m of isDns1123Subdomain(v)) errs.push(fieldInvalid(p, v, m));
    }
  });
  return errs;
}
