// What upstream's LWS pod webhook does when a pod of a LeaderWorkerSet is created: the per-pod labels a StatefulSet
// template cannot carry (the leader's group index and group key, a worker's index, sub-group index and key), the
// exclusive-topology affinities, the leader's own subdomain under UniquePerReplica, and the LWS_* environment.
// In Bonsai it is an in-process mutating admission plugin instead of a webhook.
import type { Client } from '../../client/client.js';
import { joinGang } from './workload.js';
import { createHash } from 'node:crypto';
import type { Container, EnvVar, Pod, PodAffinityTerm } from '../../generated/k8s/core/v1.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../../admission/types.js';
import { annotations as A, env as E, labels as L, parentAndOrdinal } from './types.js';

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
export const groupKeyOf = (namespace: string, podName: string) => sha1(`${namespace}/${podName}`);

/** A worker's sub-group: the leader joins sub-group 0 unless it is excluded, which shifts the workers by one. */
export function subGroupIndex(groupSize: number, subGroupSize: number, workerIndex: number): number {
  if ((groupSize - 1) % subGroupSize === 0 && groupSize % subGroupSize !== 0) return Math.floor((workerIndex - 1) / subGroupSize);
  return Math.floor(workerIndex / subGroupSize);
}

function exclusiveAffinity(pod: Pod, key: string, topologyKey: string, labelKey: string): void {
  const spec = pod.spec!;
  const pa = spec.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  const anti = spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  if (pa.some((t) => t.topologyKey === topologyKey) && anti.some((t) => t.topologyKey === topologyKey)) return;
  const same: PodAffinityTerm = { labelSelector: { matchExpressions: [{ key: labelKey, operator: 'In', values: [key] }] }, topologyKey };
  const others: PodAffinityTerm = {
    labelSelector: { matchExpressions: [{ key: labelKey, operator: 'Exists' }, { key: labelKey, operator: 'NotIn', values: [key] }] }, topologyKey,
  };
  spec.affinity = {
    ...(spec.affinity ?? {}),
    podAffinity: { ...(spec.affinity?.podAffinity ?? {}), requiredDuringSchedulingIgnoredDuringExecution: [...pa, same] },
    podAntiAffinity: { ...(spec.affinity?.podAntiAffinity ?? {}), requiredDuringSchedulingIgnoredDuringExecution: [...anti, others] },
  };
}

/** The LWS variables first, then the container's own (a variable the container already sets keeps its place after). */
function withEnv(c: Container, vars: EnvVar[]): void {
  const names = new Set(vars.map((v) => v.name));
  c.env = [...vars, ...(c.env ?? []).filter((e) => !names.has(e.name))];
}

/**
 * Defaults a pod in place. Returns false (pod unchanged) when it is not an LWS pod or lacks what the controller
 * puts on every LWS pod (size annotation, a parsable ordinal).
 */
export function defaultLwsPod(pod: Pod, namespace: string): boolean {
  const ann = pod.metadata?.annotations ?? {};
  if (!pod.metadata?.labels || !Object.hasOwn(pod.metadata.labels, L.setName) || !pod.spec) return false;
  const size = Number(ann[A.size]);
  if (!Number.isInteger(size) || size < 1) return false;
  const name = pod.metadata.name ?? '';
  const [, ordinal] = parentAndOrdinal(name);
  if (ordinal < 0) return false;
  // Copies of what changes: the pod may share its labels, spec and containers with the template it was made from.
  const labels = (pod.metadata.labels = { ...pod.metadata.labels });
  pod.spec = { ...pod.spec, containers: (pod.spec.containers ?? []).map((c) => ({ ...c })) };
  if (pod.spec.initContainers) pod.spec.initContainers = pod.spec.initContainers.map((c) => ({ ...c }));
  const subSize = Number(ann[A.subGroupSize]);
  const hasSub = Object.hasOwn(ann, A.subGroupSize) && Number.isInteger(subSize) && subSize > 0;
  if (labels[L.workerIndex] === '0') {
    if (!labels[L.groupIndex]) labels[L.groupIndex] = String(ordinal);
    if (ann[A.subdomainPolicy] === 'UniquePerReplica') pod.spec.subdomain = name;
    const key = (labels[L.groupKey] ||= groupKeyOf(namespace, name));
    if (ann[A.exclusiveTopology]) exclusiveAffinity(pod, key, ann[A.exclusiveTopology], L.groupKey);
    if (hasSub && !labels[L.subGroupIndex] && ann[A.subGroupPolicyType] !== 'LeaderExcluded') {
      labels[L.subGroupIndex] = '0';
      labels[L.subGroupKey] = groupKeyOf(name, '0');
      if (ann[A.subGroupExclusiveTopology]) exclusiveAffinity(pod, labels[L.subGroupKey], ann[A.subGroupExclusiveTopology], L.subGroupKey);
    }
  } else {
    labels[L.workerIndex] = String(ordinal);
    if (hasSub && !labels[L.subGroupIndex]) {
      const index = String(subGroupIndex(size, subSize, ordinal));
      labels[L.subGroupIndex] = index;
      labels[L.subGroupKey] = groupKeyOf(ann[A.leaderName] ?? '', index);
      if (ann[A.subGroupExclusiveTopology]) exclusiveAffinity(pod, labels[L.subGroupKey], ann[A.subGroupExclusiveTopology], L.subGroupKey);
    }
  }
  const address = `${labels[L.setName]}-${labels[L.groupIndex] ?? ''}.${pod.spec.subdomain ?? ''}.${namespace}`;
  const vars: EnvVar[] = [
    { name: E.leaderAddress, value: address },
    { name: E.groupSize, value: String(size) },
    { name: E.workerIndex, value: labels[L.workerIndex] ?? '' },
  ];
  for (const c of pod.spec.containers ?? []) withEnv(c, vars);
  for (const c of pod.spec.initContainers ?? []) withEnv(c, vars);
  return true;
}

function isLwsPodCreate(a: AdmissionAttributes): boolean {
  if (a.operation !== 'CREATE' || a.subresource !== '' || a.def.group !== '' || a.def.plural !== 'pods') return false;
  const l = a.object?.metadata?.labels;
  return !!l && Object.hasOwn(l, L.setName);
}

/** The mutating admission plugin that stands in for upstream's pod webhook. */
export function lwsPodAdmission(client: Client): AdmissionPlugin {
  return {
    name: 'LeaderWorkerSetPod',
    handles: isLwsPodCreate,
    mutate(a) {
      if (!isLwsPodCreate(a)) return;
      const pod = a.object as Pod;
      if (defaultLwsPod(pod, a.namespace)) joinGang(client, pod, a.namespace);
    },
  };
}
