// batch/v1 validation: Job and CronJob (batch/validation, trimmed).
import { fieldInvalid, fieldNotSupported, fieldRequired } from '../../machinery/errors.js';
import { isRecord, type KObject } from '../../machinery/types.js';
import { jobLabels } from '../defaults/batch.js';
import {
  deepEqual, immutable, rec, selectorMatches, selectorValue, sortedMap, str, validateAnnotations, validateLabels,
  validateLabelSelector, validateNonNegative, type Errs,
} from './common.js';
import { cronError } from '../../machinery/cron.js';
import { validatePodTemplate } from './pod.js';
import { validatePodFailurePolicy, validatePodReplacementPolicy } from './pod-failure-policy.js';

function validateJobSpec(specIn: unknown, path: string, isJob: boolean): Errs {
  const errs: Errs = [];
  const spec = rec(specIn);
  for (const f of ['parallelism', 'completions', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes']) {
    errs.push(...validateNonNegative(spec[f], `${path}.${f}`));
  }
  if (typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds <= 0) {
    errs.push(fieldInvalid(`${path}.activeDeadlineSeconds`, spec.activeDeadlineSeconds, 'must be greater than 0'));
  }
  const modes = ['NonIndexed', 'Indexed'];
  const mode = spec.completionMode;
  if (mode !== undefined && !modes.includes(mode as string)) errs.push(fieldNotSupported(`${path}.completionMode`, mode, modes));
  if (mode === 'Indexed' && (spec.completions === undefined || spec.completions === null)) {
    errs.push(fieldRequired(`${path}.completions`, 'when completion mode is Indexed'));
  }
  const sel = spec.selector;
  if (isRecord(sel)) errs.push(...validateLabelSelector(sel, `${path}.selector`));
  else if (isJob) errs.push(fieldRequired(`${path}.selector`));
  const template = rec(spec.template);
  const labels = rec(template.metadata).labels as Record<string, string> | undefined;
  if (isRecord(sel) && !selectorMatches(sel, labels)) {
    errs.push(fieldInvalid(`${path}.template.metadata.labels`, sortedMap(labels), '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodFailurePolicy(spec, path), ...validatePodReplacementPolicy(spec, path));
  errs.push(...validatePodTemplate(spec.template, `${path}.template`));
  const rp = rec(template.spec).restartPolicy;
  const rpPath = `${path}.template.spec.restartPolicy`;
  if (rp === 'Always' || rp === undefined || rp === '') errs.push(fieldRequired(rpPath, 'valid values: "OnFailure", "Never"'));
  else if (rp !== 'OnFailure' && rp !== 'Never') errs.push(fieldNotSupported(rpPath, rp, ['OnFailure', 'Never']));
  else if (isRecord(spec.podFailurePolicy) && rp !== 'Never') errs.push(fieldInvalid(rpPath, rp, 'only "Never" is supported when podFailurePolicy is specified'));
  return errs;
}

function validateGeneratedSelector(obj: KObject): Errs {
  const spec = rec(obj.spec);
  if (spec.manualSelector === true || !isRecord(spec.selector)) return [];
  const uid = str(obj.metadata?.uid) ?? '';
  if (!uid) return [fieldRequired('metadata.uid')];
  const labels = rec(rec(rec(spec.template).metadata).labels);
  const errs: Errs = [];
  for (const k of [jobLabels.controllerUid, jobLabels.legacyControllerUid]) {
    if (k in labels && labels[k] !== uid) {
      errs.push(fieldInvalid('spec.template.metadata.labels', sortedMap(labels), `must be '${k}=${uid}'`));
    }
  }
  if (!selectorMatches(spec.selector, { [jobLabels.controllerUid]: uid, [jobLabels.legacyControllerUid]: uid })) {
    errs.push(fieldInvalid('spec.selector', selectorValue(spec.selector), '`selector` not auto-generated'));
  }
  return errs;
}

export function validateJob(obj: KObject, old: KObject | undefined): Errs {
  const errs = validateJobSpec(obj.spec, 'spec', true);
  if (!old) return [...errs, ...validateGeneratedSelector(obj)];
  const spec = rec(obj.spec);
  const prev = rec(old.spec);
  if (!deepEqual(spec.selector, prev.selector)) errs.push(fieldInvalid('spec.selector', selectorValue(spec.selector) ?? null, immutable));
  if (!deepEqual(spec.completionMode, prev.completionMode)) errs.push(fieldInvalid('spec.completionMode', spec.completionMode ?? null, immutable));
  if (!deepEqual(spec.podFailurePolicy, prev.podFailurePolicy)) errs.push(fieldInvalid('spec.podFailurePolicy', spec.podFailurePolicy ?? null, immutable));
  const elastic = spec.completionMode === 'Indexed' && spec.completions === spec.parallelism && prev.completions === prev.parallelism;
  if (!elastic && !deepEqual(spec.completions, prev.completions)) errs.push(fieldInvalid('spec.completions', spec.completions ?? null, immutable));
  // A suspended Job's template may change (upstream limits this to scheduling directives); otherwise it is fixed.
  if (prev.suspend !== true && !deepEqual(spec.template, prev.template)) errs.push(fieldInvalid('spec.template', spec.template ?? null, immutable));
  return errs;
}

function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export function validateCronJob(obj: KObject): Errs {
  const errs: Errs = [];
  const spec = rec(obj.spec);
  const schedule = str(spec.schedule) ?? '';
  if (!schedule) errs.push(fieldRequired('spec.schedule'));
  else if (schedule.includes('TZ')) errs.push(fieldInvalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  else {
    const err = cronError(schedule);
    if (err) errs.push(fieldInvalid('spec.schedule', schedule, err));
  }
  const tz = spec.timeZone;
  if (typeof tz === 'string' && (tz === '' || !validTimeZone(tz) || tz.toLowerCase() === 'local')) {
    errs.push(fieldInvalid('spec.timeZone', tz, tz === '' ? 'unknown time zone ' : `unknown time zone ${tz}`));
  }
  const policies = ['Allow', 'Forbid', 'Replace'];
  const cp = spec.concurrencyPolicy;
  if (!cp) errs.push(fieldRequired('spec.concurrencyPolicy', 'valid values: "Allow", "Forbid", "Replace"'));
  else if (!policies.includes(cp as string)) errs.push(fieldNotSupported('spec.concurrencyPolicy', cp, policies));
  for (const f of ['startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit']) {
    errs.push(...validateNonNegative(spec[f], `spec.${f}`));
  }
  const jt = rec(spec.jobTemplate);
  const meta = rec(jt.metadata);
  errs.push(...validateLabels(meta.labels, 'spec.jobTemplate.metadata.labels'));
  errs.push(...validateAnnotations(meta.annotations, 'spec.jobTemplate.metadata.annotations'));
  errs.push(...validateJobSpec(jt.spec, 'spec.jobTemplate.spec', false));
  return errs;
}
