// NodeAffinity: nodeSelector and required node affinity filter; preferred terms score.
import type { Pod } from '../../generated/k8s/core/v1.js';
import { matchesSelector, type Requirement } from '../../machinery/labels.js';
import { defaultNormalize, type CycleState, type Failure, type FilterPlugin, type ScorePlugin } from '../framework.js';
import type { NodeInfo } from '../node-info.js';
import { nodeTermMatches, nodeTerms, type NodeTerm } from '../pod-info.js';

export interface RequiredNodeAffinity {
  selector: Requirement[];
  terms: NodeTerm[] | undefined;
}

export function requiredNodeAffinity(pod: Pod): RequiredNodeAffinity {
  const selector: Requirement[] = Object.entries(pod.spec?.nodeSelector ?? {}).map(([key, v]) => ({ key, op: 'Equals', values: [v] }));
  const req = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return { selector, terms: req ? nodeTerms(req.nodeSelectorTerms) : undefined };
}

export function nodeMatchesRequired(r: RequiredNodeAffinity, n: NodeInfo): boolean {
  if (r.selector.length && !matchesSelector(r.selector, n.labels)) return false;
  if (r.terms && !r.terms.some((t) => nodeTermMatches(t, n.labels, n.name))) return false;
  return true;
}

/** The pod's required node affinity, computed once per attempt. */
export function requiredOf(s: CycleState): RequiredNodeAffinity {
  let r = s.get<RequiredNodeAffinity>('NodeAffinity');
  if (!r) s.data.set('NodeAffinity', (r = requiredNodeAffinity(s.pi.pod)));
  return r;
}

const mismatch: Failure = { plugin: 'NodeAffinity', code: 'UnschedulableAndUnresolvable', reasons: ["node(s) didn't match Pod's node affinity/selector"] };

export const nodeAffinityFilter: FilterPlugin = {
  name: 'NodeAffinity',
  preFilter(s) {
    requiredOf(s);
  },
  filter(s, n) {
    const r = requiredOf(s);
    if (!r.selector.length && !r.terms) return undefined;
    return nodeMatchesRequired(r, n) ? undefined : mismatch;
  },
  skips(s) {
    const r = requiredOf(s);
    return !r.selector.length && !r.terms;
  },
};

interface Preferred {
  weight: number;
  term: NodeTerm;
}

export const nodeAffinityScore: ScorePlugin = {
  name: 'NodeAffinity',
  weight: 2,
  preScore(s) {
    const prefs = s.pi.pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
    if (!prefs.length) return false;
    s.data.set('NodeAffinityPreferred', prefs.map((p) => ({ weight: p.weight, term: nodeTerms([p.preference])[0] })));
    return true;
  },
  score(s, n) {
    let total = 0;
    for (const p of s.get<Preferred[]>('NodeAffinityPreferred') ?? []) if (p.weight && nodeTermMatches(p.term, n.labels, n.name)) total += p.weight;
    return total;
  },
  normalize(_s, _f, scores) {
    defaultNormalize(scores, false);
  },
};
