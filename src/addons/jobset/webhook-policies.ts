// The parts of JobSet's validating webhook that check policies: failure-policy rules (names, targets, reasons), the
// coordinator and volume claim policies. Each returns upstream's errors: plain texts (which the webhook reports as
// field-less internal errors) or field errors.
import { fieldInternal, fieldInvalid, type FieldError } from '../../machinery/errors.js';
import type { Client } from '../../client/client.js';
import { isDns1123Subdomain, isLabelValue } from '../../machinery/names.js';
import { arr, deepEqual, rec, str } from '../../registry/validation/common.js';
import { ruleNameFmt } from '../../registry/validation/pod-failure-policy.js';
import type { JobSetSpec } from './types.js';

/** A plain error of the webhook (fmt.Errorf upstream): a field-less internal error in the 422. */
export const plain = (text: string): FieldError => fieldInternal(undefined, text);

const ruleNameRe = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const maxRuleNameLength = 128;
const maxReplicasForRestartJob = 1024;
// Bonsai's Jobs name the pod failure policy rule that failed them (KEP-4443, `PodFailurePolicy_<rule>`), the pairing
// the JobSet failure-policy KEP describes: such reasons are recognized too.
const namedRuleReason = new RegExp(`^PodFailurePolicy_${ruleNameFmt}$`);
const knownJobFailureReasons = ['BackoffLimitExceeded', 'DeadlineExceeded', 'FailedIndexes', 'MaxFailedIndexesExceeded', 'PodFailurePolicy'];

export function failurePolicyErrors(spec: JobSetSpec, rjobNames: Set<string>): FieldError[] {
  const policy = spec.failurePolicy;
  if (!policy) return [];
  const errs: FieldError[] = [];
  const rules = policy.rules ?? [];
  // Bonsai runs RestartJob (upstream's alpha RestartJob gate, on here): only its replicas bound applies.
  if (rules.some((r) => r.action === 'RestartJob' || r.action === 'RestartJobAndIgnoreMaxRestarts')
    && (spec.replicatedJobs ?? []).some((rj) => (rj.replicas ?? 1) > maxReplicasForRestartJob)) {
    errs.push(plain(`JobSet cannot have a failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts action and a replicated job with replicas > ${maxReplicasForRestartJob}`));
  }
  const byName = new Map<string, number[]>();
  rules.forEach((rule, i) => {
    const name = typeof rule.name === 'string' ? rule.name : '';
    const length = Buffer.byteLength(name);
    if (length < 1 || length > maxRuleNameLength) {
      errs.push(plain(`invalid failure policy rule name of length ${length}, the rule name must be at least 1 characters long and at most ${maxRuleNameLength} characters long`));
    }
    byName.set(name, [...(byName.get(name) ?? []), i]);
    if (!ruleNameRe.test(name)) {
      errs.push(plain(`invalid failure policy rule name '${name}', a failure policy rule name must start with an alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'`));
    }
    for (const t of rule.targetReplicatedJobs ?? []) {
      if (!rjobNames.has(t)) errs.push(plain(`invalid replicatedJob name '${t}' in failure policy does not appear in .spec.ReplicatedJobs`));
    }
    for (const r of rule.onJobFailureReasons ?? []) {
      if (!knownJobFailureReasons.includes(r) && !namedRuleReason.test(r)) errs.push(plain(`invalid job failure reason '${r}' in failure policy is not a recognized job failure reason`));
    }
  });
  // Upstream walks a Go map here: the order of several duplicate names is unspecified; Bonsai keeps first-seen order.
  for (const [name, indices] of byName) {
    if (indices.length > 1) errs.push(plain(`rule names are not unique, rules with indices [${indices.join(' ')}] all have the same name '${name}'`));
  }
  return errs;
}

