// StatefulSet pod identity: ordinals parsed from names, stable pod and claim names, the identity labels,
// hostname/subdomain, and the pod volumes that point at per-ordinal claims (upstream stateful_set_utils).
import type { StatefulSet } from '../../generated/k8s/apps/v1.js';
import type { PersistentVolumeClaim, Pod, Volume } from '../../generated/k8s/core/v1.js';
import type { KObject } from '../../machinery/types.js';
import { podFromTemplate } from '../workload/pod-control.js';
import { revisionHashLabel } from '../workload/history.js';

export const podNameLabel = 'statefulset.kubernetes.io/pod-name';
export const podIndexLabel = 'apps.kubernetes.io/pod-index';

const ordinalPattern = /^(.*)-([0-9]+)$/;

/** The parent set name and ordinal encoded in a pod name; ordinal -1 when the name has none. */
export function parentAndOrdinal(name: string | undefined): { parent: string; ordinal: number } {
  const m = ordinalPattern.exec(name ?? '');
  if (!m) return { parent: '', ordinal: -1 };
  const n = Number(m[2]);
  return { parent: m[1], ordinal: Number.isSafeInteger(n) && n <= 2 ** 31 - 1 ? n : -1 };
}

export const ordinalOf = (pod: Pod): number => parentAndOrdinal(pod.metadata?.name).ordinal;
export const startOrdinal = (set: StatefulSet): number => set.spec?.ordinals?.start ?? 0;
export const replicasOf = (set: StatefulSet): number => set.spec?.replicas ?? 1;
export const endOrdinal = (set: StatefulSet): number => startOrdinal(set) + replicasOf(set) - 1;
export const podName = (set: StatefulSet, ordinal: number): string => `${set.metadata?.name}-${ordinal}`;
export const claimName = (set: StatefulSet, template: PersistentVolumeClaim, ordinal: number): string => `${template.metadata?.name}-${set.metadata?.name}-${ordinal}`;

export function inOrdinalRange(pod: Pod, set: StatefulSet): boolean {
  const o = ordinalOf(pod);
  return o >= startOrdinal(set) && o <= endOrdinal(set);
}

/** Whether the pod's name says it belongs to the set. */
export const isMemberOf = (set: StatefulSet, pod: Pod): boolean => parentAndOrdinal(pod.metadata?.name).parent === set.metadata?.name;

export const podRevision = (pod: Pod): string => pod.metadata?.labels?.[revisionHashLabel] ?? '';

export function identityMatches(set: StatefulSet, pod: Pod): boolean {
  const { parent, ordinal } = parentAndOrdinal(pod.metadata?.name);
  return ordinal >= 0 && parent === set.metadata?.name && pod.metadata?.name === podName(set, ordinal)
    && pod.metadata?.namespace === set.metadata?.namespace && pod.metadata?.labels?.[podNameLabel] === pod.metadata?.name;
}

/** Whether every claim template has a pod volume pointing at this ordinal's claim. */
export function storageMatches(set: StatefulSet, pod: Pod): boolean {
  const ordinal = ordinalOf(pod);
  if (ordinal < 0) return false;
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  return (set.spec?.volumeClaimTemplates ?? []).every((t) => volumes.get(t.metadata?.name ?? '')?.persistentVolumeClaim?.claimName === claimName(set, t, ordinal));
}

/** The claims a pod of the set needs, keyed by template name: template copy, per-ordinal name, selector labels added. */
export function claimsFor(set: StatefulSet, ordinal: number): Map<string, PersistentVolumeClaim> {
  const out = new Map<string, PersistentVolumeClaim>();
  for (const t of set.spec?.volumeClaimTemplates ?? []) {
    const c = structuredClone(t) as PersistentVolumeClaim;
    const labels = { ...(c.metadata?.labels ?? {}), ...(set.spec?.selector?.matchLabels ?? {}) };
    c.apiVersion = 'v1';
    c.kind = 'PersistentVolumeClaim';
    c.metadata = { ...(c.metadata ?? {}), name: claimName(set, t, ordinal), namespace: set.metadata?.namespace, labels };
    delete (c as { status?: unknown }).status;
    out.set(t.metadata?.name ?? '', c);
  }
  return out;
}

/** Points the pod's claim volumes at its claims, keeping the template's other volumes. */
export function updateStorage(set: StatefulSet, pod: Pod): void {
  const claims = claimsFor(set, ordinalOf(pod));
  const volumes: Volume[] = [...claims].map(([name, c]) => ({ name, persistentVolumeClaim: { claimName: c.metadata?.name ?? '' } }));
  for (const v of pod.spec?.volumes ?? []) if (!claims.has(v.name)) volumes.push(v);
  if (pod.spec) pod.spec.volumes = volumes;
}

/** Name, namespace and the identity labels (pod-name, pod-index). */
export function updateIdentity(set: StatefulSet, pod: Pod): void {
  const ordinal = ordinalOf(pod);
  const meta = (pod.metadata ??= {});
  meta.name = podName(set, ordinal);
  meta.namespace = set.metadata?.namespace;
  meta.labels = { ...(meta.labels ?? {}), [podNameLabel]: meta.name, [podIndexLabel]: String(ordinal) };
}

/** A new pod of `set` (built from the set's template) for `ordinal`, labelled with `revision`. */
export function newStatefulSetPod(set: StatefulSet, ordinal: number, revision: string): Pod {
  const pod = podFromTemplate(set.spec?.template, set, { name: podName(set, ordinal) });
  updateIdentity(set, pod);
  // Hostname and subdomain are set only at creation (they are immutable on the pod).
  if (pod.spec) {
    pod.spec.hostname = pod.metadata?.name;
    if (set.spec?.serviceName) pod.spec.subdomain = set.spec.serviceName;
  }
  updateStorage(set, pod);
  pod.metadata = { ...pod.metadata, labels: { ...(pod.metadata?.labels ?? {}), [revisionHashLabel]: revision } };
  return pod;
}

/** Sorts pods by ordinal, ascending. */
export const byOrdinal = (a: Pod, b: Pod): number => ordinalOf(a) - ordinalOf(b);
