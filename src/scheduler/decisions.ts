// Decisions leave traces: for recent pods, what each filter and score plugin said about each node on the attempt
// that was actually made. Kept as the scheduler produced it (its failure map, its score arrays), rendered to JSON
// only when asked, never recomputed. Bounded by pods and by node entries, oldest decision out first.
import type { Failure } from './framework.js';
import { rfc3339 } from '../util/clock.js';

/**
 * One score plugin's normalized scores, indexed like `DecisionTrace.feasible`. A kept trace holds them in a typed
 * array: thousands of traces live through many collections, and numbers outside the JS heap are neither scanned
 * nor copied by the garbage collector.
 */
export interface PluginScores {
  name: string;
  weight: number;
  scores: ArrayLike<number>;
}

/** What filtering and scoring said on one attempt. */
export interface DecisionTrace {
  /** Nodes in the cluster when the attempt was made. */
  numAllNodes: number;
  /** Nodes a filter rejected (only the nodes evaluated: filtering stops once enough feasible nodes are found). */
  failures?: ReadonlyMap<string, Failure>;
  /** Feasible nodes, in the order of the score arrays (the attempt's own array: kept, not copied). */
  feasible: ReadonlyArray<{ readonly name: string }>;
  /** Plugins that scored (a plugin whose PreScore skipped the pod is absent); none when one node was feasible. */
  plugins?: PluginScores[];
  /** Weighted sums, indexed like `feasible`. */
  totals?: ArrayLike<number>;
}

export interface Decision {
  namespace: string;
  name: string;
  uid: string;
  attempts: number;
  result: 'Scheduled' | 'Unschedulable';
  /** Simulated clock time of the decision. */
  timeMs: number;
  node?: string;
  message: string;
  trace: DecisionTrace;
}

/** The JSON served by GET /bonsai/v1/scheduling/namespaces/{ns}/pods/{name}. */
export interface NodeVerdict {
  node: string;
  feasible: boolean;
  filter?: { plugin: string; reasons: string[]; details?: string[] };
  scores?: Record<string, number>;
  total?: number;
}

export interface Explanation {
  namespace: string;
  name: string;
  uid: string;
  attempts: number;
  result: Decision['result'];
  time: string;
  node?: string;
  message: string;
  /** Nodes in the cluster at the time, and how many of them were evaluated (filtering may stop early). */
  numAllNodes: number;
  numEvaluated: number;
  /** Score plugin weights (the scores are normalized × weight). */
  weights?: Record<string, number>;
  nodes: NodeVerdict[];
}

export const defaultMaxPods = 10_000;
/** Node entries (filter verdicts plus feasible nodes) kept over all decisions. */
export const defaultMaxEntries = 500_000;

const costOf = (d: Decision) => 1 + (d.trace.failures?.size ?? 0) + d.trace.feasible.length;

export class DecisionLog {
  private readonly byPod = new Map<string, Decision>();
  private entries = 0;

  constructor(readonly maxPods = defaultMaxPods, readonly maxEntries = defaultMaxEntries) {}

  get size(): number {
    return this.byPod.size;
  }

  /** Keeps `d` as the pod's last decision (replacing an earlier one) and drops the oldest beyond the bounds. */
  record(d: Decision): void {
    const key = `${d.namespace}/${d.name}`;
    const old = this.byPod.get(key);
    if (old) {
      this.byPod.delete(key);
      this.entries -= costOf(old);
    }
    this.byPod.set(key, d);
    this.entries += costOf(d);
    while (this.byPod.size > this.maxPods || (this.entries > this.maxEntries && this.byPod.size > 1)) {
      const [k, oldest] = this.byPod.entries().next().value as [string, Decision];
      this.byPod.delete(k);
      this.entries -= costOf(oldest);
    }
  }

  get(namespace: string, name: string): Decision | undefined {
    return this.byPod.get(`${namespace}/${name}`);
  }

  clear(): void {
    this.byPod.clear();
    this.entries = 0;
  }
}

const logs = new WeakMap<object, DecisionLog>();

/**
 * The decision log of one Bonsai instance, found by an object the scheduler and the API both hold: the instance's
 * clock (the scheduler's client and every registry view share it), so the scheduler needs no registry to publish.
 */
export function decisionLogFor(owner: object): DecisionLog {
  let l = logs.get(owner);
  if (!l) logs.set(owner, (l = new DecisionLog()));
  return l;
}

/** Renders a kept decision: every evaluated node, by name, with its filter verdict or its scores. */
export function explain(d: Decision): Explanation {
  const t = d.trace;
  const nodes: NodeVerdict[] = [];
  for (const [node, f] of t.failures ?? []) nodes.push({ node, feasible: false, filter: { plugin: f.plugin, reasons: [...f.reasons], ...(f.details ? { details: [...f.details] } : {}) } });
  t.feasible.forEach(({ name: node }, i) => {
    const v: NodeVerdict = { node, feasible: true };
    if (t.plugins?.length) {
      const scores: Record<string, number> = {};
      for (const p of t.plugins) scores[p.name] = p.scores[i] * p.weight;
      v.scores = scores;
    }
    if (t.totals) v.total = t.totals[i];
    nodes.push(v);
  });
  nodes.sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  const out: Explanation = {
    namespace: d.namespace, name: d.name, uid: d.uid, attempts: d.attempts, result: d.result, time: rfc3339(new Date(d.timeMs)),
    ...(d.node ? { node: d.node } : {}), message: d.message, numAllNodes: t.numAllNodes, numEvaluated: (t.failures?.size ?? 0) + t.feasible.length, nodes,
  };
  if (t.plugins?.length) out.weights = Object.fromEntries(t.plugins.map((p) => [p.name, p.weight]));
  return out;
}
