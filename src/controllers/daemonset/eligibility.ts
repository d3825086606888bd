// Which nodes a DaemonSet's pod belongs on (upstream NodeShouldRunDaemonPod), the tolerations every daemon pod
// gets, and the node affinity that pins a daemon pod to its node for the scheduler.
import type { DaemonSet } from '../../generated/k8s/apps/v1.js';
import type { Affinity, Node, NodeSelectorRequirement, PodSpec, Taint, Toleration } from '../../generated/k8s/core/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import { tolerates } from '../../machinery/conditions.js';
import { matchesSelector, type Requirement } from '../../machinery/labels.js';
import { taintKeys } from '../node-taints.js';

/** Tolerations the controller adds to every daemon pod so node problems neither evict nor block it. */
export function daemonTolerations(spec: PodSpec): Toleration[] {
  const want: Toleration[] = [
    { key: taintKeys.notReady, operator: 'Exists', effect: 'NoExecute' },
    { key: taintKeys.unreachable, operator: 'Exists', effect: 'NoExecute' },
    { key: taintKeys.diskPressure, operator: 'Exists', effect: 'NoSchedule' },
    { key: taintKeys.memoryPressure, operator: 'Exists', effect: 'NoSchedule' },
    { key: taintKeys.pidPressure, operator: 'Exists', effect: 'NoSchedule' },
    { key: taintKeys.unschedulable, operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (spec.hostNetwork) want.push({ key: taintKeys.networkUnavailable, operator: 'Exists', effect: 'NoSchedule' });
  return want;
}

/**
 * Adds the daemon tolerations to a pod spec, replacing a toleration with the same key, operator, value and
 * effect (as upstream's AddOrUpdateTolerationInPodSpec does: an equal one is kept as is).
 */
export function addDaemonTolerations(spec: PodSpec): void {
  const list = [...(spec.tolerations ?? [])];
  for (const t of daemonTolerations(spec)) {
    const same = list.findIndex((x) => x.key === t.key && (x.operator ?? 'Equal') === t.operator && (x.value ?? '') === '' && x.effect === t.effect);
    if (same >= 0) list[same] = t;
    else list.push(t);
  }
  spec.tolerations = list;
}

function untolerated(taints: Taint[], tolerations: Toleration[], effects: string[]): boolean {
  return taints.some((taint) => effects.includes(taint.effect) && !tolerations.some((t) => tolerates(t, taint)));
}

const toRequirement = (e: NodeSelectorRequirement): Requirement => ({ key: e.key, op: e.operator as Requirement['op'], values: e.values ?? [] });

/** The template's nodeSelector and required node affinity against a node (terms are ORed, expressions ANDed). */
export function fitsNodeAffinity(spec: PodSpec | undefined, node: Node): boolean {
  const labels = (node.metadata?.labels ?? {}) as Record<string, string>;
  for (const [k, v] of Object.entries(spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const req = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!req) return true;
  return (req.nodeSelectorTerms ?? []).some((term) => {
    const exprs = term.matchExpressions ?? [];
    const fields = term.matchFields ?? [];
    if (!exprs.length && !fields.length) return false;
    if (exprs.length && !matchesSelector(exprs.map(toRequirement), labels)) return false;
    return fields.every((f) => f.key === 'metadata.name' && matchesSelector([{ ...toRequirement(f), key: 'n' }], { n: node.metadata?.name ?? '' }));
  });
}

export interface Placement {
  /** A daemon pod should be created on the node when none is there. */
  shouldRun: boolean;
  /** A daemon pod already on the node may stay. */
  shouldContinueRunning: boolean;
}

/** Upstream NodeShouldRunDaemonPod: node name, node affinity, then NoSchedule/NoExecute taints against the pod's tolerations. */
export function placement(node: Node, ds: DaemonSet): Placement {
  const spec = structuredClone(ds.spec?.template?.spec ?? { containers: [] });
  const name = node.metadata?.name ?? '';
  if (spec.nodeName && spec.nodeName !== name) return { shouldRun: false, shouldContinueRunning: false };
  addDaemonTolerations(spec);
  if (!fitsNodeAffinity(spec, node)) return { shouldRun: false, shouldContinueRunning: false };
  const taints = (node.spec?.taints ?? []) as Taint[];
  const tolerations = spec.tolerations ?? [];
  if (!untolerated(taints, tolerations, ['NoSchedule', 'NoExecute'])) return { shouldRun: true, shouldContinueRunning: true };
  return { shouldRun: false, shouldContinueRunning: !untolerated(taints, tolerations, ['NoExecute']) };
}

/** Replaces the required node affinity with one term selecting exactly `nodeName` by metadata.name. */
export function pinToNode(affinity: Affinity | undefined, nodeName: string): Affinity {
  const required = { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }] };
  const a: Affinity = structuredClone(affinity ?? {});
  a.nodeAffinity = { ...(a.nodeAffinity ?? {}), requiredDuringSchedulingIgnoredDuringExecution: required };
  return a;
}

/** The node a daemon pod is for: spec.nodeName once bound, else the metadata.name In [x] term of its node affinity. */
export function targetNodeName(pod: Pod): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  for (const term of pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const f of term.matchFields ?? []) {
      if (f.key === 'metadata.name' && f.operator === 'In') return f.values?.length === 1 ? f.values[0] : undefined;
    }
  }
  return undefined;
}
