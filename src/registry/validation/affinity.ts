// Pod affinity validation (core/validation validateAffinity): node selector terms with their operators, values
// and keys, preferred term weights, and pod (anti-)affinity terms' selectors and topology keys.
import { fieldInvalid, fieldRequired } from '../../machinery/errors.js';
import { isRecord } from '../../machinery/types.js';
import { arr, qualifiedNameErrors, rec, requirementErrors, str, validateLabelSelector, type Errs } from './common.js';
import { nameIsDnsSubdomain } from '../../machinery/names.js';

function nodeFieldSelectorRequirement(r: Record<string, unknown>, path: string): Errs {
  const errs: Errs = [];
  const values = arr(r.values);
  if (r.operator === 'In' || r.operator === 'NotIn') {
    if (values.length !== 1) errs.push(fieldRequired(`${path}.values`, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  } else errs.push(fieldInvalid(`${path}.operator`, r.operator ?? '', 'not a valid selector operator'));
  if (r.key !== 'metadata.name') errs.push(fieldInvalid(`${path}.key`, r.key ?? '', 'not a valid field selector key'));
  else {
    values.forEach((v, i) => {
      for (const m of nameIsDnsSubdomain(String(v), false)) errs.push(fieldInvalid(`${path}.values[${i}]`, v, m));
    });
  }
  return errs;
}

function nodeSelectorTerm(term: unknown, path: string): Errs {
  const t = rec(term);
  return [
    ...arr(t.matchExpressions).flatMap((r, j) => requirementErrors(rec(r), `${path}.matchExpressions[${j}]`, true)),
    ...arr(t.matchFields).flatMap((r, j) => nodeFieldSelectorRequirement(rec(r), `${path}.matchFields[${j}]`)),
  ];
}

/** core/validation ValidateNodeSelector: at least one term, each term's expressions and fields. */
export function validateNodeSelector(sel: unknown, path: string): Errs {
  const terms = arr(rec(sel).nodeSelectorTerms);
  if (terms.length === 0) return [fieldRequired(`${path}.nodeSelectorTerms`, 'must have at least one node selector term')];
  return terms.flatMap((t, i) => nodeSelectorTerm(t, `${path}.nodeSelectorTerms[${i}]`));
}

function weightErrors(w: unknown, path: string): Errs {
  return typeof w === 'number' && w >= 1 && w <= 100 ? [] : [fieldInvalid(path, w ?? 0, 'must be in the range 1-100')];
}

function nodeAffinity(na: Record<string, unknown>, path: string): Errs {
  const errs: Errs = [];
  const required = na.requiredDuringSchedulingIgnoredDuringExecution;
  if (isRecord(required)) {
    const termsPath = `${path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
    const terms = arr(required.nodeSelectorTerms);
    if (terms.length === 0) errs.push(fieldRequired(termsPath, 'must have at least one node selector term'));
    terms.forEach((t, i) => errs.push(...nodeSelectorTerm(t, `${termsPath}[${i}]`)));
  }
  arr(na.preferredDuringSchedulingIgnoredDuringExecution).forEach((p, i) => {
    const pp = `${path}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
    errs.push(...weightErrors(rec(p).weight, `${pp}.weight`), ...nodeSelectorTerm(rec(p).preference, `${pp}.preference`));
  });
  return errs;
}

function podAffinityTerm(term: unknown, path: string): Errs {
  const t = rec(term);
  const errs: Errs = [...validateLabelSelector(t.labelSelector, `${path}.labelSelector`), ...validateLabelSelector(t.namespaceSelector, `${path}.namespaceSelector`)];
  if (!str(t.topologyKey)) errs.push(fieldRequired(`${path}.topologyKey`, 'can not be empty'));
  errs.push(...qualifiedNameErrors(t.topologyKey, `${path}.topologyKey`));
  return errs;
}

function podAffinity(pa: Record<string, unknown>, path: string): Errs {
  const errs: Errs = [];
  arr(pa.requiredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
    errs.push(...podAffinityTerm(t, `${path}.requiredDuringSchedulingIgnoredDuringExecution[${i}]`));
  });
  arr(pa.preferredDuringSchedulingIgnoredDuringExecution).forEach((w, i) => {
    const pp = `${path}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
    errs.push(...weightErrors(rec(w).weight, `${pp}.weight`), ...podAffinityTerm(rec(w).podAffinityTerm, `${pp}.podAffinityTerm`));
  });
  return errs;
}

/** `spec.affinity` of a pod or pod template. */
export function validateAffinity(affinity: unknown, path: string): Errs {
  if (!isRecord(affinity)) return [];
  const errs: Errs = [];
  if (isRecord(affinity.nodeAffinity)) errs.push(...nodeAffinity(affinity.nodeAffinity, `${path}.nodeAffinity`));
  if (isRecord(affinity.podAffinity)) errs.push(...podAffinity(affinity.podAffinity, `${path}.podAffinity`));
  if (isRecord(affinity.podAntiAffinity)) errs.push(...podAffinity(affinity.podAntiAffinity, `${path}.podAntiAffinity`));
  return errs;
}
