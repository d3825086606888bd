// The Jobs a JobSet owns: their names (`<jobset>-<replicatedJob>-<index>`), the labels and annotations stamped on each
// Job and its pod template, and the Job built from a replicated job's template for one index.
import { gangRef, gangSize } from './gang.js';
import { createHash } from 'node:crypto';
import type { Job, JobSpec } from '../../generated/k8s/batch/v1.js';
import type { EffectiveSpec } from './defaults.js';
import { subdomainOf } from './defaults.js';
import { apiVersion, labels as L, type JobSet, type ReplicatedJob } from './types.js';

/** Upstream's individual restart label (the RestartJob actions), stamped like restart-attempt. */
export const jobRestartAttemptKey = 'jobset.sigs.k8s.io/job-restart-attempt';

export const jobName = (jobSet: string, rjob: string, index: number): string => `${jobSet}-${rjob}-${index}`;

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

function sumReplicas(rjobs: ReplicatedJob[], pick: (rj: ReplicatedJob) => boolean): number {
  let n = 0;
  for (const rj of rjobs) if (pick(rj)) n += rj.replicas ?? 1;
  return n;
}

/** The index of a Job among all the JobSet's Jobs (replicated jobs in spec order), or '' for an unknown rjob. */
export function globalJobIndex(spec: EffectiveSpec, rjob: string, index: number): string {
  let before = 0;
  for (const rj of spec.replicatedJobs) {
    if (rj.name === rjob) return String(before + index);
    before += rj.replicas ?? 1;
  }
  return '';
}

function groupJobIndex(spec: EffectiveSpec, group: string, rjob: string, index: number): string {
  let before = 0;
  for (const rj of spec.replicatedJobs) {
    if (rj.groupName !== group) continue;
    if (rj.name === rjob) return String(before + index);
    before += rj.replicas ?? 1;
  }
  return '';
}

/** `<jobset>-<rjob>-<jobIndex>-<podIndex>.<subdomain>`: where the coordinator pod answers. */
export function coordinatorEndpoint(js: JobSet, spec: EffectiveSpec): string | undefined {
  const c = spec.coordinator;
  if (!c) return undefined;
  return `${js.metadata.name}-${c.replicatedJob}-${c.jobIndex ?? 0}-${c.podIndex ?? 0}.${subdomainOf(js, spec)}`;
}

/** The JobSet keys of one Job (as labels and, the same, as annotations). */
export function jobSetKeys(js: JobSet, spec: EffectiveSpec, rj: ReplicatedJob, index: number, jobRestarts: number): Record<string, string> {
  const name = js.metadata.name ?? '';
  const ns = js.metadata.namespace ?? '';
  const group = rj.groupName ?? 'default';
  const keys: Record<string, string> = {
    [L.jobSetName]: name,
    [L.jobSetUid]: js.metadata.uid ?? '',
    [L.replicatedJobName]: rj.name,
    [L.restartAttempt]: String(js.status?.restarts ?? 0),
    [jobRestartAttemptKey]: String(jobRestarts),
    [L.replicatedJobReplicas]: String(rj.replicas ?? 1),
    [L.globalReplicas]: String(sumReplicas(spec.replicatedJobs, () => true)),
    [L.jobIndex]: String(index),
    [L.jobKey]: sha1(`${ns}/${jobName(name, rj.name, index)}`),
    [L.jobGlobalIndex]: globalJobIndex(spec, rj.name, index),
    [L.groupName]: group,
    [L.groupReplicas]: String(sumReplicas(spec.replicatedJobs, (r) => r.groupName === group)),
    [L.jobGroupIndex]: groupJobIndex(spec, group, rj.name, index),
  };
  const coordinator = coordinatorEndpoint(js, spec);
  if (coordinator !== undefined) keys[L.coordinator] = coordinator;
  return keys;
}

/** Exclusive-placement annotations, from the JobSet and then (winning) the replicated job's template. */
function placementAnnotations(js: JobSet, rj: ReplicatedJob): Record<string, string> {
  const out: Record<string, string> = {};
  for (const from of [js.metadata.annotations, rj.template.metadata?.annotations]) {
    const topology = from && Object.hasOwn(from, L.exclusiveTopology) ? from[L.exclusiveTopology] : undefined;
    if (topology === undefined) continue;
    out[L.exclusiveTopology] = topology;
    if (Object.hasOwn(from!, L.nodeSelectorStrategy)) out[L.nodeSelectorStrategy] = from![L.nodeSelectorStrategy];
  }
  return out;
}

/** The Job for index `index` of replicated job `rj`, owned by the JobSet. */
export function buildJob(js: JobSet, spec: EffectiveSpec, rj: ReplicatedJob, index: number, jobRestarts: number): Job {
  const name = jobName(js.metadata.name ?? '', rj.name, index);
  const keys = jobSetKeys(js, spec, rj, index, jobRestarts);
  const annotations = { ...keys, ...placementAnnotations(js, rj) };
  // A deep copy: the template belongs to the stored JobSet, shared and never to be mutated.
  const jobSpec: JobSpec = structuredClone(rj.template.spec ?? { template: {} });
  jobSpec.completionMode ??= 'Indexed';
  const template = (jobSpec.template ??= {});
  const podSpec = (template.spec ??= { containers: [] });
  podSpec.restartPolicy ||= 'OnFailure';
  template.metadata = {
    ...template.metadata,
    labels: { ...template.metadata?.labels, ...keys },
    annotations: { ...template.metadata?.annotations, ...annotations },
  };
  if (spec.network.enableDNSHostnames) podSpec.subdomain = subdomainOf(js, spec);
  if (gangSize(spec) !== undefined) (podSpec as typeof podSpec & { workloadRef?: unknown }).workloadRef = gangRef(js);
  if (annotations[L.exclusiveTopology] !== undefined && annotations[L.nodeSelectorStrategy] !== undefined) {
    podSpec.nodeSelector = { ...podSpec.nodeSelector, [L.namespacedJob]: `${js.metadata.namespace}_${name}` };
    podSpec.tolerations = [...(podSpec.tolerations ?? []), { key: L.noScheduleTaint, operator: 'Exists', effect: 'NoSchedule' }];
  }
  jobSpec.suspend = !!spec.suspend;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      namespace: js.metadata.namespace,
      labels: { ...rj.template.metadata?.labels, ...keys },
      annotations: { ...rj.template.metadata?.annotations, ...annotations },
      ownerReferences: [{ apiVersion, kind: 'JobSet', name: js.metadata.name ?? '', uid: js.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec: jobSpec,
  };
}
