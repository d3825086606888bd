// Deployment arithmetic and vocabulary (upstream deployment/util): annotation keys, condition reasons, maxSurge and
// maxUnavailable resolution, replica counts over ReplicaSets, template equality ignoring the hash label, orderings.
import type { Deployment, ReplicaSet } from '../../generated/k8s/apps/v1.js';
import type { PodTemplateSpec } from '../../generated/k8s/core/v1.js';
import { canonicalJson } from '../workload/hash.js';

export const podTemplateHashLabel = 'pod-template-hash';
export const revisionAnnotation = 'deployment.kubernetes.io/revision';
export const revisionHistoryAnnotation = 'deployment.kubernetes.io/revision-history';
export const desiredReplicasAnnotation = 'deployment.kubernetes.io/desired-replicas';
export const maxReplicasAnnotation = 'deployment.kubernetes.io/max-replicas';
export const changeCauseAnnotation = 'kubernetes.io/change-cause';

/** Deployment annotations never copied to its ReplicaSets. */
export const annotationsToSkip = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  revisionAnnotation, revisionHistoryAnnotation, desiredReplicasAnnotation, maxReplicasAnnotation,
  'deprecated.deployment.rollback.to',
]);

export const reasons = {
  newRSCreated: 'NewReplicaSetCreated',
  foundNewRS: 'FoundNewReplicaSet',
  rsUpdated: 'ReplicaSetUpdated',
  newRSAvailable: 'NewReplicaSetAvailable',
  timedOut: 'ProgressDeadlineExceeded',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
  failedRSCreate: 'ReplicaSetCreateError',
  minAvailable: 'MinimumReplicasAvailable',
  minUnavailable: 'MinimumReplicasUnavailable',
} as const;

export const replicasOf = (o: { spec?: { replicas?: number } } | undefined): number => o?.spec?.replicas ?? 1;

export const isRollingUpdate = (d: Deployment): boolean => d.spec?.strategy?.type !== 'Recreate';

/** An int-or-percent against `total`: percentages round up or down as asked. */
export function scaledValue(v: number | string | undefined, total: number, roundUp: boolean): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  const m = /^(-?\d+)%$/.exec(v);
  if (!m) return Number.parseInt(v, 10) || 0;
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

/** maxSurge rounds up, maxUnavailable down; both zero would deadlock, so unavailable becomes 1. */
export function resolveFenceposts(maxSurge: number | string | undefined, maxUnavailable: number | string | undefined, desired: number): { surge: number; unavailable: number } {
  const surge = scaledValue(maxSurge, desired, true);
  let unavailable = scaledValue(maxUnavailable, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export function maxSurge(d: Deployment): number {
  if (!isRollingUpdate(d)) return 0;
  const ru = d.spec?.strategy?.rollingUpdate;
  return resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, replicasOf(d)).surge;
}

export function maxUnavailable(d: Deployment): number {
  const replicas = replicasOf(d);
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  const ru = d.spec?.strategy?.rollingUpdate;
  return Math.min(resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, replicas).unavailable, replicas);
}

/** Sum of spec.replicas. */
export const specReplicas = (rss: ReplicaSet[]): number => rss.reduce((n, rs) => n + (rs.spec?.replicas ?? 0), 0);
/** Sum of status.replicas. */
export const actualReplicas = (rss: ReplicaSet[]): number => rss.reduce((n, rs) => n + (rs.status?.replicas ?? 0), 0);
export const readyReplicas = (rss: ReplicaSet[]): number => rss.reduce((n, rs) => n + (rs.status?.readyReplicas ?? 0), 0);
export const availableReplicas = (rss: ReplicaSet[]): number => rss.reduce((n, rs) => n + (rs.status?.availableReplicas ?? 0), 0);

/** How large the new ReplicaSet may be now. */
export function newRSReplicas(d: Deployment, allRSs: ReplicaSet[], newRS: ReplicaSet): number {
  const want = replicasOf(d);
  if (!isRollingUpdate(d)) return want;
  const current = specReplicas(allRSs);
  const maxTotal = want + maxSurge(d);
  if (current >= maxTotal) return newRS.spec?.replicas ?? 0;
  const up = Math.min(maxTotal - current, want - (newRS.spec?.replicas ?? 0));
  return (newRS.spec?.replicas ?? 0) + up;
}

