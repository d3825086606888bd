// JobSet's validating webhook (kubernetes-sigs/jobset `vjobset.kb.io`), in process: on create, names that generate
// valid Job and pod names, the subdomain, managedBy, dependsOn order, success-policy targets, the failure policy,
// the coordinator and volume claim policies; on update, replicatedJobs and managedBy immutable (pod template labels,
// annotations, node selector, tolerations and scheduling gates may change while the JobSet is or was suspended).
// It validates what upstream's mutating webhook has defaulted: Bonsai applies those defaults to a copy first.
import type { AdmissionPlugin } from '../../admission/types.js';
import type { Client } from '../../client/client.js';
import { fieldInvalid, fieldTooLong, invalid, type FieldError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import { isDns1035Label, isDns1123Subdomain, maxLenError } from '../../machinery/names.js';
import { deepEqual, rec } from '../../registry/validation/common.js';
import { validatingWebhook } from '../validating-webhook.js';
import { coordinatorErrors, failurePolicyErrors, plain, volumeClaimPolicyErrors } from './webhook-policies.js';
import type { JobSpec } from '../../generated/k8s/batch/v1.js';
import { group, type JobSet, type JobSetSpec, type ReplicatedJob } from './types.js';

const tooLongDns = maxLenError(63);
const maxInt32 = 2 ** 31 - 1;
const httpPathRe = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;

/** The name the generated names start with: the JobSet's, or generateName plus the five characters it gets. */
function nameForValidation(js: KObject): string {
  if (js.metadata.name) return js.metadata.name;
  return js.metadata.generateName ? `${js.metadata.generateName.slice(0, 58)}xxxxx` : '';
}

/** The replicated jobs with upstream's webhook defaults: Indexed Jobs whose pods restart OnFailure. */
function defaulted(rjobs: ReplicatedJob[] | undefined): ReplicatedJob[] {
  return (rjobs ?? []).map((rj) => {
    const job: JobSpec = rj.template?.spec ?? ({} as JobSpec);
    const pod = job.template ?? {};
    return {
      ...rj,
      template: {
        ...rj.template,
        spec: { ...job, completionMode: job.completionMode ?? 'Indexed', template: { ...pod, spec: { ...pod.spec, containers: pod.spec?.containers ?? [], restartPolicy: pod.spec?.restartPolicy || 'OnFailure' } } },
      },
    };
  });
}

/** DNS-1035 errors with the too-long one replaced by the webhook's own text. */
const dns1035 = (v: string, tooLong: string) => isDns1035Label(v).map((e) => (e.includes(tooLongDns) ? tooLong : e));

function managedByErrors(manager: string): FieldError[] {
  const path = 'spec.managedBy';
  const errs: FieldError[] = [];
  const slash = manager.indexOf('/');
  const host = manager.slice(0, slash);
  const rest = manager.slice(slash + 1);
  if (!manager) errs.push({ type: 'FieldValueRequired', field: path, message: 'Required value' });
  else if (slash <= 0 || !rest) errs.push(fieldInvalid(path, manager, 'must be a domain-prefixed path (such as "acme.io/foo")'));
  else {
    for (const e of isDns1123Subdomain(host)) errs.push(fieldInvalid(path, host, e));
    if (!httpPathRe.test(rest)) errs.push(fieldInvalid(path, rest, "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"));
  }
  if (manager.length > 63) errs.push(fieldTooLong(path, manager, 63));
  return errs;
}

export function validateJobSetCreate(client: Client, obj: KObject): FieldError[] {
  const js = obj as JobSet;
  const spec: JobSetSpec = js.spec ?? {};
  const name = nameForValidation(obj);
  const errs: FieldError[] = [];
  const rjobs = defaulted(spec.replicatedJobs);
  // Bonsai has no in-place restart (upstream's alpha InPlaceRestart gate, off).
  if (spec.failurePolicy?.restartStrategy === 'InPlaceRestart') errs.push(plain('InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled'));
  if (rjobs[0]?.dependsOn) errs.push(plain("DependsOn can't be set for the first ReplicatedJob"));
  const subdomain = spec.network?.subdomain;
  if (subdomain) {
    for (const e of isDns1123Subdomain(subdomain)) errs.push(fieldInvalid('spec.network.subdomain', subdomain, e));
    for (const e of dns1035(subdomain, '.spec.network.subdomain is too long, must be less than 63 characters')) errs.push(fieldInvalid('spec.network.subdomain', subdomain, e));
  }
  if (spec.managedBy !== undefined && spec.managedBy !== null) errs.push(...managedByErrors(spec.managedBy));
  const names = new Set<string>();
  rjobs.forEach((rj, i) => {
    const path = `spec.replicatedJobs[${i}]`;
    names.add(rj.name);
    const replicas = rj.replicas ?? 1;
    const job: JobSpec = rj.template.spec ?? ({} as JobSpec);
    if ((job.parallelism ?? 1) * replicas > maxInt32) errs.push(plain(`the product of replicas and parallelism must not exceed ${maxInt32} for replicatedJob '${rj.name}'`));
    const groupName = rj.groupName ?? 'default';
    for (const e of dns1035(groupName, '.spec.replicatedJob[].groupName is too long, must be less than 63 characters')) errs.push(fieldInvalid(`${path}.groupName`, groupName, e));
    const longestJob = `${name}-${rj.name}-${replicas - 1}`;
    for (const e of dns1035(longestJob, 'JobSet name is too long, job names generated for this JobSet will exceed 63 characters')) errs.push(fieldInvalid(`${path}.name`, longestJob, e));
    if (job.completionMode === 'Indexed' && job.completions !== undefined && job.completions !== null) {
      const longestPod = `${name}-${rj.name}-${replicas - 1}-${job.completions - 1}-abcde`;
      for (const e of dns1035(longestPod, 'JobSet name is too long, pod names generated for this JobSet will exceed 63 characters')) errs.push(fieldInvalid(`${path}.name`, longestJob, e));
    }
    for (const d of rj.dependsOn ?? []) {
      if (!names.has(d.name)) errs.push(plain(`replicatedJob: ${rj.name} cannot depend on replicatedJob: ${d.name}`));
    }
  });
  for (const t of spec.successPolicy?.targetReplicatedJobs ?? []) {
    if (!names.has(t)) errs.push(plain(`invalid replicatedJob name '${t}' does not appear in .spec.ReplicatedJobs`));
  }
  errs.push(...failurePolicyErrors({ ...spec, replicatedJobs: rjobs }, names));
  errs.push(...coordinatorErrors({ ...spec, replicatedJobs: rjobs }, name));
  errs.push(...volumeClaimPolicyErrors(client, rec(spec), obj.metadata.namespace ?? '', name));
  return errs;
}

const suspended = (js: JobSet) => js.spec?.suspend === true;

export function validateJobSetUpdate(obj: KObject, oldObj: KObject): FieldError[] {
  const js = obj as JobSet;
  const old = oldObj as JobSet;
  const oldByName = new Map(defaulted(old.spec?.replicatedJobs).map((rj) => [rj.name, rj]));
  let next = defaulted(js.spec?.replicatedJobs);
  // While suspended (before or after this update) the pod template's scheduling directives may change.
  if (suspended(js) || suspended(old)) {
    next = next.map((rj) => {
      const was = oldByName.get(rj.name);
      if (!was) return rj;
      const pod = rj.template.spec?.template ?? {};
      const oldPod = was.template.spec?.template ?? {};
      const podSpec = { ...pod.spec, containers: pod.spec?.containers ?? [] };
      for (const k of ['nodeSelector', 'tolerations', 'schedulingGates'] as const) {
        if (oldPod.spec?.[k] === undefined) delete podSpec[k];
        else (podSpec as Record<string, unknown>)[k] = oldPod.spec[k];
      }
      const metadata: Record<string, unknown> = { ...pod.metadata };
      for (const k of ['labels', 'annotations'] as const) {
        if (oldPod.metadata?.[k] === undefined) delete metadata[k];
        else metadata[k] = oldPod.metadata[k];
      }
      const template = { ...pod, spec: podSpec, ...(Object.keys(metadata).length ? { metadata } : { metadata: undefined }) };
      return { ...rj, template: { ...rj.template, spec: { ...rj.template.spec, template } } };
    });
  }
  const errs: FieldError[] = [];
  const before = defaulted(old.spec?.replicatedJobs);
  if (!deepEqual(next, before)) errs.push(fieldInvalid('spec.replicatedJobs', js.spec?.replicatedJobs ?? [], 'field is immutable'));
  if (!deepEqual(js.spec?.managedBy, old.spec?.managedBy)) errs.push(fieldInvalid('spec.managedBy', js.spec?.managedBy ?? null, 'field is immutable'));
  return errs;
}

/** The admission plugin standing in for upstream's validating webhook. */
export function jobSetWebhook(client: Client): AdmissionPlugin {
  return validatingWebhook({
    name: 'vjobset.kb.io', group, plural: 'jobsets',
    validate(obj, old) {
      const errs = old ? validateJobSetUpdate(obj, old) : validateJobSetCreate(client, obj);
      return errs.length ? invalid('JobSet', group, obj.metadata.name ?? '', errs) : undefined;
    },
  });
}
