// InterPodAffinity: required affinity/anti-affinity (both directions) as a filter, preferred terms as a score.
import type { CycleState, Failure, FilterPlugin, ScorePlugin } from '../framework.js';
import type { NodeInfo } from '../node-info.js';
import { termMatches, type AffinityTerm, type PodInfo } from '../pod-info.js';
import { termIndexKey } from '../pod-index.js';
import type { TermGroup } from '../term-counts.js';

/** Counts by topology key, then value. */
type TopologyCounts = Map<string, Map<string, number>>;

function bump(m: TopologyCounts, key: string, value: string, by: number): void {
  let inner = m.get(key);
  if (!inner) m.set(key, (inner = new Map()));
  const v = (inner.get(value) ?? 0) + by;
  if (v === 0) inner.delete(value);
  else inner.set(value, v);
  if (inner.size === 0) m.delete(key);
}
const countOf = (m: TopologyCounts, key: string, value: string) => m.get(key)?.get(value) ?? 0;

interface State {
  skip: boolean;
  /** Existing pods whose required anti-affinity selects the incoming pod. */
  existingAnti: TopologyCounts;
  /** Existing pods matching all of the incoming pod's required affinity terms. */
  affinity: TopologyCounts;
  affinityTotal: number;
  /** Existing pods matching one of the incoming pod's required anti-affinity terms (per term). */
  anti: TopologyCounts;
  /** From the index: groups of existing pods' anti-affinity terms that select the incoming pod (live counts). */
  existingGroups: TermGroup[];
  /** From the index: per incoming anti-affinity term, the live counts of the pods it selects. */
  antiCounts: Array<{ topologyKey: string; counts: ReadonlyMap<string, number> }>;
}

/** Existing pods whose anti-affinity selects the incoming pod at `key=value`: index counts plus this cycle's changes. */
function existingAntiAt(st: State, key: string, value: string): number {
  let n = countOf(st.existingAnti, key, value);
  for (const g of st.existingGroups) if (g.term.topologyKey === key) n += g.counts.get(value) ?? 0;
  return n;
}

/** Existing pods an incoming anti-affinity term selects at `key=value`: index counts plus scanned and simulated ones. */
function antiAt(st: State, key: string, value: string): number {
  let n = countOf(st.anti, key, value);
  for (const c of st.antiCounts) if (c.topologyKey === key) n += c.counts.get(value) ?? 0;
  return n;
}

const key = 'InterPodAffinity';

function matchesAll(terms: AffinityTerm[], pi: PodInfo, s: CycleState): boolean {
  return terms.every((t) => termMatches(t, pi, s.lookups.nsLabels));
}

/** Adds (by = 1) or removes (by = -1) an existing pod's contribution. */
function account(st: State, s: CycleState, existing: PodInfo, n: NodeInfo, by: number): void {
  const incoming = s.pi;
  for (const t of existing.requiredAntiAffinity) {
    const v = n.labels[t.topologyKey];
    if (v !== undefined && termMatches(t, incoming, s.lookups.nsLabels)) bump(st.existingAnti, t.topologyKey, v, by);
  }
  if (incoming.requiredAffinity.length && matchesAll(incoming.requiredAffinity, existing, s)) {
    for (const t of incoming.requiredAffinity) {
      const v = n.labels[t.topologyKey];
      if (v !== undefined) {
        bump(st.affinity, t.topologyKey, v, by);
        st.affinityTotal += by;
      }
    }
  }
  for (const t of incoming.requiredAntiAffinity) {
    const v = n.labels[t.topologyKey];
    if (v !== undefined && termMatches(t, existing, s.lookups.nsLabels)) bump(st.anti, t.topologyKey, v, by);
  }
}

const affinityMismatch: Failure = { plugin: key, code: 'UnschedulableAndUnresolvable', reasons: ["node(s) didn't match pod affinity rules"] };
const antiMismatch: Failure = { plugin: key, code: 'Unschedulable', reasons: ["node(s) didn't match pod anti-affinity rules"] };
const existingAntiMismatch: Failure = { plugin: key, code: 'Unschedulable', reasons: ["node(s) didn't satisfy existing pods anti-affinity rules"] };

/** Every assigned pod with its node, or (with the index) only those carrying the label `indexKey`. */
function* candidates(s: CycleState, indexKey: string | undefined): Generator<[PodInfo, NodeInfo]> {
  const idx = s.lookups.index;
  if (idx && indexKey !== undefined) {
    for (const p of idx.withLabel(indexKey)) {
      const n = idx.nodeOf(p);
      if (n?.node) yield [p, n];
    }
    return;
  }
  for (const n of s.allNodes) for (const p of n.pods.values()) yield [p, n];
}

