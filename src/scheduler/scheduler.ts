// The scheduling loop: pop a pod, filter, score, bind; on failure preempt, report and park the pod.
import type { Pod } from '../generated/k8s/core/v1.js';
import type { PodDisruptionBudget } from '../generated/k8s/policy/v1.js';
import { ApiError } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import type { Client } from '../client/client.js';
import type { Logger } from '../util/logger.js';
import type { Binder } from './binder.js';
import type { SchedulerCache } from './cache.js';
import { fitErrorMessage, noNodesAvailable } from './failure.js';
import { CycleState, findFeasible, prioritize, runFilters, runPreFilters, selectHost, type Failure, type FilterPlugin, type Lookups, type ScorePlugin } from './framework.js';
import type { NodeInfo } from './node-info.js';
import { buildPodInfo, type PodInfo } from './pod-info.js';
import { preempt } from './preemption.js';
import type { QueuedPod, SchedulingQueue } from './queue.js';
import type { GangTracker } from './gangs.js';
import type { DecisionLog, DecisionTrace, PluginScores } from './decisions.js';

/** How long one batch may run before yielding to the event loop. */
const batchMs = 20;
const noPods: PodInfo[] = [];

export interface SchedulerDeps {
  client: Client;
  cache: SchedulerCache;
  queue: SchedulingQueue;
  binder: Binder;
  lookups: Lookups;
  filters: FilterPlugin[];
  scores: ScorePlugin[];
  log: Logger;
  /** Pending pods nominated to each node (preemptors waiting for their victims to go). */
  nominatedOn: (node: string) => Iterable<PodInfo> | undefined;
  /** Records a nomination at once, before its status write comes back through the change feed. */
  nominate: (pi: PodInfo, node: string) => void;
  /** Whether any pod is nominated anywhere (absent: assumed so, and nominatedOn is asked for every node). */
  anyNominated?: () => boolean;
  random?: () => number;
  /** Gang scheduling (KEP-4671): the Workload view and the group attempt; without it workloadRefs are ignored. */
  gangs?: { tracker: GangTracker; cycle: GangAttempt };
  /** Where each attempt's outcome is kept, with what every filter and score plugin said (none: not recorded). */
  decisions?: DecisionLog;
  /** While true, no pod is taken off the queue (see pause.ts); the loop is kicked again on release. */
  paused?: () => boolean;
}

/** The group attempt a gang's pod is handed to (gang-cycle.ts's GangCycle, which drives this loop in turn). */
export interface GangAttempt {
  run(first: QueuedPod, pod: Pod, policy: { minCount: number; timeoutMs: number }): void;
}

/** The outcome of filtering and scoring for one pod: a host, or the per-node failures (or no nodes at all). */
export interface Placement {
  s: CycleState;
  host?: NodeInfo;
  failures?: Map<string, Failure>;
  preFilterMsg?: string;
  noNodes?: boolean;
}

const noFeasible: NodeInfo[] = [];

/** The trace of an attempt whose filters never ran on single nodes (no nodes, the nominated node, a PreFilter). */
function traceOf(numAllNodes: number, failures?: Map<string, Failure>, feasible: NodeInfo[] = noFeasible): DecisionTrace {
  return { numAllNodes, failures, feasible };
}

export class SchedulingLoop {
  private nextStart = 0;
  private pending = false;
  private stopped = false;

  constructor(private readonly d: SchedulerDeps) {}

  kick(): void {
    if (this.pending || this.stopped) return;
    this.pending = true;
    setImmediate(() => this.drain());
  }

  stop(): void {
    this.stopped = true;
  }

  private drain(): void {
    if (this.stopped) return;
    // Decide on committed state: changes still waiting for their commit have not reached the cache yet
    // (at start-up, nodes registered in the same tick would otherwise look missing).
    const commit = this.d.client.pendingCommit();
    if (commit) {
      void commit.then(() => this.drain());
      return;
    }
    this.pending = false;
    if (this.d.paused?.()) return;
    const until = performance.now() + batchMs;
    while (performance.now() < until) {
      const e = this.d.queue.pop();
      if (!e) return;
      try {
        this.scheduleOne(e);
      } catch (err) {
        this.d.log.debug({ err, pod: e.key }, 'scheduling attempt failed');
        this.d.queue.done(e, 'error');
      }
    }
    this.kick();
  }

