// Ephemeral containers (pods/ephemeralcontainers, `kubectl debug`): upstream's rules for the list in a pod spec,
// and for the subresource's writes, which may only add containers to it.
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotFound, fieldRequired } from '../../machinery/errors.js';
import { isRecord, type KObject } from '../../machinery/types.js';
import { arr, deepEqual, rec, str, type Errs } from './common.js';
import { isDns1123Label } from '../../machinery/names.js';

/**
 * Fields an ephemeral container may not set (upstream keeps an allow-list of EphemeralContainerCommon's fields;
 * these are the ones it leaves out, in the struct's order).
 */
const forbiddenFields = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'restartPolicyRules', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'];
const forbiddenText = 'cannot be set for an Ephemeral Container';

/** Go's zero value test for a decoded JSON field: absent, null, "", 0, false, or an empty object or list. */
function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isRecord(v) && Object.values(v).every(isZero);
}

/**
 * spec.ephemeralContainers: each a valid container (`validateCommon`), named uniquely across all the pod's containers,
 * targeting one of its regular or init containers, without the fields ephemeral containers may not have.
 */
export function validateEphemeralContainers(list: unknown, path: string, otherNames: ReadonlySet<string>, validateCommon: (c: unknown, path: string) => Errs): Errs {
  const containers = arr(list);
  if (containers.length === 0) return [];
  const errs: Errs = [];
  const allNames = new Set(otherNames);
  containers.forEach((c, i) => {
    const p = `${path}[${i}]`;
    const ec = rec(c);
    const name = str(ec.name) ?? '';
    if (!name) errs.push(fieldRequired(`${p}.name`));
    else for (const m of isDns1123Label(name)) errs.push(fieldInvalid(`${p}.name`, name, m));
    errs.push(...validateCommon(c, p));
    if (name && allNames.has(name)) errs.push(fieldDuplicate(`${p}.name`, name));
    else allNames.add(name);
    const target = str(ec.targetContainerName);
    if (target && !otherNames.has(target)) errs.push(fieldNotFound(`${p}.targetContainerName`, target));
    for (const f of forbiddenFields) if (!isZero(ec[f])) errs.push(fieldForbidden(`${p}.${f}`, forbiddenText));
    arr(ec.volumeMounts).forEach((vm, j) => {
      for (const f of ['subPath', 'subPathExpr']) if (str(rec(vm)[f])) errs.push(fieldForbidden(`${p}.volumeMounts[${j}].${f}`, forbiddenText));
    });
  });
  return errs;
}

/** A pods/ephemeralcontainers write takes only spec.ephemeralContainers from the request; everything else stays. */
export function withEphemeralContainers(current: KObject, request: KObject): KObject {
  const result = structuredClone(current);
  const spec = rec(result.spec);
  const wanted = rec(request.spec).ephemeralContainers;
  if (wanted === undefined || wanted === null) delete spec.ephemeralContainers;
  else spec.ephemeralContainers = structuredClone(wanted);
  result.spec = spec;
  return result;
}

const mirrorPodAnnotation = 'kubernetes.io/config.mirror';

/** ValidatePodEphemeralContainersUpdate: existing ephemeral containers stay as they are; only additions. */
export function validateEphemeralContainersUpdate(pod: KObject, old: KObject, validateSpec: (spec: unknown, path: string) => Errs): Errs {
  if (str(rec(old.metadata.annotations)[mirrorPodAnnotation]) !== undefined) return [fieldForbidden('', 'static pods do not support ephemeral containers')];
  const errs = validateSpec(pod.spec, 'spec');
  const path = 'spec.ephemeralContainers';
  const byName = new Map(arr(rec(pod.spec).ephemeralContainers).map((c) => [str(rec(c).name) ?? '', c]));
  for (const before of arr(rec(old.spec).ephemeralContainers)) {
    const name = str(rec(before).name) ?? '';
    const now = byName.get(name);
    if (now === undefined) errs.push(fieldNotFound(path, name));
    else if (!deepEqual(now, before)) errs.push(fieldForbidden(`${path}[${name}]`, `existing ephemeral containers "${name}" may not be changed`));
  }
  return errs;
}
