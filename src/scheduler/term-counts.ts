// Counts the scheduler keeps up to date as pods are assigned and removed, so InterPodAffinity does not look at every
// pod for every pod it places:
// - anti groups: existing pods' required anti-affinity terms, grouped by term, counted per value of the term's
//   topology key (an incoming pod matches one term per group instead of one per existing pod);
// - match counts: for a required anti-affinity term an incoming pod carries, the assigned pods it selects, per
//   topology value; built on first use from the label index, then kept per add and remove (bounded; terms with a
//   namespaceSelector are not cached, since namespace labels may change under them).
// Only pods on nodes with a Node object count, as the scan does; the cache re-files a node's pods when its labels
// or its presence change.
import type { NodeInfo } from './node-info.js';
import { termMatches, type AffinityTerm, type PodInfo } from './pod-info.js';

export interface TermGroup {
  term: AffinityTerm;
  /** Per value of term.topologyKey. */
  counts: Map<string, number>;
  /** Contributions filed (a pod with the term twice counts twice). */
  members: number;
}

const signatures = new WeakMap<AffinityTerm, string>();
/** What makes two terms count the same pods: topology key, selector and namespaces. */
export function termSignature(t: AffinityTerm): string {
  let s = signatures.get(t);
  if (s === undefined) {
    s = JSON.stringify([t.topologyKey, t.selector ?? null, [...t.namespaces].sort(), t.nsSelector ?? null]);
    signatures.set(t, s);
  }
  return s;
}

function bump(counts: Map<string, number>, value: string, by: number): void {
  const v = (counts.get(value) ?? 0) + by;
  if (v === 0) counts.delete(value);
  else counts.set(value, v);
}

const noNamespaceLabels = () => undefined;
/** Match counts kept at once; past it they are dropped and rebuilt as asked for. */
export const maxMatchTerms = 256;

type Filed = Array<[TermGroup, string | undefined]>;

export class TermCounts {
  readonly antiGroups = new Map<string, TermGroup>();
  private readonly antiFiled = new Map<PodInfo, Filed>();
  private readonly matchGroups = new Map<string, TermGroup>();
  private readonly matchFiled = new Map<PodInfo, Filed>();

  add(pi: PodInfo, n: NodeInfo): void {
    const value = (t: AffinityTerm) => (n.node ? n.labels[t.topologyKey] : undefined);
    if (pi.requiredAntiAffinity.length) {
      const filed: Filed = [];
      for (const t of pi.requiredAntiAffinity) {
        const sig = termSignature(t);
        let g = this.antiGroups.get(sig);
        if (!g) this.antiGroups.set(sig, (g = { term: t, counts: new Map(), members: 0 }));
        const v = value(t);
        g.members++;
        if (v !== undefined) bump(g.counts, v, 1);
        filed.push([g, v]);
      }
      this.antiFiled.set(pi, filed);
    }
    if (this.matchGroups.size) {
      let filed: Filed | undefined;
      for (const g of this.matchGroups.values()) {
        if (!termMatches(g.term, pi, noNamespaceLabels)) continue;
        const v = value(g.term);
        if (v === undefined) continue;
        bump(g.counts, v, 1);
        (filed ??= []).push([g, v]);
      }
      if (filed) this.matchFiled.set(pi, filed);
    }
  }

  remove(pi: PodInfo): void {
    const anti = this.antiFiled.get(pi);
    if (anti) {
      this.antiFiled.delete(pi);
      for (const [g, v] of anti) {
        if (v !== undefined) bump(g.counts, v, -1);
        if (--g.members === 0 && this.antiGroups.get(termSignature(g.term)) === g) this.antiGroups.delete(termSignature(g.term));
      }
    }
    const matched = this.matchFiled.get(pi);
    if (matched) {
      this.matchFiled.delete(pi);
      // A group dropped meanwhile is unreachable: counting it down is harmless.
      for (const [g, v] of matched) if (v !== undefined) bump(g.counts, v, -1);
    }
  }

  /**
   * The assigned pods `t` selects, per topology value (shared: never mutate), or undefined when the term is not
   * cached (namespaceSelector). `scan` lists the candidates with their nodes when the counts are first built.
   */
  matchCounts(t: AffinityTerm, scan: () => Iterable<[PodInfo, NodeInfo]>): ReadonlyMap<string, number> | undefined {
    if (t.nsSelector !== undefined || !t.selector) return undefined;
    const sig = termSignature(t);
    const known = this.matchGroups.get(sig);
    if (known) return known.counts;
    if (this.matchGroups.size >= maxMatchTerms) {
      this.matchGroups.clear();
      this.matchFiled.clear();
    }
    const g: TermGroup = { term: t, counts: new Map(), members: 0 };
    for (const [e, n] of scan()) {
      if (!n.node || !termMatches(t, e, noNamespaceLabels)) continue;
      const v = n.labels[t.topologyKey];
      if (v === undefined) continue;
      bump(g.counts, v, 1);
      let filed = this.matchFiled.get(e);
      if (!filed) this.matchFiled.set(e, (filed = []));
      filed.push([g, v]);
    }
    this.matchGroups.set(sig, g);
    return g.counts;
  }
}
