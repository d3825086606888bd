// pods/eviction: deletes a pod unless a PodDisruptionBudget would be violated (429). As kube-apiserver does,
// an allowed eviction first takes one disruption from the budget's status (disruptionsAllowed - 1, the pod
// recorded in disruptedPods), so parallel evictions cannot both spend the last allowed disruption.
import type { PodDisruptionBudget } from '../generated/k8s/policy/v1.js';
import type { Pod } from '../generated/k8s/core/v1.js';
import { ApiError, tooManyRequests } from '../machinery/errors.js';
import { isPodReady } from '../machinery/conditions.js';
import { labelSelectorMatches } from '../machinery/labels.js';
import { unpinned, type KObject } from '../machinery/types.js';
import type { DeleteOptions, Registry } from './registry.js';
import type { ResourceDef } from './resource.js';
import { rfc3339 } from '../util/clock.js';
import { drive, settled, type Steps } from '../util/steps.js';

const maxDisruptedPods = 2000;

const violation = (pdb: PodDisruptionBudget) => tooManyRequests('Cannot evict pod as it would violate the pod\'s disruption budget.', {
  causes: [{ reason: 'DisruptionBudget', message: `The disruption budget ${pdb.metadata?.name} needs ${pdb.status?.desiredHealthy ?? 0} healthy pods and has ${pdb.status?.currentHealthy ?? 0} currently` }],
});

/** Takes one disruption from the budget, or throws 429. Unhealthy pods may go without spending one while the budget is met. */
function* spendDisruption(reg: Registry, pdb: PodDisruptionBudget, pod: Pod, dryRun: boolean): Steps<void> {
  const st = pdb.status;
  if (!st || (st.observedGeneration ?? 0) < (pdb.metadata?.generation ?? 0)) throw violation(pdb);
  const healthyEnough = (st.currentHealthy ?? 0) >= (st.desiredHealthy ?? 0) && (st.desiredHealthy ?? 0) >= 0;
  if (!isPodReady(pod) && pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow') return;
  if (!isPodReady(pod) && healthyEnough) return;
  if ((st.disruptionsAllowed ?? 0) < 0) throw new ApiError(403, 'Forbidden', 'pdb disruptions allowed is negative');
  if (Object.keys(st.disruptedPods ?? {}).length > maxDisruptedPods) throw new ApiError(403, 'Forbidden', 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  if ((st.disruptionsAllowed ?? 0) === 0) throw violation(pdb);
  if (dryRun) return;
  const def = reg.find('policy', 'v1', 'poddisruptionbudgets')!;
  const podName = pod.metadata?.name ?? '';
  yield* settled(reg.update(def, pdb.metadata?.namespace ?? '', pdb.metadata?.name ?? '', (cur) => {
    const status = { ...((cur.status ?? {}) as Record<string, unknown>) } as { disruptionsAllowed?: number; disruptedPods?: Record<string, string> };
    if ((status.disruptionsAllowed ?? 0) < 1) throw violation(cur as PodDisruptionBudget);
    status.disruptionsAllowed = (status.disruptionsAllowed ?? 0) - 1;
    status.disruptedPods = { ...(status.disruptedPods ?? {}), [podName]: rfc3339(reg.clock.now()) };
    // A budget changed meanwhile is judged again, as upstream's eviction retries on a conflict.
    return unpinned({ ...cur, status } as KObject);
  }, { subresource: 'status', webhooks: false }));
}

/**
 * Evicts a pod (`opts`: the Eviction's deleteOptions, decoded); throws 429 when a disruption budget forbids it. A
 * promise only on a store that waits (etcd).
 */
export function evictPod(reg: Registry, namespace: string, name: string, opts: DeleteOptions, dryRun: boolean): void | Promise<void> {
  return drive(evictSteps(reg, namespace, name, opts, dryRun));
}

function* evictSteps(reg: Registry, namespace: string, name: string, opts: DeleteOptions, dryRun: boolean): Steps<void> {
  const podDef = reg.find('', 'v1', 'pods')!;
  const pod = reg.get(podDef, namespace, name) as Pod;
  const phase = pod.status?.phase;
  const ignoresBudgets = phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata?.deletionTimestamp;
  if (!ignoresBudgets) {
    const pdbs = reg.listStored('policy/poddisruptionbudgets', namespace) as PodDisruptionBudget[];
    const matching = pdbs.filter((p) => labelSelectorMatches(p.spec?.selector, pod.metadata?.labels));
    if (matching.length > 1) {
      throw tooManyRequests('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    }
    if (matching[0]) yield* spendDisruption(reg, matching[0], pod, dryRun);
  }
  if (!dryRun && !opts.dryRun) yield* settled(markDisruptionTarget(reg, podDef, namespace, name, opts.preconditions?.uid));
  yield* settled(reg.delete(podDef, namespace, name, { ...opts, dryRun: dryRun || opts.dryRun, webhooks: false }));
}

/** As kube-apiserver does before an allowed eviction deletes the pod: DisruptionTarget=True on the pod's status. */
function markDisruptionTarget(reg: Registry, podDef: ResourceDef, namespace: string, name: string, uid: string | undefined): KObject | Promise<KObject> {
  return reg.update(podDef, namespace, name, (cur) => {
    const pod = cur as Pod;
    if (uid && pod.metadata?.uid !== uid) return cur; // the delete's precondition reports the conflict
    const conds = (pod.status?.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget');
    const old = pod.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
    const next = { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting',
      lastTransitionTime: old?.status === 'True' ? old.lastTransitionTime : rfc3339(reg.clock.now()) };
    return unpinned({ ...cur, status: { ...(cur.status as Record<string, unknown>), conditions: [...conds, next] } } as KObject);
  }, { subresource: 'status', webhooks: false });
}
