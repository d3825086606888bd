// scheduling.k8s.io/v1alpha1 Workload validation and the pod's spec.workloadRef, as upstream's 1.35 rules word them.
import { fieldDuplicate, fieldInvalid, fieldRequired, type FieldError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import { hasOwn } from '../../util/own.js';
import { arr, deepEqual, immutable, rec, str, type Errs } from './common.js';
import { isDns1123Label, isDns1123Subdomain, isPathSegmentName } from '../../machinery/names.js';

/** Upstream's WorkloadMaxPodGroups. */
export const maxPodGroups = 8;
const notPositive = 'must be greater than zero';
const policies = ['basic', 'gang'] as const;

function validateControllerRef(ref: Record<string, unknown>, path: string): Errs {
  const errs: Errs = [];
  const group = str(ref.apiGroup) ?? '';
  if (group) for (const m of isDns1123Subdomain(group)) errs.push(fieldInvalid(`${path}.apiGroup`, group, m));
  for (const f of ['kind', 'name']) {
    const v = str(ref[f]) ?? '';
    if (!v) errs.push(fieldRequired(`${path}.${f}`));
    else for (const m of isPathSegmentName(v)) errs.push(fieldInvalid(`${path}.${f}`, v, m));
  }
  return errs;
}

function validatePolicy(policy: Record<string, unknown>, path: string): Errs {
  const set = policies.filter((p) => hasOwn(policy, p) && policy[p] !== null && policy[p] !== undefined);
  if (set.length === 0) return [fieldRequired(path, 'exactly one of `basic`, `gang` is required')];
  if (set.length > 1) return [fieldInvalid(path, `{${set.map((p) => `\`${p}\``).join(', ')}}`, 'exactly one of `basic`, `gang` is required, but multiple fields are set')];
  if (set[0] === 'basic') return [];
  const min = rec(policy.gang).minCount;
  const n = typeof min === 'number' ? min : 0;
  return n > 0 ? [] : [fieldInvalid(`${path}.gang.minCount`, n, notPositive)];
}

function validateSpec(spec: Record<string, unknown>): Errs {
  const errs: Errs = [];
  if (spec.controllerRef !== undefined && spec.controllerRef !== null) errs.push(...validateControllerRef(rec(spec.controllerRef), 'spec.controllerRef'));
  const groups = arr(spec.podGroups);
  if (groups.length === 0) errs.push(fieldRequired('spec.podGroups', 'must have at least one item'));
  else if (groups.length > maxPodGroups) {
    errs.push({ type: 'FieldValueTooMany', field: 'spec.podGroups', message: `Too many: ${groups.length}: must have at most ${maxPodGroups} items` });
  } else {
    const seen = new Set<string>();
    groups.forEach((g, i) => {
      const p = `spec.podGroups[${i}]`;
      const name = str(rec(g).name) ?? '';
      for (const m of isDns1123Label(name)) errs.push(fieldInvalid(`${p}.name`, name, m));
      if (seen.has(name)) errs.push(fieldDuplicate(`${p}.name`, name));
      seen.add(name);
      errs.push(...validatePolicy(rec(rec(g).policy), `${p}.policy`));
    });
  }
  return errs;
}

/** A Workload on create and update; on update controllerRef (once set) and podGroups are immutable. */
export function validateWorkload(obj: KObject, old: KObject | undefined): FieldError[] {
  const spec = rec(obj.spec);
  const errs = validateSpec(spec);
  if (!old) return errs;
  const oldSpec = rec(old.spec);
  // Upstream reports these two at the paths `controllerRef` and `podGroups` (without `spec.`).
  if (oldSpec.controllerRef !== undefined && oldSpec.controllerRef !== null && !deepEqual(spec.controllerRef ?? null, oldSpec.controllerRef)) {
    errs.push(fieldInvalid('controllerRef', spec.controllerRef ?? null, immutable));
  }
  if (!deepEqual(spec.podGroups ?? null, oldSpec.podGroups ?? null)) errs.push(fieldInvalid('podGroups', spec.podGroups ?? null, immutable));
  return errs;
}

/** pod.spec.workloadRef: a Workload name (DNS subdomain), a pod group (DNS label) and an optional replica key (DNS label). */
export function validateWorkloadRef(refIn: unknown, path: string): Errs {
  if (refIn === undefined || refIn === null) return [];
  const ref = rec(refIn);
  const errs: Errs = [];
  const name = str(ref.name) ?? '';
  if (!name) errs.push(fieldRequired(`${path}.name`));
  else for (const m of isDns1123Subdomain(name)) errs.push(fieldInvalid(`${path}.name`, name, m));
  const group = str(ref.podGroup) ?? '';
  if (!group) errs.push(fieldRequired(`${path}.podGroup`));
  else for (const m of isDns1123Label(group)) errs.push(fieldInvalid(`${path}.podGroup`, group, m));
  const key = str(ref.podGroupReplicaKey) ?? '';
  if (key) for (const m of isDns1123Label(key)) errs.push(fieldInvalid(`${path}.podGroupReplicaKey`, key, m));
  return errs;
}