function preFilter(s: CycleState): void {
  const st: State = { skip: false, existingAnti: new Map(), affinity: new Map(), affinityTotal: 0, anti: new Map(), existingGroups: [], antiCounts: [] };
  const pi = s.pi;
  const nsLabels = s.lookups.nsLabels;
  const idx = s.lookups.index;
  // Existing pods whose required anti-affinity selects the incoming pod.
  const countExisting = (e: PodInfo, n: NodeInfo) => {
    for (const t of e.requiredAntiAffinity) {
      const v = n.labels[t.topologyKey];
      if (v !== undefined && termMatches(t, pi, nsLabels)) bump(st.existingAnti, t.topologyKey, v, 1);
    }
  };
  if (idx) {
    // One match per distinct term, not one per existing pod.
    for (const g of idx.antiGroups()) if (g.counts.size && termMatches(g.term, pi, nsLabels)) st.existingGroups.push(g);
  } else for (const n of s.allNodes) for (const e of n.podsWithRequiredAnti) countExisting(e, n);
  // Existing pods matching all of the incoming pod's required affinity terms.
  if (pi.requiredAffinity.length) {
    for (const [e, n] of candidates(s, termIndexKey(pi.requiredAffinity[0]))) {
      if (!matchesAll(pi.requiredAffinity, e, s)) continue;
      for (const t of pi.requiredAffinity) {
        const v = n.labels[t.topologyKey];
        if (v === undefined) continue;
        bump(st.affinity, t.topologyKey, v, 1);
        st.affinityTotal++;
      }
    }
  }
  // Existing pods matching one of the incoming pod's required anti-affinity terms.
  for (const t of pi.requiredAntiAffinity) {
    const counts = idx?.terms.matchCounts(t, () => candidates(s, termIndexKey(t)));
    if (counts) {
      st.antiCounts.push({ topologyKey: t.topologyKey, counts });
      continue;
    }
    for (const [e, n] of candidates(s, termIndexKey(t))) {
      const v = n.labels[t.topologyKey];
      if (v !== undefined && termMatches(t, e, nsLabels)) bump(st.anti, t.topologyKey, v, 1);
    }
  }
  st.skip = !pi.requiredAffinity.length && !pi.requiredAntiAffinity.length && st.existingAnti.size === 0 && st.existingGroups.length === 0;
  s.data.set(key, st);
}

export const interPodAffinityFilter: FilterPlugin = {
  name: key,
  preFilter,
  filter(s, n) {
    const st = s.get<State>(key);
    if (!st || st.skip) return undefined;
    const pi = s.pi;
    if (pi.requiredAffinity.length) {
      let exist = true;
      for (const t of pi.requiredAffinity) {
        const v = n.labels[t.topologyKey];
        if (v === undefined) return affinityMismatch;
        if (countOf(st.affinity, t.topologyKey, v) <= 0) exist = false;
      }
      // The first pod of a group that selects itself may go anywhere its topology keys exist.
      if (!exist && !(st.affinityTotal === 0 && matchesAll(pi.requiredAffinity, pi, s))) return affinityMismatch;
    }
    for (const t of pi.requiredAntiAffinity) {
      const v = n.labels[t.topologyKey];
      if (v !== undefined && antiAt(st, t.topologyKey, v) > 0) return antiMismatch;
    }
    for (const g of st.existingGroups) {
      const v = n.labels[g.term.topologyKey];
      if (v !== undefined && existingAntiAt(st, g.term.topologyKey, v) > 0) return existingAntiMismatch;
    }
    for (const tk of st.existingAnti.keys()) {
      const v = n.labels[tk];
      if (v !== undefined && existingAntiAt(st, tk, v) > 0) return existingAntiMismatch;
    }
    return undefined;
  },
  skips(s) {
    const st = s.get<State>(key);
    return !st || st.skip;
  },
  addPod(s, p, n) {
    const st = s.get<State>(key);
    if (st) {
      st.skip = false;
      account(st, s, p, n, 1);
    }
  },
  removePod(s, p, n) {
    const st = s.get<State>(key);
    if (st && !st.skip) account(st, s, p, n, -1);
  },
};

const scoreKey = 'InterPodAffinityScore';
const hardPodAffinityWeight = 1;

function addTerm(m: TopologyCounts, t: AffinityTerm, target: PodInfo, n: NodeInfo, weight: number, s: CycleState): void {
  const v = n.labels[t.topologyKey];
  if (v !== undefined && termMatches(t, target, s.lookups.nsLabels)) bump(m, t.topologyKey, v, weight);
}

export const interPodAffinityScore: ScorePlugin = {
  name: key,
  weight: 2,
  preScore(s) {
    const pi = s.pi;
    const own = pi.preferredAffinity.length > 0 || pi.preferredAntiAffinity.length > 0;
    const m: TopologyCounts = new Map();
    let any = own;
    const idx = s.lookups.index;
    const visit = (e: PodInfo, n: NodeInfo) => {
      if (own) {
        for (const t of pi.preferredAffinity) addTerm(m, t, e, n, t.weight, s);
        for (const t of pi.preferredAntiAffinity) addTerm(m, t, e, n, -t.weight, s);
      }
      if (!e.requiredAffinity.length && !e.preferredAffinity.length && !e.preferredAntiAffinity.length) return;
      any = true;
      for (const t of e.requiredAffinity) addTerm(m, t, pi, n, hardPodAffinityWeight, s);
      for (const t of e.preferredAffinity) addTerm(m, t, pi, n, t.weight, s);
      for (const t of e.preferredAntiAffinity) addTerm(m, t, pi, n, -t.weight, s);
    };
    if (!own && idx) {
      for (const e of idx.scoring) {
        const n = idx.nodeOf(e);
        if (n?.node) visit(e, n);
      }
    } else for (const n of s.allNodes) {
      const pods = own ? n.pods.values() : n.podsWithAffinity.values();
      for (const e of pods) visit(e, n);
    }
    if (!any || m.size === 0) return false;
    s.data.set(scoreKey, m);
    return true;
  },
  score(s, n) {
    const m = s.get<TopologyCounts>(scoreKey)!;
    let total = 0;
    for (const [tk, values] of m) {
      const v = n.labels[tk];
      if (v !== undefined) total += values.get(v) ?? 0;
    }
    return total;
  },
  normalize(_s, _f, scores) {
    let min = Infinity;
    let max = -Infinity;
    for (const v of scores) {
      if (v < min) min = v;
      if (v > max) max = v;
    }
    const diff = max - min;
    for (let i = 0; i < scores.length; i++) scores[i] = diff > 0 ? Math.trunc((100 * (scores[i] - min)) / diff) : 0;
  },
};