  /** One attempt for one pod (for a gang's pod: for every pending pod of its group, see gang-cycle.ts). */
  scheduleOne(e: QueuedPod): void {
    const pod = this.current(e);
    if (!pod) return;
    const gang = this.d.gangs;
    if (gang) {
      const policy = gang.tracker.policy(pod);
      if (policy.kind === 'missing') {
        // The Workload (or its group) went away after the pod passed PreEnqueue: back behind it.
        this.d.queue.regate(e);
        return;
      }
      if (policy.kind === 'gang') {
        gang.cycle.run(e, pod, policy);
        return;
      }
    }
    const p = this.place(e, pod);
    if (!p.host) {
      this.reject(e, pod, p);
      return;
    }
    this.reserve(p.s, p.host);
    const host = p.host;
    const failed = (err: unknown) => {
      this.d.log.debug({ err, pod: e.key, node: host.name }, 'pre-bind failed; retrying after backoff');
      this.d.queue.done(e, 'error');
    };
    let pre: void | Promise<void>;
    try {
      pre = this.preBind(p.s, host);
    } catch (err) {
      return failed(err);
    }
    if (pre instanceof Promise) void pre.then(() => this.bind(e, pod, host), failed);
    else this.bind(e, pod, host);
  }

  /** Upstream's Reserve: each plugin keeps in memory what the pod takes on `host`. */
  reserve(s: CycleState, host: NodeInfo): void {
    for (const f of this.d.filters) f.reserve?.(s, host);
  }

  /** Upstream's Unreserve: what reserve kept and preBind wrote is taken back. */
  unreserve(s: CycleState): void {
    for (const f of this.d.filters) f.unreserve?.(s);
  }

  /** The plugins' writes before binding (DynamicResources' claim allocations); throws, once they are undone, when one fails. */
  preBind(s: CycleState, host: NodeInfo, from = 0): void | Promise<void> {
    const undo = (err: unknown): never => {
      this.unreserve(s);
      throw err;
    };
    try {
      for (let i = from; i < this.d.filters.length; i++) {
        const r = this.d.filters[i].preBind?.(s, host);
        // A plugin that waits: the rest follow once it is done (their own failures undo everything once).
        if (r instanceof Promise) return r.then(() => this.preBind(s, host, i + 1), undo);
      }
    } catch (err) {
      return undo(err);
    }
  }

  /** The pod as stored now, if it still waits for this scheduler (otherwise it leaves the queue). */
  current(e: QueuedPod): Pod | undefined {
    const pod = this.d.client.get('v1/pods', e.pi.ns, e.pi.name);
    if (!pod || pod.metadata?.uid !== e.pi.uid || pod.spec?.nodeName || pod.metadata?.deletionTimestamp) {
      this.d.queue.delete(e.key);
      return undefined;
    }
    if (pod !== e.pod) {
      e.pod = pod;
      e.pi = buildPodInfo(pod);
    }
    return pod;
  }

  /** Filters and scores the nodes for one pod: the chosen node, or why none fits. */
  place(e: QueuedPod, pod: Pod): Placement {
    const { cache } = this.d;
    const pi = e.pi;
    const nodes = cache.nodeList();
    const s = new CycleState(pi, nodes, this.d.lookups, this.d.anyNominated?.() === false ? undefined : (node) => {
      const on = this.d.nominatedOn(node);
      if (on === undefined) return noPods;
      let out: PodInfo[] | undefined;
      for (const p of on) if (p.key !== pi.key && p.priority >= pi.priority) (out ??= []).push(p);
      return out ?? noPods;
    });
    const rec = !!this.d.decisions;
    if (!nodes.length) {
      if (rec) e.trace = traceOf(0);
      return { s, noNodes: true };
    }
    const rejected = runPreFilters(this.d.filters, s);
    if (rejected) {
      const failures = new Map(nodes.map((n) => [n.name, rejected]));
      if (rec) e.trace = traceOf(nodes.length, failures);
      return { s, failures, preFilterMsg: rejected.reasons.join(', ') };
    }
    const nominated = pod.status?.nominatedNodeName ? cache.nodes.get(pod.status.nominatedNodeName) : undefined;
    if (nominated?.node && !runFilters(this.d.filters, s, nominated)) {
      if (rec) e.trace = traceOf(nodes.length, undefined, [nominated]);
      return { s, host: nominated };
    }
    const r = findFeasible(this.d.filters, s, nodes, this.nextStart);
    this.nextStart = (this.nextStart + r.processed) % nodes.length;
    if (r.feasible.length > 1) {
      const plugins: PluginScores[] | undefined = rec ? [] : undefined;
      const seen = plugins && ((p: ScorePlugin, scores: readonly number[]) => plugins.push({ name: p.name, weight: p.weight, scores: new Float64Array(scores) }));
      const totals = prioritize(this.d.scores, s, r.feasible, seen);
      if (rec) e.trace = { numAllNodes: nodes.length, failures: r.failures, feasible: r.feasible, plugins, totals: new Float64Array(totals) };
      return { s, host: selectHost(r.feasible, totals, this.d.random) };
    }
    if (rec) e.trace = traceOf(nodes.length, r.failures, r.feasible);
    if (r.feasible.length === 1) return { s, host: r.feasible[0] };
    return { s, failures: r.failures };
  }

