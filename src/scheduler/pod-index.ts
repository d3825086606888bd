// Indexes of assigned pods so InterPodAffinity looks only at pods that can match, not at every pod.
import { labelIndexKey } from '../machinery/labels.js';
import type { NodeInfo } from './node-info.js';
import type { AffinityTerm, PodInfo } from './pod-info.js';
import { TermCounts, type TermGroup } from './term-counts.js';

/** `key=value` when the term's selector requires one label value (matchLabels or In with one value). */
export function termIndexKey(t: AffinityTerm): string | undefined {
  return t.selector ? labelIndexKey(t.selector) : undefined;
}

function addTo(m: Map<string, Set<PodInfo>>, k: string, pi: PodInfo): void {
  let s = m.get(k);
  if (!s) m.set(k, (s = new Set()));
  s.add(pi);
}
function removeFrom(m: Map<string, Set<PodInfo>>, k: string, pi: PodInfo): void {
  const s = m.get(k);
  if (!s) return;
  s.delete(pi);
  if (!s.size) m.delete(k);
}

const empty: ReadonlySet<PodInfo> = new Set();

export class PodIndex {
  private readonly byLabel = new Map<string, Set<PodInfo>>();
  private readonly antiByKey = new Map<string, Set<PodInfo>>();
  private readonly antiUnindexed = new Set<PodInfo>();
  /** Pods whose terms can add to another pod's InterPodAffinity score. */
  readonly scoring = new Set<PodInfo>();
  private readonly nodeOfPod = new Map<PodInfo, NodeInfo>();
  /** Anti-affinity groups and match counts kept per add and remove (see term-counts.ts). */
  readonly terms = new TermCounts();

  add(pi: PodInfo, n: NodeInfo): void {
    this.nodeOfPod.set(pi, n);
    this.terms.add(pi, n);
    for (const k in pi.labels) addTo(this.byLabel, `${k}=${pi.labels[k]}`, pi);
    for (const t of pi.requiredAntiAffinity) {
      const key = termIndexKey(t);
      if (key) addTo(this.antiByKey, key, pi);
      else this.antiUnindexed.add(pi);
    }
    if (pi.requiredAffinity.length || pi.preferredAffinity.length || pi.preferredAntiAffinity.length) this.scoring.add(pi);
  }

  remove(pi: PodInfo): void {
    if (!this.nodeOfPod.delete(pi)) return;
    this.terms.remove(pi);
    for (const k in pi.labels) removeFrom(this.byLabel, `${k}=${pi.labels[k]}`, pi);
    for (const t of pi.requiredAntiAffinity) {
      const key = termIndexKey(t);
      if (key) removeFrom(this.antiByKey, key, pi);
    }
    this.antiUnindexed.delete(pi);
    this.scoring.delete(pi);
  }

  nodeOf(pi: PodInfo): NodeInfo | undefined {
    return this.nodeOfPod.get(pi);
  }

  withLabel(key: string): ReadonlySet<PodInfo> {
    return this.byLabel.get(key) ?? empty;
  }

  /** Existing pods' required anti-affinity terms, one group per distinct term, with their counts per topology value. */
  antiGroups(): Iterable<TermGroup> {
    return this.terms.antiGroups.values();
  }

  /** Pods with a required anti-affinity term that could select a pod with these labels. */
  antiCandidates(labels: Record<string, string>): Set<PodInfo> {
    const out = new Set<PodInfo>(this.antiUnindexed);
    for (const k in labels) for (const p of this.antiByKey.get(`${k}=${labels[k]}`) ?? empty) out.add(p);
    return out;
  }
}