/** ReplicaSets with spec.replicas > 0. */
export const activeReplicaSets = (rss: ReplicaSet[]): ReplicaSet[] => rss.filter((rs) => (rs.spec?.replicas ?? 0) > 0);

/** A copy without null fields: a Go client decodes `creationTimestamp: null` (as sent by `rollout undo`) to nothing. */
export function withoutNulls<T>(v: T): T {
  if (Array.isArray(v)) return v.map(withoutNulls) as T;
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null && x !== undefined).map(([k, x]) => [k, withoutNulls(x)])) as T;
  }
  return v;
}

/** Canonical text of a template without its hash label; stored objects never change, so it is kept per object. */
const strippedText = new WeakMap<object, string>();

function stripped(t: PodTemplateSpec | undefined): string {
  if (t && strippedText.has(t)) return strippedText.get(t)!;
  const c = withoutNulls(t ?? {}) as PodTemplateSpec & { metadata?: { labels?: Record<string, string> } };
  if (c.metadata?.labels) {
    delete c.metadata.labels[podTemplateHashLabel];
    if (!Object.keys(c.metadata.labels).length) delete c.metadata.labels;
  }
  // The deprecated serviceAccount alias (defaulted from serviceAccountName) is not a change: templates stored before
  // it was defaulted still match.
  if (c.spec && c.spec.serviceAccount === c.spec.serviceAccountName) delete c.spec.serviceAccount;
  const text = canonicalJson(c);
  if (t) strippedText.set(t, text);
  return text;
}

/** Templates equal once the pod-template-hash label (and the serviceAccount alias) is taken out of both. */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  return stripped(a) === stripped(b);
}

export function revisionOf(rs: ReplicaSet | Deployment): number {
  const v = rs.metadata?.annotations?.[revisionAnnotation];
  const n = v === undefined ? 0 : Number.parseInt(v, 10);
  return Number.isFinite(n) ? n : 0;
}

export const maxRevision = (rss: ReplicaSet[]): number => rss.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);

const createdMs = (rs: ReplicaSet): number => (rs.metadata?.creationTimestamp ? Date.parse(rs.metadata.creationTimestamp) : 0);

/** Oldest first, then by name. */
export function byCreation(a: ReplicaSet, b: ReplicaSet): number {
  return createdMs(a) - createdMs(b) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
}

/** Larger first; equal sizes newer first (for scaling up). */
export const bySizeNewer = (a: ReplicaSet, b: ReplicaSet): number => (b.spec?.replicas ?? 0) - (a.spec?.replicas ?? 0) || byCreation(b, a);
/** Larger first; equal sizes older first (for scaling down). */
export const bySizeOlder = (a: ReplicaSet, b: ReplicaSet): number => (b.spec?.replicas ?? 0) - (a.spec?.replicas ?? 0) || byCreation(a, b);

/** The new ReplicaSet: the oldest one whose template equals the deployment's (ignoring the hash label). */
export function findNewReplicaSet(d: Deployment, rss: ReplicaSet[]): ReplicaSet | undefined {
  return [...rss].sort(byCreation).find((rs) => equalIgnoreHash(rs.spec?.template, d.spec?.template));
}

/** The deployment has rolled out completely: every replica updated and available, and the spec observed. */
export function deploymentComplete(d: Deployment, status: NonNullable<Deployment['status']>): boolean {
  const want = replicasOf(d);
  return (status.updatedReplicas ?? 0) === want && (status.replicas ?? 0) === want && (status.availableReplicas ?? 0) === want
    && (status.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0);
}

export const hasProgressDeadline = (d: Deployment): boolean =>
  d.spec?.progressDeadlineSeconds !== undefined && d.spec.progressDeadlineSeconds !== null && d.spec.progressDeadlineSeconds !== 2147483647;
