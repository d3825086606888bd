// Readiness and taint tolerance as every controller, the scheduler and the API read them.
import type { Node, Pod, Taint, Toleration } from '../generated/k8s/core/v1.js';

/** A pod is ready when its Ready condition is True. */
export const isPodReady = (p: Pod): boolean => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** A node is ready when its Ready condition is True. */
export const isNodeReady = (n: Node): boolean => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/**
 * Whether a toleration tolerates a taint, as core/v1 defines it: an empty effect matches every effect, an empty
 * key (only valid with Exists) every key; Exists ignores the value, Equal (or no operator) compares it.
 */
export function tolerates(t: Toleration, taint: Pick<Taint, 'key' | 'value' | 'effect'>): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (t.operator === 'Exists') return true;
  if (!t.operator || t.operator === 'Equal') return (t.value ?? '') === (taint.value ?? '');
  return false;
}

/** metav1.Condition, as the status of custom resources (JobSet, LeaderWorkerSet, NodePool, ...) carries it. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}