  /** Keeps the outcome of the pod's last attempt with the trace its placement left (see decisions.ts). */
  private decided(e: QueuedPod, pod: Pod, result: 'Scheduled' | 'Unschedulable', message: string, node?: string): void {
    const log = this.d.decisions;
    const trace = e.trace;
    if (!log || !trace) return;
    e.trace = undefined;
    log.record({
      namespace: e.pi.ns, name: e.pi.name, uid: pod.metadata?.uid ?? '', attempts: e.attempts, result,
      timeMs: this.d.client.clock.nowMs(), node, message, trace,
    });
  }

  /**
   * Binds the pod to `host`; returns false when the binding was refused (the pod is gone or bound already). A binding
   * that waits for the store (etcd) holds the pod's place on the node meanwhile, as upstream's assumed pod does, and
   * counts as made until it is refused.
   */
  bind(e: QueuedPod, pod: Pod, host: NodeInfo): boolean {
    const { cache, queue, binder } = this.d;
    const bound = (b: Pod): boolean => {
      cache.syncAssigned(e.key, b);
      // A bound pod is no longer nominated anywhere (as upstream's assume step drops it from the nominator); left
      // there until its watch event, it would count twice on its node for the rest of this pass.
      this.d.nominate(e.pi, '');
      queue.done(e, 'bound');
      this.decided(e, pod, 'Scheduled', `Successfully assigned ${e.pi.ns}/${e.pi.name} to ${host.name}`, host.name);
      this.d.log.debug({ pod: e.key, node: host.name }, 'bound');
      return true;
    };
    const refused = (err: unknown): boolean => {
      if (err instanceof ApiError && (err.code === 404 || err.code === 409)) {
        this.d.log.debug({ pod: e.key, err: err.message }, 'binding rejected; forgetting the pod');
        queue.delete(e.key);
        return false;
      }
      throw err;
    };
    let result: Pod | Promise<Pod>;
    try {
      result = binder.bind(pod, host.name);
    } catch (err) {
      return refused(err);
    }
    if (!(result instanceof Promise)) return bound(result);
    cache.assume(e.pi, host.name);
    result.then(bound, (err: unknown) => {
      cache.forget(e.key);
      try {
        refused(err);
      } catch (other) {
        this.d.log.debug({ err: other, pod: e.key, node: host.name }, 'binding failed; retrying after backoff');
        queue.done(e, 'error');
      }
    });
    return true;
  }

  /** A pod that fits nowhere: preemption, the FailedScheduling event and condition, parked until a change. */
  reject(e: QueuedPod, pod: Pod, p: Placement): void {
    if (p.noNodes) this.fail(e, pod, noNodesAvailable, new Set(['NoNodes']), '');
    else this.unschedulable(e, pod, p.s, p.failures ?? new Map(), p.preFilterMsg ?? '');
  }

  /** A rejection that is not a filter verdict (a gang's Permit timeout): the event and condition, then parked. */
  rejectWith(e: QueuedPod, pod: Pod, message: string, rejectors: Set<string>): void {
    this.fail(e, pod, message, rejectors);
  }

  private unschedulable(e: QueuedPod, pod: Pod, s: CycleState, failures: Map<string, Failure>, preFilterMsg = ''): void {
    const rejectors = new Set([...failures.values()].map((f) => f.plugin));
    const pdbs = this.d.client.list('policy/v1/poddisruptionbudgets');
    const outcome = preempt(this.d.filters, s, failures, pdbs, this.d.random);
    if (outcome.candidate) {
      const node = outcome.candidate.node.name;
      for (const v of outcome.candidate.victims) this.d.binder.preemptVictim(v, pod, node);
      // Lower-priority pods nominated to the same node lose their nomination.
      for (const p of [...(this.d.nominatedOn(node) ?? noPods)]) {
        if (p.priority < s.pi.priority && p.key !== s.pi.key) this.d.binder.clearNomination(p.pod);
      }
      this.d.nominate(s.pi, node);
      this.d.log.debug({ pod: e.key, node, victims: outcome.candidate.victims.map((v) => v.key) }, 'preempting');
    }
    const message = fitErrorMessage(s.allNodes.length, failures.values(), outcome.message, preFilterMsg);
    this.fail(e, pod, message, rejectors, outcome.nominate);
  }

  private fail(e: QueuedPod, pod: Pod, message: string, rejectors: Set<string>, nominate?: string): void {
    this.d.log.debug({ pod: e.key, message }, 'unschedulable');
    this.decided(e, pod, 'Unschedulable', message);
    this.d.binder.recorder.event(pod, 'Warning', 'FailedScheduling', message);
    try {
      this.d.binder.unschedulable(pod, message, nominate);
    } catch (err) {
      this.d.log.debug({ err, pod: e.key }, 'could not update the pod status; retrying after backoff');
      this.d.queue.done(e, 'error');
      return;
    }
    this.d.queue.done(e, 'unschedulable', rejectors);
  }
}
