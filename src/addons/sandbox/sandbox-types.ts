// The Agent Sandbox API as the controller reads it (agents.x-k8s.io/v1beta1, the storage version; v1alpha1 objects
// share the stored form, `spec.replicas: 0` meaning what `operatingMode: Suspended` means), and small helpers.
import type { KObject, OwnerReference } from '../../machinery/types.js';
import { isRecord } from '../../machinery/types.js';

export const sandboxRef = 'agents.x-k8s.io/v1beta1/sandboxes';
export const group = 'agents.x-k8s.io';

export const labels = {
  /** On the pod, service and claims: the FNV-1a hash of the sandbox name (the service selects on it). */
  nameHash: 'agents.x-k8s.io/sandbox-name-hash',
  warmPool: 'agents.x-k8s.io/warm-pool-sandbox',
  templateRefHash: 'agents.x-k8s.io/sandbox-template-ref-hash',
} as const;

export const annotations = {
  podName: 'agents.x-k8s.io/pod-name',
  propagatedLabels: 'agents.x-k8s.io/propagated-labels',
  propagatedAnnotations: 'agents.x-k8s.io/propagated-annotations',
} as const;

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

export interface ClaimTemplate {
  metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

export interface SandboxSpec {
  podTemplate?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> };
  volumeClaimTemplates?: ClaimTemplate[];
  service?: boolean;
  operatingMode?: string;
  /** v1alpha1: 0 pauses, 1 runs. */
  replicas?: number;
  shutdownTime?: string;
  shutdownPolicy?: string;
}

export interface Sandbox extends KObject {
  spec: SandboxSpec;
  status?: {
    conditions?: Condition[];
    service?: string;
    serviceFQDN?: string;
    selector?: string;
    podIPs?: string[];
    nodeName?: string;
  };
}

export const clusterDomain = 'cluster.local';

/** Upstream's NameHash: FNV-1a (32 bits) of the name, as 8 lowercase hex digits. */
export function nameHash(name: string): string {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(name, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** Labels and annotations under the agents.x-k8s.io prefixes are the system's: a pod template cannot set them. */
export const isSystemKey = (key: string) => key.startsWith('agents.x-k8s.io/') || key.startsWith('extensions.agents.x-k8s.io/');

export function isSuspended(sb: Sandbox): boolean {
  return sb.spec?.operatingMode === 'Suspended' || sb.spec?.replicas === 0;
}

export function controllerOf(obj: KObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller);
}

export function ownerReference(owner: KObject): OwnerReference {
  return { apiVersion: owner.apiVersion ?? '', kind: owner.kind ?? '', name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}

export type Ownership = 'owned' | 'unowned' | 'other';

export function ownership(obj: KObject, owner: KObject): Ownership {
  const ref = controllerOf(obj);
  if (!ref) return 'unowned';
  return ref.uid === owner.metadata.uid ? 'owned' : 'other';
}

/** meta.SetStatusCondition: the transition time moves only when the status changes. */
export function setCondition(list: Condition[], c: Condition, now: string): void {
  const i = list.findIndex((x) => x.type === c.type);
  if (i < 0) {
    list.push({ ...c, lastTransitionTime: now });
    return;
  }
  const prev = list[i];
  list[i] = { ...c, lastTransitionTime: prev.status === c.status && prev.lastTransitionTime ? prev.lastTransitionTime : now };
}

export function removeCondition(list: Condition[], type: string): void {
  const i = list.findIndex((x) => x.type === type);
  if (i >= 0) list.splice(i, 1);
}

export const record = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});
