// pods/eviction: deletes a pod unless a PodDisruptionBudget would be violated (429).
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { tooManyRequests } from '../machinery/errors.js';
import { labelSelectorMatches } from '../machinery/labels.js';
import { isRecord } from '../machinery/types.js';
import type { Registry } from '../registry/registry.js';
import { deleteOptions } from './resource-handler.js';

export function evictPod(reg: Registry, namespace: string, name: string, eviction: Record<string, unknown>, dryRun: boolean): void {
  const podDef = reg.find('', 'v1', 'pods')!;
  const pod = reg.get(podDef, namespace, name);
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  const terminal = phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending';
  if (!terminal && !pod.metadata.deletionTimestamp) {
    const pdbs = reg.listStored('policy/poddisruptionbudgets', namespace) as unknown as PodDisruptionBudget[];
    const matching = pdbs.filter((p) => labelSelectorMatches(p.spec?.selector, pod.metadata.labels));
    if (matching.length > 1) {
      throw tooManyRequests('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    }
    const pdb = matching[0];
    if (pdb) {
      const st = pdb.status;
      if (!st || (st.observedGeneration ?? 0) < (pdb.metadata?.generation ?? 0) || (st.disruptionsAllowed ?? 0) < 1) {
        const msg = `The disruption budget ${pdb.metadata?.name} needs ${st?.desiredHealthy ?? 0} healthy pods and has ${st?.currentHealthy ?? 0} currently`;
        throw tooManyRequests('Cannot evict pod as it would violate the pod\'s disruption budget.', { causes: [{ reason: 'DisruptionBudget', message: msg }] });
      }
    }
  }
  const opts = deleteOptions({}, isRecord(eviction.deleteOptions) ? eviction.deleteOptions : undefined);
  reg.delete(podDef, namespace, name, { ...opts, dryRun: dryRun || opts.dryRun });
}
