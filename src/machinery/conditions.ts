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

/**
 * How long a pod may stay on a node with this NoExecute taint, as the taint eviction controller reads its
 * tolerations: 0 when none tolerates it (or the first that does gives tolerationSeconds <= 0), the first matching
 * toleration's tolerationSeconds in ms, or -1 when it tolerates the taint forever.
 */
export function noExecuteToleranceMs(taint: Pick<Taint, 'key' | 'value' | 'effect'>, tolerations: readonly Toleration[]): number {
  const t = tolerations.find((x) => tolerates(x, taint));
  if (!t) return 0;
  if (t.tolerationSeconds === undefined || t.tolerationSeconds === null) return -1;
  return t.tolerationSeconds <= 0 ? 0 : t.tolerationSeconds * 1000;
}

/** When a pod on a node with these NoExecute taints is to be evicted: the shortest of noExecuteToleranceMs, -1 never. */
export function evictionDelayMs(taints: readonly Pick<Taint, 'key' | 'value' | 'effect'>[], tolerations: readonly Toleration[]): number {
  let min = -1;
  for (const taint of taints) {
    const ms = noExecuteToleranceMs(taint, tolerations);
    if (ms >= 0 && (min < 0 || ms < min)) min = ms;
  }
  return min;
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
