// PodTopologySpread: DoNotSchedule constraints filter; ScheduleAnyway (or the system defaults) score.
import type { TopologySpreadConstraint } from '../../generated/k8s/core/v1.js';
import { fromLabelSelector, labelIndexKey, matchesSelector, type Selector } from '../../machinery/labels.js';
import type { CycleState, Failure, FilterPlugin, ScorePlugin } from '../framework.js';
import type { NodeInfo } from '../node-info.js';
import type { PodInfo } from '../pod-info.js';
import { nodeMatchesRequired, requiredOf } from './node-affinity.js';
import { untoleratedTaint } from './taint-toleration.js';

export interface Constraint {
  maxSkew: number;
  topologyKey: string;
  selector: Selector | undefined;
  minDomains: number;
  honorAffinity: boolean;
  honorTaints: boolean;
}

const hostname = 'kubernetes.io/hostname';

/** Upstream's system default constraints, used for scoring pods without constraints of their own. */
export const systemDefaults = [
  { topologyKey: hostname, maxSkew: 3 },
  { topologyKey: 'topology.kubernetes.io/zone', maxSkew: 5 },
];

export function constraintsOf(pi: PodInfo, action: 'DoNotSchedule' | 'ScheduleAnyway'): Constraint[] {
  const out: Constraint[] = [];
  for (const c of (pi.pod.spec?.topologySpreadConstraints ?? []) as TopologySpreadConstraint[]) {
    if (c.whenUnsatisfiable !== action) continue;
    let selector = fromLabelSelector(c.labelSelector);
    if (selector && c.matchLabelKeys?.length) {
      selector = [...selector];
      for (const k of c.matchLabelKeys) if (k in pi.labels) selector.push({ key: k, op: 'In', values: [pi.labels[k]] });
    }
    out.push({
      maxSkew: c.maxSkew, topologyKey: c.topologyKey, selector, minDomains: c.minDomains ?? 1,
      honorAffinity: (c.nodeAffinityPolicy ?? 'Honor') === 'Honor', honorTaints: c.nodeTaintsPolicy === 'Honor',
    });
  }
  return out;
}

const hasAllKeys = (n: NodeInfo, cs: Constraint[]) => cs.every((c) => n.labels[c.topologyKey] !== undefined);

function counted(s: CycleState, c: Constraint, n: NodeInfo): boolean {
  if (c.honorAffinity && !nodeMatchesRequired(requiredOf(s), n)) return false;
  if (c.honorTaints && untoleratedTaint(n.taints, s.pi.tolerations)) return false;
  return true;
}

const podCounts = (c: Constraint, p: PodInfo, ns: string) => !p.terminating && p.ns === ns && c.selector !== undefined && matchesSelector(c.selector, p.labels);

export function countMatching(c: Constraint, n: NodeInfo, ns: string): number {
  let k = 0;
  for (const p of n.pods.values()) if (podCounts(c, p, ns)) k++;
  return k;
}

/** Matching pods per node, counted from the cache's label index (undefined: the selector has no label to look up). */
function matchingByNode(s: CycleState, c: Constraint): Map<NodeInfo, number> | undefined {
  const idx = s.lookups.index;
  const indexKey = c.selector && idx ? labelIndexKey(c.selector) : undefined;
  if (indexKey === undefined) return undefined;
  const out = new Map<NodeInfo, number>();
  for (const p of idx!.withLabel(indexKey)) {
    if (!podCounts(c, p, s.pi.ns)) continue;
    const n = idx!.nodeOf(p);
    if (n) out.set(n, (out.get(n) ?? 0) + 1);
  }
  return out;
}

/** A counter of matching pods on a node: from the index when it can answer, by a scan of the node otherwise. */
function counter(s: CycleState, c: Constraint): (n: NodeInfo) => number {
  const byNode = matchingByNode(s, c);
  return byNode ? (n) => byNode.get(n) ?? 0 : (n) => countMatching(c, n, s.pi.ns);
}

interface FilterState {
  constraints: Constraint[];
  counts: Array<Map<string, number>>;
  mins: number[];
}
const key = 'PodTopologySpread';

function minMatch(st: FilterState, i: number): number {
  if (Number.isNaN(st.mins[i])) {
    let m = Infinity;
    for (const v of st.counts[i].values()) if (v < m) m = v;
    st.mins[i] = m;
  }
  return st.counts[i].size < st.constraints[i].minDomains ? 0 : st.mins[i];
}

const notMatch: Failure = { plugin: key, code: 'Unschedulable', reasons: ["node(s) didn't match pod topology spread constraints"] };
const missingLabel: Failure = { plugin: key, code: 'UnschedulableAndUnresolvable', reasons: ["node(s) didn't match pod topology spread constraints (missing required label)"] };

function update(s: CycleState, p: PodInfo, n: NodeInfo, by: number): void {
  const st = s.get<FilterState>(key);
  if (!st || !hasAllKeys(n, st.constraints)) return;
  st.constraints.forEach((c, i) => {
    if (!counted(s, c, n) || !podCounts(c, p, s.pi.ns)) return;
    const v = n.labels[c.topologyKey];
    st.counts[i].set(v, (st.counts[i].get(v) ?? 0) + by);
    st.mins[i] = NaN;
  });
}

