// TaintToleration: NoSchedule/NoExecute taints filter, PreferNoSchedule taints score.
import type { Toleration } from '../../generated/k8s/core/v1.js';
import { tolerates } from '../../machinery/conditions.js';
import { defaultNormalize, type FilterPlugin, type ScorePlugin } from '../framework.js';

interface TaintLike {
  key: string;
  value?: string;
  effect: string;
}

/** The first NoSchedule/NoExecute taint none of the tolerations tolerate. */
export function untoleratedTaint(taints: TaintLike[], tolerations: Toleration[]): TaintLike | undefined {
  for (const taint of taints) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!tolerations.some((t) => tolerates(t, taint))) return taint;
  }
  return undefined;
}

export const taintTolerationFilter: FilterPlugin = {
  name: 'TaintToleration',
  filter(s, n) {
    if (!n.taints.length) return undefined;
    const taint = untoleratedTaint(n.taints, s.pi.tolerations);
    if (!taint) return undefined;
    return { plugin: 'TaintToleration', code: 'UnschedulableAndUnresolvable', reasons: [`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`] };
  },
};

export const taintTolerationScore: ScorePlugin = {
  name: 'TaintToleration',
  weight: 3,
  score(s, n) {
    let count = 0;
    for (const taint of n.taints) {
      if (taint.effect !== 'PreferNoSchedule') continue;
      if (!s.pi.tolerations.some((t) => (!t.effect || t.effect === 'PreferNoSchedule') && tolerates(t, taint))) count++;
    }
    return count;
  },
  normalize(_s, _f, scores) {
    defaultNormalize(scores, true);
  },
};
