// DefaultPreemption: find nodes where evicting lower-priority pods lets the pod fit, pick the victims and the node.
import type { PodDisruptionBudget } from '../generated/k8s/policy/v1.js';
import { labelSelectorMatches } from '../machinery/labels.js';
import { runFilters, type CycleState, type Failure, type FilterPlugin } from './framework.js';
import { fitErrorMessage } from './failure.js';
import type { NodeInfo } from './node-info.js';
import type { PodInfo } from './pod-info.js';

export interface Candidate {
  node: NodeInfo;
  victims: PodInfo[];
  pdbViolations: number;
}

export interface PreemptionOutcome {
  /** The chosen candidate, when preemption helps. */
  candidate?: Candidate;
  /** The post-filter message for FailedScheduling ('' on success). */
  message: string;
  /** '' clears the pod's nominatedNodeName; undefined leaves it alone. */
  nominate?: string;
}

const notHelpful = 'Preemption is not helpful for scheduling';
const noVictims: Failure = { plugin: 'DefaultPreemption', code: 'UnschedulableAndUnresolvable', reasons: ['No preemption victims found for incoming pod'] };

/** Higher priority first, then the pod that started earlier. */
export function moreImportant(a: PodInfo, b: PodInfo): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  return a.startMs - b.startMs;
}

/** Splits pods (in order) into those whose eviction would break a PodDisruptionBudget and those that would not. */
export function splitByPdb(pods: PodInfo[], pdbs: PodDisruptionBudget[]): { violating: PodInfo[]; ok: PodInfo[] } {
  const allowed = pdbs.map((p) => p.status?.disruptionsAllowed ?? 0);
  const violating: PodInfo[] = [];
  const ok: PodInfo[] = [];
  for (const p of pods) {
    let violated = false;
    if (Object.keys(p.labels).length) {
      pdbs.forEach((pdb, i) => {
        if (pdb.metadata?.namespace !== p.ns) return;
        const sel = pdb.spec?.selector;
        if (!sel || (!sel.matchLabels && !sel.matchExpressions?.length) || !labelSelectorMatches(sel, p.labels)) return;
        if (pdb.status?.disruptedPods && p.name in pdb.status.disruptedPods) return;
        allowed[i]--;
        if (allowed[i] < 0) violated = true;
      });
    }
    (violated ? violating : ok).push(p);
  }
  return { violating, ok };
}

function add(filters: FilterPlugin[], s: CycleState, p: PodInfo, n: NodeInfo): void {
  n.addPod(p);
  for (const f of filters) f.addPod?.(s, p, n);
}
function remove(filters: FilterPlugin[], s: CycleState, p: PodInfo, n: NodeInfo): void {
  n.removePod(p);
  for (const f of filters) f.removePod?.(s, p, n);
}

/** The fewest lower-priority pods to evict from `n` so the pod fits (the node is left as it was). */
export function selectVictims(filters: FilterPlugin[], s: CycleState, n: NodeInfo, pdbs: PodDisruptionBudget[]): Candidate | Failure {
  // Reserved (unbound) gang pods are no victims: they hold nothing a deletion would free.
  const lower = [...n.pods.values()].filter((p) => p.priority < s.pi.priority && !p.assumed);
  if (!lower.length) return noVictims;
  for (const p of lower) remove(filters, s, p, n);
  const f = runFilters(filters, s, n);
  if (f) {
    for (const p of lower) add(filters, s, p, n);
    return f;
  }
  lower.sort(moreImportant);
  const { violating, ok } = splitByPdb(lower, pdbs);
  const victims: PodInfo[] = [];
  let pdbViolations = 0;
  const reprieve = (p: PodInfo): boolean => {
    add(filters, s, p, n);
    if (!runFilters(filters, s, n)) return false;
    remove(filters, s, p, n);
    victims.push(p);
    return true;
  };
  for (const p of violating) if (reprieve(p)) pdbViolations++;
  for (const p of ok) reprieve(p);
  for (const p of victims) add(filters, s, p, n);
  victims.sort(moreImportant);
  return { node: n, victims, pdbViolations };
}

const int32Max = 2 ** 31 - 1;

/** Upstream's order: fewest PDB violations, lowest top victim priority, smallest priority sum, fewest victims, latest start. */
export function pickCandidate(cands: Candidate[]): Candidate | undefined {
  const steps: Array<(c: Candidate) => number> = [
    (c) => -c.pdbViolations,
    (c) => -(c.victims[0]?.priority ?? 0),
    (c) => -c.victims.reduce((sum, v) => sum + v.priority + int32Max + 1, 0),
    (c) => -c.victims.length,
    (c) => {
      const top = c.victims[0]?.priority;
      let earliest = Infinity;
      for (const v of c.victims) if (v.priority === top && v.startMs < earliest) earliest = v.startMs;
      return earliest;
    },
  ];
  let left = cands;
  for (const score of steps) {
    if (left.length <= 1) break;
    let best = -Infinity;
    for (const c of left) best = Math.max(best, score(c));
    left = left.filter((c) => score(c) === best);
  }
  return left[0];
}

/** Runs preemption for a pod that fit nowhere; `failures` holds each node's filter verdict. */
export function preempt(filters: FilterPlugin[], s: CycleState, failures: Map<string, Failure>, pdbs: PodDisruptionBudget[], random: () => number = Math.random): PreemptionOutcome {
  const pod = s.pi.pod;
  if (pod.spec?.preemptionPolicy === 'Never') return { message: 'preemption: not eligible due to preemptionPolicy=Never.' };
  const nominated = pod.status?.nominatedNodeName;
  if (nominated && failures.get(nominated)?.code !== 'UnschedulableAndUnresolvable') {
    const n = s.allNodes.find((x) => x.name === nominated);
    if (n && [...n.pods.values()].some((p) => p.terminating && p.priority < s.pi.priority)) {
      return { message: 'preemption: not eligible due to a terminating pod on the nominated node.' };
    }
  }
  const all = s.allNodes;
  const potential = all.filter((n) => failures.get(n.name)?.code === 'Unschedulable');
  const statuses = new Map<string, Failure>();
  const cands: Candidate[] = [];
  if (potential.length) {
    let want = Math.trunc((potential.length * 10) / 100);
    if (want < 100) want = 100;
    if (want > potential.length) want = potential.length;
    const offset = Math.floor(random() * potential.length);
    let nonViolating = 0;
    for (let i = 0; i < potential.length; i++) {
      const n = potential[(offset + i) % potential.length];
      const r = selectVictims(filters, s, n, pdbs);
      if ('plugin' in r) {
        statuses.set(n.name, r);
        continue;
      }
      cands.push(r);
      if (r.pdbViolations === 0) nonViolating++;
      if (nonViolating > 0 && cands.length >= want) break;
    }
  }
  if (!cands.length) {
    const reasons: Failure[] = all.map((n) => statuses.get(n.name) ?? { plugin: 'DefaultPreemption', code: 'UnschedulableAndUnresolvable', reasons: [notHelpful] });
    return { message: `preemption: ${fitErrorMessage(all.length, reasons)}`, nominate: '' };
  }
  const best = pickCandidate(cands)!;
  return { candidate: best, message: '', nominate: best.node.name };
}
