// The StatefulSets a LeaderWorkerSet is made of, as upstream builds them: one leader StatefulSet named after the set
// (one leader pod per group, ordinals 0..replicas-1), and per group a worker StatefulSet named after its leader pod,
// owned by that pod, with ordinals from 1 so worker pods are `<set>-<group>-<worker>`.
import type { PodTemplateSpec } from '../../generated/k8s/core/v1.js';
import type { StatefulSet } from '../../generated/k8s/apps/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import { annotations as A, apiVersion, labels as L, partitionOf, replicasOf, scaled, sizeOf, uniquePerReplica, type LeaderWorkerSet } from './types.js';

type Dict = Record<string, string>;

const clone = <T>(v: T): T => structuredClone(v);

/** Labels or annotations merged over a base (later keys win), without a prototype for hostile keys. */
function merge(...maps: Array<Dict | undefined>): Dict {
  const out = Object.create(null) as Dict;
  for (const m of maps) if (m) for (const k of Object.keys(m)) out[k] = m[k];
  return { ...out };
}

function ownerRef(owner: { apiVersion?: string; kind?: string; metadata: { name?: string; uid?: string } }) {
  return { apiVersion: owner.apiVersion ?? '', kind: owner.kind ?? '', name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}

/** Annotations both pod templates carry: the group size and the sub-group and exclusive-topology settings. */
function podAnnotations(lws: LeaderWorkerSet, leader: boolean): Dict {
  const out: Dict = { [A.size]: String(sizeOf(lws)) };
  const la = lws.metadata.annotations ?? {};
  if (la[A.exclusiveTopology]) out[A.exclusiveTopology] = la[A.exclusiveTopology];
  const sub = lws.spec?.leaderWorkerTemplate?.subGroupPolicy;
  if (sub && typeof sub.subGroupSize === 'number') {
    out[A.subGroupPolicyType] = sub.subGroupPolicyType ?? 'LeaderWorker';
    out[A.subGroupSize] = String(sub.subGroupSize);
    if (la[A.subGroupExclusiveTopology]) out[A.subGroupExclusiveTopology] = la[A.subGroupExclusiveTopology];
  }
  if (leader && uniquePerReplica(lws)) out[A.subdomainPolicy] = 'UniquePerReplica';
  return out;
}

function withMeta(t: PodTemplateSpec | undefined, labels: Dict, annotations: Dict): PodTemplateSpec {
  const template = clone(t ?? {}) as PodTemplateSpec;
  template.metadata = { ...(template.metadata ?? {}), labels: merge(template.metadata?.labels, labels), annotations: merge(template.metadata?.annotations, annotations) };
  return template;
}

function claims(lws: LeaderWorkerSet): Partial<StatefulSet['spec']> {
  const t = lws.spec?.leaderWorkerTemplate;
  const out: Partial<NonNullable<StatefulSet['spec']>> = {};
  if (t?.volumeClaimTemplates?.length) out.volumeClaimTemplates = clone(t.volumeClaimTemplates);
  if (t?.persistentVolumeClaimRetentionPolicy) out.persistentVolumeClaimRetentionPolicy = clone(t.persistentVolumeClaimRetentionPolicy);
  return out;
}

/** The leader StatefulSet's maxUnavailable: the set's maxUnavailable plus its maxSurge, at least 1. */
export function leaderMaxUnavailable(lws: LeaderWorkerSet): number {
  const replicas = replicasOf(lws);
  const cfg = lws.spec?.rolloutStrategy?.rollingUpdateConfiguration;
  const mu = scaled(cfg?.maxUnavailable, replicas, false, 1);
  const ms = Math.min(scaled(cfg?.maxSurge, replicas, true, 0), replicas);
  return Math.max(1, mu + ms);
}

export function leaderStatefulSet(lws: LeaderWorkerSet, partition: number, replicas: number, revisionKey: string): StatefulSet {
  const name = lws.metadata.name ?? '';
  const t = lws.spec?.leaderWorkerTemplate;
  const template = withMeta(t?.leaderTemplate ?? t?.workerTemplate, { [L.workerIndex]: '0', [L.setName]: name, [L.revision]: revisionKey }, podAnnotations(lws, true));
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet',
    metadata: {
      name, namespace: lws.metadata.namespace,
      labels: merge(lws.metadata.labels, { [L.setName]: name, [L.revision]: revisionKey }),
      annotations: merge(lws.metadata.annotations, { [A.replicas]: String(replicasOf(lws)) }),
      ownerReferences: [ownerRef({ apiVersion, kind: 'LeaderWorkerSet', metadata: lws.metadata })],
    },
    spec: {
      serviceName: name, replicas, podManagementPolicy: 'Parallel', template,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: leaderMaxUnavailable(lws), partition: Math.max(partition, partitionOf(lws)) } },
      selector: { matchLabels: { [L.setName]: name, [L.workerIndex]: '0' } },
      ...claims(lws),
    },
  };
}

/**
 * The worker StatefulSet of the group `leader` leads. `lws` is the set as of the leader's revision (the template the
 * group was made from, which during a rolling update may be the old one).
 */
export function workerStatefulSet(leader: Pod, lws: LeaderWorkerSet, current: LeaderWorkerSet, nodeSelector?: Dict): StatefulSet {
  const name = current.metadata.name ?? '';
  const pl = leader.metadata?.labels ?? {};
  const selector: Dict = { [L.groupIndex]: pl[L.groupIndex] ?? '', [L.setName]: name, [L.groupKey]: pl[L.groupKey] ?? '' };
  const podLabels: Dict = { ...selector, [L.revision]: pl[L.revision] ?? '' };
  // Exclusive-topology annotations come from the set as it is now, the rest from the group's revision (as upstream).
  const ann = podAnnotations({ ...lws, metadata: current.metadata }, false);
  ann[A.leaderName] = leader.metadata?.name ?? '';
  const template = withMeta(lws.spec?.leaderWorkerTemplate?.workerTemplate, podLabels, ann);
  if (nodeSelector) template.spec = { ...(template.spec ?? { containers: [] }), nodeSelector: merge(template.spec?.nodeSelector, nodeSelector) };
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet',
    metadata: {
      name: leader.metadata?.name, namespace: leader.metadata?.namespace,
      labels: merge(current.metadata.labels, podLabels),
      annotations: merge(current.metadata.annotations),
      ownerReferences: [ownerRef({ apiVersion: 'v1', kind: 'Pod', metadata: { name: leader.metadata?.name, uid: leader.metadata?.uid } })],
    },
    spec: {
      serviceName: uniquePerReplica(lws) ? leader.metadata?.name ?? '' : name,
      replicas: sizeOf(lws) - 1, podManagementPolicy: 'Parallel', template, ordinals: { start: 1 },
      selector: { matchLabels: selector },
      ...claims(lws),
    },
  };
}
