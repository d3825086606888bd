// The VPA admission step (upstream's admission-controller webhook, in process): a pod created under a controller
// that a VPA targets, in any mode but Off, gets the recommended requests (and limits kept in proportion for
// RequestsAndLimits), the `vpaUpdates` annotation saying what changed and `vpaObservedContainers`.
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../../admission/types.js';
import type { Client } from '../../client/client.js';
import { resourceNames } from './amounts.js';
import { containerResourcesForPod, processForPod, setAmounts } from './policy.js';
import { podMatches, stronger, targetSelector, targets, topController } from './target.js';
import { annotations, updateModeOf, vpaRef, type Vpa } from './types.js';

/** The VPA controlling a pod: the oldest one whose target is the pod's topmost controller and whose selector matches it. */
export function controllingVpa(client: Client, pod: Pod, ns: string, vpas: Vpa[] = client.list<Vpa>(vpaRef, ns), skipOff = true): Vpa | undefined {
  if (!vpas.length) return undefined;
  const top = topController(client, pod, ns);
  if (!top) return undefined;
  let best: Vpa | undefined;
  for (const vpa of vpas) {
    if (!targets(vpa, top) || (skipOff && updateModeOf(vpa) === 'Off')) continue;
    const sel = targetSelector(client, vpa);
    if ('error' in sel || !podMatches(sel.selector, pod)) continue;
    if (stronger(vpa, best)) best = vpa;
  }
  return best;
}

/** Sets the recommended resources on the pod in place; returns whether the VPA matched (annotations written). */
export function applyRecommendation(vpa: Vpa, pod: Pod): boolean {
  const meta = (pod.metadata ??= {});
  const ann = (meta.annotations ??= {});
  const processed = processForPod(vpa, pod);
  const resources = containerResourcesForPod(vpa, pod, processed);
  const updates: string[] = [];
  (pod.spec?.containers ?? []).forEach((c, i) => {
    const r = resources[i];
    if (!r || updateModeOf(vpa) === 'Off') return;
    const said = [...r.notes];
    const res = (c.resources ??= {});
    if (Object.keys(r.requests).length) {
      setAmounts((res.requests ??= {}) as Record<string, unknown>, r.requests);
      said.push(...resourceNames.filter((n) => r.requests[n] !== undefined).map((n) => `${n} request`));
    }
    if (r.limits && Object.keys(r.limits).length) {
      setAmounts((res.limits ??= {}) as Record<string, unknown>, r.limits);
      said.push(...resourceNames.filter((n) => r.limits![n] !== undefined).map((n) => `${n} limit`));
    }
    if (said.length > r.notes.length) updates.push(`container ${i}: ${said.join(', ')}`);
  });
  if (updates.length) ann[annotations.updates] = `Pod resources updated by ${vpa.metadata.name ?? ''}: ${updates.join('; ')}`;
  ann[annotations.observedContainers] = (pod.spec?.containers ?? []).map((c) => c.name).join(', ');
  return true;
}

function isPodCreate(a: AdmissionAttributes): boolean {
  return a.operation === 'CREATE' && a.subresource === '' && a.def.group === '' && a.def.plural === 'pods' && !!a.object;
}

/** The mutating admission plugin that stands in for upstream's vpa-admission-controller. */
export function vpaPodAdmission(client: Client): AdmissionPlugin {
  return {
    name: 'VerticalPodAutoscaler',
    handles: (a) => isPodCreate(a) && client.count(vpaRef) > 0,
    mutate(a) {
      if (!isPodCreate(a)) return;
      const pod = a.object as Pod;
      // Upstream's webhook is registered with failurePolicy Ignore: a failure here never refuses the pod.
      try {
        const vpa = controllingVpa(client, pod, a.namespace);
        if (vpa) applyRecommendation(vpa, pod);
      } catch (err) {
        client.log.warn({ err }, 'the VPA admission step failed; the pod is admitted unchanged');
      }
    },
  };
}
