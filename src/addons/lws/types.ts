// The LeaderWorkerSet API (leaderworkerset.x-k8s.io/v1) as the controller reads it, and the label, annotation and
// environment names upstream puts on the objects it makes. Fields are optional: a LeaderWorkerSet is client input
// (the CRD schema defaults most of them, but the controller never trusts that).
import type { PodTemplateSpec, PersistentVolumeClaim } from '../../generated/k8s/core/v1.js';
import type { StatefulSetPersistentVolumeClaimRetentionPolicy } from '../../generated/k8s/apps/v1.js';
import type { KObject } from '../../machinery/types.js';
import type { Condition as LwsCondition } from '../../machinery/conditions.js';

export const group = 'leaderworkerset.x-k8s.io';
export const apiVersion = `${group}/v1`;
export const lwsResource = `${group}/v1/leaderworkersets`;

export const labels = {
  setName: 'leaderworkerset.sigs.k8s.io/name',
  groupIndex: 'leaderworkerset.sigs.k8s.io/group-index',
  workerIndex: 'leaderworkerset.sigs.k8s.io/worker-index',
  groupKey: 'leaderworkerset.sigs.k8s.io/group-key',
  revision: 'leaderworkerset.sigs.k8s.io/template-revision-hash',
  subGroupIndex: 'leaderworkerset.sigs.k8s.io/subgroup-index',
  subGroupKey: 'leaderworkerset.sigs.k8s.io/subgroup-key',
} as const;

export const annotations = {
  size: 'leaderworkerset.sigs.k8s.io/size',
  replicas: 'leaderworkerset.sigs.k8s.io/replicas',
  leaderName: 'leaderworkerset.sigs.k8s.io/leader-name',
  exclusiveTopology: 'leaderworkerset.sigs.k8s.io/exclusive-topology',
  subGroupExclusiveTopology: 'leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology',
  subGroupSize: 'leaderworkerset.sigs.k8s.io/subgroup-size',
  subGroupPolicyType: 'leaderworkerset.sigs.k8s.io/subgroup-policy-type',
  subdomainPolicy: 'leaderworkerset.sigs.k8s.io/subdomainPolicy',
  recreateGroupAfterStart: 'leaderworkerset.sigs.k8s.io/experimental-recreate-group-after-start',
} as const;

export const env = { leaderAddress: 'LWS_LEADER_ADDRESS', groupSize: 'LWS_GROUP_SIZE', workerIndex: 'LWS_WORKER_INDEX' } as const;

export type IntOrString = number | string;

export interface LeaderWorkerSetSpec {
  replicas?: number;
  leaderWorkerTemplate?: {
    leaderTemplate?: PodTemplateSpec;
    workerTemplate?: PodTemplateSpec;
    size?: number;
    restartPolicy?: 'RecreateGroupOnPodRestart' | 'RecreateGroupAfterStart' | 'Default' | 'None';
    subGroupPolicy?: { subGroupPolicyType?: 'LeaderWorker' | 'LeaderExcluded'; subGroupSize?: number };
    volumeClaimTemplates?: PersistentVolumeClaim[];
    persistentVolumeClaimRetentionPolicy?: StatefulSetPersistentVolumeClaimRetentionPolicy;
  };
  rolloutStrategy?: {
    type?: 'RollingUpdate';
    rollingUpdateConfiguration?: { partition?: number; maxUnavailable?: IntOrString; maxSurge?: IntOrString };
  };
  startupPolicy?: 'LeaderCreated' | 'LeaderReady';
  networkConfig?: { subdomainPolicy?: 'Shared' | 'UniquePerReplica' };
}

export type { LwsCondition };

export interface LeaderWorkerSetStatus {
  conditions?: LwsCondition[];
  readyReplicas?: number;
  updatedReplicas?: number;
  replicas?: number;
  hpaPodSelector?: string;
  observedGeneration?: number;
}

export interface LeaderWorkerSet extends KObject {
  spec?: LeaderWorkerSetSpec;
  status?: LeaderWorkerSetStatus;
}

/** A non-negative int32 read from client input (anything else: the fallback). */
export function count(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 2 ** 31 - 1 ? v : fallback;
}

export const replicasOf = (lws: LeaderWorkerSet): number => count(lws.spec?.replicas, 1);
export const sizeOf = (lws: LeaderWorkerSet): number => Math.max(1, count(lws.spec?.leaderWorkerTemplate?.size, 1));
export const partitionOf = (lws: LeaderWorkerSet): number => count(lws.spec?.rolloutStrategy?.rollingUpdateConfiguration?.partition, 0);
export const restartPolicyOf = (lws: LeaderWorkerSet) => lws.spec?.leaderWorkerTemplate?.restartPolicy ?? 'RecreateGroupOnPodRestart';
export const uniquePerReplica = (lws: LeaderWorkerSet): boolean => lws.spec?.networkConfig?.subdomainPolicy === 'UniquePerReplica';

/**
 * An int-or-percent scaled against `total` as upstream's GetScaledValueFromIntOrPercent: a percentage rounds up or
 * down as asked; malformed values read as 0.
 */
export function scaled(v: IntOrString | undefined, total: number, roundUp: boolean, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 ? v : 0;
  const m = /^(\d{1,9})%$/.exec(v);
  if (!m) return /^\d{1,9}$/.test(v) ? Number(v) : 0;
  const exact = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** The trailing `-<ordinal>` of a StatefulSet pod's name: the parent name and the ordinal (-1 when none). */
export function parentAndOrdinal(name: string): [string, number] {
  const m = /^(.*)-(\d{1,9})$/.exec(name);
  return m ? [m[1], Number(m[2])] : [name, -1];
}
