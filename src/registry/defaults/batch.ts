// batch/v1 defaulting: Job, CronJob, and the selector a Job gets once it has a uid.
import { hasOwn } from '../../util/own.js';
import type { CronJob, Job } from '../../generated/k8s/batch/v1.js';
import { defaultPodTemplate, isEmpty, present } from './pod.js';

const unset = (v: unknown) => v === undefined || v === null;

export function defaultJob(job: Job): void {
  const spec = present(job.spec) ? job.spec : (job.spec = {} as NonNullable<Job['spec']>);
  if (unset(spec.completions) && unset(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  if (unset(spec.parallelism)) spec.parallelism = 1;
  if (unset(spec.backoffLimit)) spec.backoffLimit = unset(spec.backoffLimitPerIndex) ? 6 : 2147483647;
  const templateLabels = spec.template?.metadata?.labels;
  const meta = (job.metadata ??= {});
  if (present(templateLabels) && isEmpty(meta.labels)) {
    meta.labels = { ...templateLabels };
  }
  if (!spec.completionMode) spec.completionMode = 'NonIndexed';
  if (unset(spec.suspend)) spec.suspend = false;
  if (!spec.podReplacementPolicy) spec.podReplacementPolicy = present(spec.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed';
  defaultPodConditionPatterns(spec);
  defaultPodTemplate(spec.template);
}

/** Upstream SetDefaults_PodFailurePolicyOnPodConditionsPattern: a pattern's status defaults to True (Jobs and CronJob templates). */
function defaultPodConditionPatterns(spec: NonNullable<Job['spec']>): void {
  for (const rule of spec.podFailurePolicy?.rules ?? []) for (const p of rule?.onPodConditions ?? []) if (present(p) && unset(p.status)) p.status = 'True';
}

export function defaultCronJob(cj: CronJob): void {
  const spec = present(cj.spec) ? cj.spec : (cj.spec = {} as NonNullable<CronJob['spec']>);
  if (!spec.concurrencyPolicy) spec.concurrencyPolicy = 'Allow';
  if (unset(spec.suspend)) spec.suspend = false;
  if (unset(spec.successfulJobsHistoryLimit)) spec.successfulJobsHistoryLimit = 3;
  if (unset(spec.failedJobsHistoryLimit)) spec.failedJobsHistoryLimit = 1;
  // Upstream defaults only the pod template inside jobTemplate, not the job spec itself.
  if (present(spec.jobTemplate) && present(spec.jobTemplate.spec)) {
    defaultPodConditionPatterns(spec.jobTemplate.spec);
    defaultPodTemplate(spec.jobTemplate.spec.template);
  }
}

export const jobLabels = {
  controllerUid: 'batch.kubernetes.io/controller-uid',
  legacyControllerUid: 'controller-uid',
  jobName: 'batch.kubernetes.io/job-name',
  legacyJobName: 'job-name',
} as const;

/**
 * Generates a Job's selector and pod template labels from its uid and name, as upstream's job strategy does on
 * create unless `spec.manualSelector` is true. Call after uid and name are set. Labels the user already set are
 * kept (validation then reports a mismatch).
 */
export function defaultJobSelector(job: Job): void {
  const spec = job.spec;
  if (!present(spec) || spec.manualSelector === true) return;
  const uid = job.metadata?.uid ?? '';
  const name = job.metadata?.name ?? '';
  const template = present(spec.template) ? spec.template : (spec.template = {});
  const meta = present(template.metadata) ? template.metadata : (template.metadata = {});
  const labels = present(meta.labels) ? meta.labels : (meta.labels = {});
  for (const k of [jobLabels.legacyJobName, jobLabels.jobName]) if (!hasOwn(labels, k)) labels[k] = name;
  for (const k of [jobLabels.legacyControllerUid, jobLabels.controllerUid]) if (!hasOwn(labels, k)) labels[k] = uid;
  const selector = present(spec.selector) ? spec.selector : (spec.selector = {});
  const matchLabels = present(selector.matchLabels) ? selector.matchLabels : (selector.matchLabels = {});
  if (!(jobLabels.controllerUid in matchLabels)) matchLabels[jobLabels.controllerUid] = uid;
  // Upstream copies the template labels to the job when it is read back with no labels of its own.
  const jobMeta = (job.metadata ??= {});
  if (isEmpty(jobMeta.labels)) jobMeta.labels = { ...labels };
}
