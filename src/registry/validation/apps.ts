// apps/v1 validation: Deployment, ReplicaSet, StatefulSet, DaemonSet (apps/validation, trimmed).
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from '../../machinery/errors.js';
import { isRecord, type KObject } from '../../machinery/types.js';
import {
  deepEqual, immutable, rec, selectorIsEmpty, selectorMatches, selectorValue, sortedMap, validateLabelSelector,
  validateNonNegative, type Errs,
} from './common.js';
import { isValidPercent } from '../../machinery/names.js';
import { validatePodTemplate } from './pod.js';
import { validatePvcSpec } from './core.js';

/** Selector presence, non-emptiness and its match with the template's labels, then the template itself. */
function validateSelectorAndTemplate(spec: Record<string, unknown>, what: string): Errs {
  const errs: Errs = [];
  const sel = spec.selector;
  if (!isRecord(sel)) errs.push(fieldRequired('spec.selector'));
  else {
    errs.push(...validateLabelSelector(sel, 'spec.selector'));
    if (selectorIsEmpty(sel)) errs.push(fieldInvalid('spec.selector', selectorValue(sel), `empty selector is invalid for ${what}`));
  }
  const template = spec.template;
  if (!isRecord(template)) return [...errs, fieldRequired('spec.template')];
  const labels = rec(template.metadata).labels as Record<string, string> | undefined;
  if (isRecord(sel) && !selectorIsEmpty(sel) && !selectorMatches(sel, labels)) {
    errs.push(fieldInvalid('spec.template.metadata.labels', sortedMap(labels), '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodTemplate(template, 'spec.template'));
  const podSpec = rec(template.spec);
  if (podSpec.restartPolicy !== undefined && podSpec.restartPolicy !== 'Always') {
    errs.push(fieldNotSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy, ['Always']));
  }
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    errs.push(fieldForbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicaSet is not Supported'));
  }
  return errs;
}

/** An int ≥ 0 or a percentage string, as in maxSurge and maxUnavailable. */
function validateIntOrPercent(v: unknown, path: string): Errs {
  if (typeof v === 'number') return validateNonNegative(v, path);
  if (typeof v === 'string') {
    const msgs = isValidPercent(v);
    if (msgs.length) return msgs.map((m) => fieldInvalid(path, v, m));
    if (parseInt(v, 10) > 100) return [fieldInvalid(path, v, 'must not be greater than 100%')];
  }
  return [];
}
const isZero = (v: unknown) => v === 0 || v === '0%' || v === undefined || v === null;

function validateRollingUpdate(ru: unknown, path: string): Errs {
  if (!isRecord(ru)) return [];
  const errs = [...validateIntOrPercent(ru.maxUnavailable, `${path}.maxUnavailable`), ...validateIntOrPercent(ru.maxSurge, `${path}.maxSurge`)];
  if (isZero(ru.maxUnavailable) && isZero(ru.maxSurge)) {
    errs.push(fieldInvalid(`${path}.maxUnavailable`, ru.maxUnavailable ?? 0, 'may not be 0 when `maxSurge` is 0'));
  }
  return errs;
}

export function validateDeployment(obj: KObject, old: KObject | undefined): Errs {
  const spec = rec(obj.spec);
  const errs: Errs = [...validateNonNegative(spec.replicas, 'spec.replicas'), ...validateSelectorAndTemplate(spec, 'deployment')];
  const strategy = rec(spec.strategy);
  const types = ['Recreate', 'RollingUpdate'];
  if (!strategy.type) errs.push(fieldRequired('spec.strategy.type'));
  else if (!types.includes(strategy.type as string)) errs.push(fieldNotSupported('spec.strategy.type', strategy.type, types));
  if (strategy.type === 'Recreate' && isRecord(strategy.rollingUpdate)) {
    errs.push(fieldForbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
  }
  if (strategy.type === 'RollingUpdate') errs.push(...validateRollingUpdate(strategy.rollingUpdate, 'spec.strategy.rollingUpdate'));
  errs.push(...validateNonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  errs.push(...validateNonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  errs.push(...validateNonNegative(spec.progressDeadlineSeconds, 'spec.progressDeadlineSeconds'));
  const pds = spec.progressDeadlineSeconds;
  if (typeof pds === 'number' && pds <= ((spec.minReadySeconds as number | undefined) ?? 0)) {
    errs.push(fieldInvalid('spec.progressDeadlineSeconds', pds, 'must be greater than minReadySeconds'));
  }
  if (old) errs.push(...selectorImmutable(obj, old));
  return errs;
}

function selectorImmutable(obj: KObject, old: KObject): Errs {
  const sel = rec(obj.spec).selector;
  return deepEqual(sel, rec(old.spec).selector) ? [] : [fieldInvalid('spec.selector', selectorValue(sel) ?? null, immutable)];
}

export function validateReplicaSet(obj: KObject, old: KObject | undefined): Errs {
  const spec = rec(obj.spec);
  const errs: Errs = [
    ...validateNonNegative(spec.replicas, 'spec.replicas'),
    ...validateNonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...validateSelectorAndTemplate(spec, 'deployment'),
  ];
  if (old) errs.push(...selectorImmutable(obj, old));
  return errs;
}

export function validateDaemonSet(obj: KObject, old: KObject | undefined): Errs {
  const spec = rec(obj.spec);
  const errs: Errs = [...validateSelectorAndTemplate(spec, 'daemonset')];
  const us = rec(spec.updateStrategy);
  const types = ['OnDelete', 'RollingUpdate'];
  if (!us.type) errs.push(fieldRequired('spec.updateStrategy.type'));
  else if (!types.includes(us.type as string)) errs.push(fieldNotSupported('spec.updateStrategy.type', us.type, types));
  if (us.type === 'RollingUpdate') errs.push(...validateRollingUpdate(us.rollingUpdate, 'spec.updateStrategy.rollingUpdate'));
  errs.push(...validateNonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  errs.push(...validateNonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  if (old) errs.push(...selectorImmutable(obj, old));
  return errs;
}

function withClaimVolumes(spec: Record<string, unknown>): Record<string, unknown> {
  const claims = Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates.map((t) => String(rec(rec(t).metadata).name ?? '')) : [];
  const template = rec(spec.template);
  if (!claims.length || !isRecord(spec.template) || !isRecord(template.spec)) return spec;
  const podSpec = rec(template.spec);
  const volumes = Array.isArray(podSpec.volumes) ? podSpec.volumes : [];
  const names = new Set(volumes.map((v) => rec(v).name));
  const extra = claims.filter((n) => n && !names.has(n)).map((name) => ({ name, persistentVolumeClaim: { claimName: name } }));
  return { ...spec, template: { ...template, spec: { ...podSpec, volumes: [...volumes, ...extra] } } };
}

const stsMutable = ['replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

export function validateStatefulSet(obj: KObject, old: KObject | undefined): Errs {
  const spec = rec(obj.spec);
  const errs: Errs = [];
  const policies = ['OrderedReady', 'Parallel'];
  if (!spec.podManagementPolicy) errs.push(fieldRequired('spec.podManagementPolicy', `valid values: "OrderedReady", "Parallel"`));
  else if (!policies.includes(spec.podManagementPolicy as string)) errs.push(fieldNotSupported('spec.podManagementPolicy', spec.podManagementPolicy, policies));
  const us = rec(spec.updateStrategy);
  const types = ['OnDelete', 'RollingUpdate'];
  if (!us.type) errs.push(fieldRequired('spec.updateStrategy', `valid values: "OnDelete", "RollingUpdate"`));
  else if (!types.includes(us.type as string)) errs.push(fieldNotSupported('spec.updateStrategy.type', us.type, types));
  if (us.type === 'OnDelete' && isRecord(us.rollingUpdate)) {
    errs.push(fieldInvalid('spec.updateStrategy.rollingUpdate', us.rollingUpdate, 'only allowed for updateStrategy \'RollingUpdate\''));
  }
  if (us.type === 'RollingUpdate') errs.push(...validateNonNegative(rec(us.rollingUpdate).partition, 'spec.updateStrategy.rollingUpdate.partition'));
  const retention = rec(spec.persistentVolumeClaimRetentionPolicy);
  for (const f of ['whenDeleted', 'whenScaled']) {
    const v = retention[f];
    if (v !== undefined && v !== 'Retain' && v !== 'Delete') errs.push(fieldNotSupported(`spec.persistentVolumeClaimRetentionPolicy.${f}`, v, ['Retain', 'Delete']));
  }
  errs.push(...validateNonNegative(spec.replicas, 'spec.replicas'));
  errs.push(...validateNonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  // Containers may mount the volumeClaimTemplates by name: validate the template as if those volumes were declared.
  errs.push(...validateSelectorAndTemplate(withClaimVolumes(spec), 'statefulset'));
  if (old) {
    const strip = (s: unknown) => Object.fromEntries(Object.entries(rec(s)).filter(([k]) => !stsMutable.includes(k)));
    if (!deepEqual(strip(obj.spec), strip(old.spec))) {
      errs.push(fieldForbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
    }
  } else {
    errs.push(...claimTemplateErrors(spec.volumeClaimTemplates));
  }
  return errs;
}

/** On create, each volume claim template's spec follows the PVC spec rules (path `spec.volumeClaimTemplates[i].spec`). */
function claimTemplateErrors(templates: unknown): Errs {
  return Array.isArray(templates) ? templates.flatMap((t, i) => validatePvcSpec(rec(t).spec, `spec.volumeClaimTemplates[${i}].spec`)) : [];
}
