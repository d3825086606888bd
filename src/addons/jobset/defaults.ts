// What upstream's JobSet webhook defaults at create, applied here when the controller reads a JobSet (Bonsai runs no
// webhook for add-ons): success policy All, startup policy AnyOrder, DNS hostnames on and not-ready addresses
// published, failure-policy rule names `failurePolicyRule<i>`, and for each Job template Indexed completion with
// pods restarting OnFailure.
import type { JobSet, JobSetSpec, ReplicatedJob } from './types.js';

export interface EffectiveSpec extends JobSetSpec {
  replicatedJobs: ReplicatedJob[];
  successPolicy: NonNullable<JobSetSpec['successPolicy']>;
  startupPolicy: NonNullable<JobSetSpec['startupPolicy']>;
  network: { enableDNSHostnames: boolean; subdomain?: string; publishNotReadyAddresses: boolean };
}

/** The spec with upstream's webhook defaults filled in (a new object; the stored one is never touched). */
export function effectiveSpec(js: JobSet): EffectiveSpec {
  const spec = js.spec ?? {};
  const rules = spec.failurePolicy?.rules?.map((r, i) => (r.name ? r : { ...r, name: `failurePolicyRule${i}` }));
  return {
    ...spec,
    replicatedJobs: (spec.replicatedJobs ?? []).map((rj) => ({ ...rj, replicas: rj.replicas ?? 1, groupName: rj.groupName ?? 'default' })),
    successPolicy: spec.successPolicy ?? { operator: 'All' },
    startupPolicy: spec.startupPolicy ?? { startupPolicyOrder: 'AnyOrder' },
    network: {
      ...spec.network,
      enableDNSHostnames: spec.network?.enableDNSHostnames ?? true,
      publishNotReadyAddresses: spec.network?.publishNotReadyAddresses ?? true,
    },
    failurePolicy: spec.failurePolicy && { ...spec.failurePolicy, rules },
  };
}

/** The headless Service's name and the pods' subdomain: `network.subdomain`, else the JobSet's name. */
export function subdomainOf(js: JobSet, spec: EffectiveSpec): string {
  return spec.network.subdomain || (js.metadata.name ?? '');
}