export function coordinatorErrors(spec: JobSetSpec, jobSetName: string): FieldError[] {
  const c = spec.coordinator;
  if (!c) return [];
  const errs: FieldError[] = [];
  const jobIndex = c.jobIndex ?? 0;
  const podIndex = c.podIndex ?? 0;
  const rj = (spec.replicatedJobs ?? []).find((r) => r.name === c.replicatedJob);
  if (!rj) errs.push(plain(`coordinator replicatedJob ${c.replicatedJob} does not exist`));
  else if (jobIndex < 0 || jobIndex >= (rj.replicas ?? 1)) errs.push(plain(`coordinator job index ${jobIndex} is invalid for replicatedJob ${rj.name}`));
  else {
    const job = rj.template?.spec;
    const completions = job?.completions;
    if ((job?.completionMode ?? 'Indexed') !== 'Indexed' || completions === undefined || completions === null) {
      errs.push(plain('job for coordinator pod must be indexed completion mode, and completions number must be set'));
    } else if (podIndex < 0 || podIndex >= completions) {
      errs.push(plain(`coordinator pod index ${podIndex} is invalid for replicatedJob ${c.replicatedJob} job index ${jobIndex}`));
    }
  }
  const subdomain = spec.network?.subdomain || jobSetName;
  const endpoint = `${jobSetName}-${c.replicatedJob}-${jobIndex}-${podIndex}.${subdomain}`;
  const labelErrs = isLabelValue(endpoint);
  if (labelErrs.length) {
    errs.push(plain(`spec will lead to invalid label value ${JSON.stringify(endpoint)} for coordinator label "jobset.sigs.k8s.io/coordinator" (long JobSet / ReplicatedJob / SubDomain name?): ${labelErrs.join(', ')}`));
  }
  return errs;
}

const mounts = (podSpec: Record<string, unknown>, name: string) =>
  [...arr(podSpec.initContainers), ...arr(podSpec.containers)].some((c) => arr(rec(c).volumeMounts).some((m) => rec(m).name === name));

/** volumeClaimPolicies: template names unique, valid and short enough, mounted somewhere, and matching an existing PVC. */
export function volumeClaimPolicyErrors(client: Client, spec: Record<string, unknown>, namespace: string, jobSetName: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  const rjobs = arr(spec.replicatedJobs);
  arr(spec.volumeClaimPolicies).forEach((p, pi) => {
    const policy = rec(p);
    const path = `spec.volumeClaimPolicies[${pi}]`;
    arr(policy.templates).forEach((t, ti) => {
      const template = rec(t);
      const tpath = `${path}.template[${ti}]`;
      const name = str(rec(template.metadata).name) ?? '';
      if (seen.has(name)) errs.push(fieldInvalid(`${tpath}.name`, name, 'names must be unique for VolumeClaimPolicies template'));
      for (const e of isDns1123Subdomain(name)) errs.push(fieldInvalid(`${tpath}.name`, name, e));
      const pvcName = `${name}-${jobSetName}`;
      if (pvcName.length > 63) errs.push(fieldInvalid(`${tpath}.name`, name, 'VolumeClaimPolicies template name is too long'));
      let mounted = false;
      rjobs.forEach((rj, ri) => {
        const podSpec = rec(rec(rec(rec(rec(rj).template).spec).template).spec);
        arr(podSpec.volumes).forEach((v, vi) => {
          if (rec(v).name === name) {
            errs.push(fieldInvalid(`spec.replicatedJobs[${ri}].template.spec.template.spec.volumes[${vi}].name`, name, `volume name conflicts with VolumeClaimPolicy template name: ${name}`));
          }
        });
        mounted ||= mounts(podSpec, name);
      });
      if (!mounted) errs.push(fieldInvalid('spec.replicatedJobs', rjobs, `replicatedJob containers don't have a matching volumeMount: ${name} from VolumeClaimPolicies`));
      const existing = client.get('v1/persistentvolumeclaims', namespace, pvcName);
      if (existing) {
        if (!deepEqual(existing.spec, template.spec)) {
          errs.push(fieldInvalid(`${tpath}.spec`, template.spec ?? {}, `spec does not match existing PVC ${pvcName} in namespace ${namespace}`));
        }
        const whenDeleted = rec(policy.retentionPolicy).whenDeleted ?? 'Delete';
        if (whenDeleted !== 'Retain') {
          errs.push(fieldInvalid(`${path}.retentionPolicy.whenDeleted`, whenDeleted, 'retentionPolicy must be retain when PVC exists'));
        }
      }
      seen.add(name);
    });
  });
  return errs;
}
