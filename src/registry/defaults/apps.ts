// apps/v1 defaulting: Deployment, ReplicaSet, StatefulSet, DaemonSet, ControllerRevision (none).
import type { DaemonSet, Deployment, ReplicaSet, StatefulSet } from '../../generated/k8s/apps/v1.js';
import { defaultPodTemplate, defaultPvcSpec, present } from './pod.js';

const unset = (v: unknown) => v === undefined || v === null;

export function defaultDeployment(d: Deployment): void {
  const spec = present(d.spec) ? d.spec : (d.spec = {} as NonNullable<Deployment['spec']>);
  if (unset(spec.replicas)) spec.replicas = 1;
  const strategy = present(spec.strategy) ? spec.strategy : (spec.strategy = {});
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = present(strategy.rollingUpdate) ? strategy.rollingUpdate : (strategy.rollingUpdate = {});
    if (unset(ru.maxUnavailable)) ru.maxUnavailable = '25%';
    if (unset(ru.maxSurge)) ru.maxSurge = '25%';
  }
  if (unset(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
  if (unset(spec.progressDeadlineSeconds)) spec.progressDeadlineSeconds = 600;
  defaultPodTemplate(spec.template);
}

export function defaultReplicaSet(rs: ReplicaSet): void {
  const spec = present(rs.spec) ? rs.spec : (rs.spec = {} as NonNullable<ReplicaSet['spec']>);
  if (unset(spec.replicas)) spec.replicas = 1;
  defaultPodTemplate(spec.template);
}

export function defaultStatefulSet(ss: StatefulSet): void {
  const spec = present(ss.spec) ? ss.spec : (ss.spec = {} as NonNullable<StatefulSet['spec']>);
  if (!spec.podManagementPolicy) spec.podManagementPolicy = 'OrderedReady';
  const us = present(spec.updateStrategy) ? spec.updateStrategy : (spec.updateStrategy = {});
  if (!us.type) us.type = 'RollingUpdate';
  if (us.type === 'RollingUpdate') {
    const ru = present(us.rollingUpdate) ? us.rollingUpdate : (us.rollingUpdate = {});
    if (unset(ru.partition)) ru.partition = 0;
  }
  const retention = present(spec.persistentVolumeClaimRetentionPolicy)
    ? spec.persistentVolumeClaimRetentionPolicy
    : (spec.persistentVolumeClaimRetentionPolicy = {});
  if (!retention.whenDeleted) retention.whenDeleted = 'Retain';
  if (!retention.whenScaled) retention.whenScaled = 'Retain';
  if (unset(spec.replicas)) spec.replicas = 1;
  if (unset(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
  for (const t of Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : []) {
    if (!present(t)) continue;
    if (present(t.spec)) defaultPvcSpec(t.spec);
    const status = (present(t.status) ? t.status : ((t as { status?: object }).status = {})) as { phase?: string };
    if (!status.phase) status.phase = 'Pending';
  }
  defaultPodTemplate(spec.template);
}

export function defaultDaemonSet(ds: DaemonSet): void {
  const spec = present(ds.spec) ? ds.spec : (ds.spec = {} as NonNullable<DaemonSet['spec']>);
  const us = present(spec.updateStrategy) ? spec.updateStrategy : (spec.updateStrategy = {});
  if (!us.type) us.type = 'RollingUpdate';
  if (us.type === 'RollingUpdate') {
    const ru = present(us.rollingUpdate) ? us.rollingUpdate : (us.rollingUpdate = {});
    if (unset(ru.maxUnavailable)) ru.maxUnavailable = 1;
    if (unset(ru.maxSurge)) ru.maxSurge = 0;
  }
  if (unset(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
  defaultPodTemplate(spec.template);
}