export const topologySpreadFilter: FilterPlugin = {
  name: key,
  preFilter(s) {
    const constraints = constraintsOf(s.pi, 'DoNotSchedule');
    if (!constraints.length) return;
    const counts = constraints.map(() => new Map<string, number>());
    const matching = constraints.map((c) => counter(s, c));
    for (const n of s.allNodes) {
      if (!hasAllKeys(n, constraints)) continue;
      constraints.forEach((c, i) => {
        if (!counted(s, c, n)) return;
        const v = n.labels[c.topologyKey];
        counts[i].set(v, (counts[i].get(v) ?? 0) + matching[i](n));
      });
    }
    s.data.set(key, { constraints, counts, mins: constraints.map(() => NaN) } satisfies FilterState);
  },
  skips: (s) => !s.get<FilterState>(key),
  filter(s, n) {
    const st = s.get<FilterState>(key);
    if (!st) return undefined;
    for (let i = 0; i < st.constraints.length; i++) {
      const c = st.constraints[i];
      const v = n.labels[c.topologyKey];
      if (v === undefined) return missingLabel;
      const self = c.selector && matchesSelector(c.selector, s.pi.labels) ? 1 : 0;
      const skew = (st.counts[i].get(v) ?? 0) + self - minMatch(st, i);
      if (skew > c.maxSkew) return notMatch;
    }
    return undefined;
  },
  addPod: (s, p, n) => update(s, p, n, 1),
  removePod: (s, p, n) => update(s, p, n, -1),
};

interface ScoreState {
  constraints: Constraint[];
  counts: Array<Map<string, number>>;
  weights: number[];
  ignored: Set<string>;
  matching: Array<(n: NodeInfo) => number>;
}
const scoreKey = 'PodTopologySpreadScore';

export const topologySpreadScore: ScorePlugin = {
  name: key,
  weight: 2,
  preScore(s, feasible) {
    let constraints: Constraint[];
    const explicit = (s.pi.pod.spec?.topologySpreadConstraints?.length ?? 0) > 0;
    if (explicit) constraints = constraintsOf(s.pi, 'ScheduleAnyway');
    else {
      const selector = s.lookups.defaultSelector(s.pi.pod);
      if (!selector?.length) return false;
      constraints = systemDefaults.map((d) => ({ ...d, selector, minDomains: 1, honorAffinity: true, honorTaints: false }));
    }
    if (!constraints.length) return false;
    const ignored = new Set<string>();
    const counts = constraints.map(() => new Map<string, number>());
    const sizes = constraints.map(() => 0);
    for (const n of feasible) {
      if (explicit && !hasAllKeys(n, constraints)) {
        ignored.add(n.name);
        continue;
      }
      constraints.forEach((c, i) => {
        const v = n.labels[c.topologyKey];
        if (c.topologyKey === hostname || v === undefined || counts[i].has(v)) return;
        counts[i].set(v, 0);
        sizes[i]++;
      });
    }
    const weights = constraints.map((c, i) => Math.log((c.topologyKey === hostname ? feasible.length - ignored.size : sizes[i]) + 2));
    const matching = constraints.map((c) => counter(s, c));
    if (constraints.some((c) => c.topologyKey !== hostname)) {
      for (const n of s.allNodes) {
        if (explicit && !hasAllKeys(n, constraints)) continue;
        constraints.forEach((c, i) => {
          const v = n.labels[c.topologyKey];
          if (c.topologyKey === hostname || v === undefined || !counts[i].has(v) || !counted(s, c, n)) return;
          counts[i].set(v, counts[i].get(v)! + matching[i](n));
        });
      }
    }
    s.data.set(scoreKey, { constraints, counts, weights, ignored, matching } satisfies ScoreState);
    return true;
  },
  score(s, n) {
    const st = s.get<ScoreState>(scoreKey)!;
    if (st.ignored.has(n.name)) return 0;
    let score = 0;
    st.constraints.forEach((c, i) => {
      const v = n.labels[c.topologyKey];
      if (v === undefined) return;
      const cnt = c.topologyKey === hostname ? st.matching[i](n) : st.counts[i].get(v) ?? 0;
      score += cnt * st.weights[i] + (c.maxSkew - 1);
    });
    return Math.round(score);
  },
  normalize(s, feasible, scores) {
    const st = s.get<ScoreState>(scoreKey)!;
    let min = Infinity;
    let max = 0;
    feasible.forEach((n, i) => {
      if (st.ignored.has(n.name)) return;
      if (scores[i] < min) min = scores[i];
      if (scores[i] > max) max = scores[i];
    });
    feasible.forEach((n, i) => {
      if (st.ignored.has(n.name)) scores[i] = 0;
      else if (max === 0) scores[i] = 100;
      else scores[i] = Math.trunc((100 * (max + min - scores[i])) / max);
    });
  },
};
