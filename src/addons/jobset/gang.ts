// Gang scheduling for JobSets (a Bonsai default; upstream JobSets rely on Kueue or exclusive placement): every pod of
// one attempt of the set is one gang, through a Workload named after the set, the restart attempt as replica key.
// Only when all pods start together: AnyOrder startup, no dependsOn, no Job running more pods than its parallelism
// at once, and no template that names a Workload itself — otherwise a gang could wait for pods that come later.
import type { JobSpec } from '../../generated/k8s/batch/v1.js';
import type { Client } from '../../client/client.js';
import type { KObject } from '../../machinery/types.js';
import type { EffectiveSpec } from './defaults.js';
import type { JobSet } from './types.js';

export const workloadRes = 'scheduling.k8s.io/v1alpha1/workloads';
export const gangGroup = 'jobset';

/** The number of pods one attempt runs at once when they can form a gang; undefined when they cannot (or are one). */
export function gangSize(spec: EffectiveSpec): number | undefined {
  if (spec.startupPolicy.startupPolicyOrder === 'InOrder' || spec.suspend) return undefined;
  let total = 0;
  for (const rj of spec.replicatedJobs) {
    const job: JobSpec = rj.template.spec ?? { template: {} };
    if (rj.dependsOn?.length || (job.template?.spec as { workloadRef?: unknown } | undefined)?.workloadRef) return undefined;
    const parallelism = job.parallelism ?? 1;
    const completions = job.completions ?? parallelism;
    if (completions > parallelism || parallelism < 1) return undefined;
    total += (rj.replicas ?? 1) * completions;
  }
  return total > 1 ? total : undefined;
}

/** The pods' reference to the set's gang for the current attempt. */
export function gangRef(js: JobSet): { name: string; podGroup: string; podGroupReplicaKey: string } {
  return { name: js.metadata.name ?? '', podGroup: gangGroup, podGroupReplicaKey: String(js.status?.restarts ?? 0) };
}

/** Creates (or, when the gang size changed, replaces) the set's Workload. */
export async function ensureWorkload(client: Client, js: JobSet, size: number): Promise<void> {
  const ns = js.metadata.namespace ?? '';
  const name = js.metadata.name ?? '';
  const cur = client.get(workloadRes, ns, name);
  if (cur && !cur.metadata.ownerReferences?.some((r) => r.uid === js.metadata.uid)) return;
  const have = (cur?.spec as { podGroups?: Array<{ policy?: { gang?: { minCount?: number } } }> } | undefined)?.podGroups?.[0]?.policy?.gang?.minCount;
  if (cur && have === size) return;
  if (cur) await client.delete(workloadRes, ns, name);
  const owner = js;
  await client.create(workloadRes, ns, {
    apiVersion: 'scheduling.k8s.io/v1alpha1', kind: 'Workload',
    metadata: { name, namespace: ns, labels: { 'jobset.sigs.k8s.io/jobset-name': name }, ownerReferences: [{ apiVersion: owner.apiVersion ?? '', kind: 'JobSet', name, uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }] },
    spec: { podGroups: [{ name: gangGroup, policy: { gang: { minCount: size } } }] },
  } as KObject);
}
