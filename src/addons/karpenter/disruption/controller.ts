// The disruption loop (upstream's disruption controller): every 10 s of clock time, level-triggered, it tries the
// methods in order (Drift, Emptiness, multi-node and single-node consolidation) and starts at most one command;
// a consolidation is re-validated after 15 s before it runs. Commands run through the orchestration queue.
import type { Node, Pod } from '../../../generated/k8s/core/v1.js';
import type { PodDisruptionBudget } from '../../../generated/k8s/policy/v1.js';
import type { Client } from '../../../client/client.js';
import type { Clock } from '../../../util/clock.js';
import type { Logger } from '../../../util/logger.js';
import { defineController, type ControllerContext, type ControllerDef, type Reconciler } from '../../../controllers/runtime/index.js';
import type { KarpenterDeps } from '../deps.js';
import { nodeClaimFor } from '../nodeclaims.js';
import { nodeClaimsRef, type NodeClaim } from '../types.js';
import type { Candidate } from './candidates.js';
import { computeConsolidation, computeCommand, decisionOf, methodOrder, shouldDisrupt, type Command, type MethodReporter } from './methods.js';
import { DisruptionEvents } from './events.js';
import { DisruptionQueue, setDisruptedTaint, setDisruptionReason } from './orchestration.js';
import { budgetMap, simulatorFor, takeSnapshot, type Snapshot } from './snapshot.js';
import { consolidationMessage } from './messages.js';

export const pollingPeriodMs = 10_000;
export const consolidationTtlMs = 15_000;
const queuePeriodMs = 1_000;

const passKey = 'pass';
const queueKey = 'queue';

/**
 * The disruption loop on the controller runtime: `pass` every polling period (at once after it acted; a pass may wait
 * out a consolidation's validation), and, on a queue of its own so that wait holds nothing up, the orchestration
 * queue's processing every second.
 */
export function disruptionControllers(deps: KarpenterDeps): ControllerDef[] {
  let loop: DisruptionController | undefined;
  return [
    defineController({
      name: 'karpenter-disruption',
      setup: ({ client, clock, log, queue }) => (loop = new DisruptionController(client, clock, log, deps, queue)),
    }),
    defineController({
      name: 'karpenter-disruption-queue',
      identity: 'karpenter-disruption',
      setup: ({ queue }) => {
        queue.addAfter(queueKey, queuePeriodMs);
        return {
          reconcile: async () => {
            if (loop?.queue.size() && (await loop.queue.process())) loop.tick();
            return queuePeriodMs;
          },
        };
      },
    }),
  ];
}

export class DisruptionController implements Reconciler {
  readonly events: DisruptionEvents;
  readonly queue: DisruptionQueue;
  private stopped = false;

  constructor(private readonly client: Client, private readonly clock: Clock, private readonly log: Logger, private readonly deps: KarpenterDeps, private readonly keys: ControllerContext['queue']) {
    this.events = new DisruptionEvents(deps.events, clock);
    this.queue = new DisruptionQueue(client, clock, log, deps, this.events);
    keys.addAfter(passKey, pollingPeriodMs);
  }

  async reconcile(): Promise<number> {
    try {
      // After a command started, the next pass runs at once (the key added while it runs is run again).
      if (await this.pass()) this.tick();
    } catch (err) {
      this.log.warn({ err }, 'disruption pass failed');
    }
    return pollingPeriodMs;
  }

  stop(): void {
    this.stopped = true;
  }

  /** Runs a pass now (or right after the one in progress). */
  tick(): void {
    if (!this.stopped) this.keys.add(passKey);
  }

  snapshot(): Snapshot {
    const d = this.deps;
    const pending: Pod[] = [];
    for (const p of d.pods.list()) if (!p.spec?.nodeName && p.status?.phase === 'Pending') pending.push(p);
    return takeSnapshot({
      nowMs: this.clock.nowMs(), pools: d.nodePools.list(), claims: d.nodeClaims.list(), nodes: d.nodes.list(),
      podsOn: (n) => d.pods.byIndex('node', n), pdbs: this.client.list<PodDisruptionBudget>('policy/v1/poddisruptionbudgets'),
      pending, inFlight: this.queue.candidates(), nominatedClaims: d.nominated?.(), catalog: d.catalog,
    });
  }

  private reporter(): MethodReporter {
    return {
      unconsolidatable: (c, m) => this.events.unconsolidatable(c.node, c.claim, m),
      blocked: (c, m) => this.events.blocked(c.node, c.claim, m),
    };
  }

  /** One pass: returns whether a command was started. */
  async pass(): Promise<boolean> {
    await this.untaintStale();
    const snap = this.snapshot();
    for (const b of snap.blocked) this.events.blocked(b.node, b.claim, b.message);
    // Nothing the methods do writes objects (events aside): one snapshot serves them all, budgets are per method.
    const simulate = simulatorFor(snap);
    for (const m of methodOrder) {
      const budgets = budgetMap(snap, (pool, reason) => this.events.poolBlocked(pool, reason));
      const cmd = computeCommand(m, snap.candidates, budgets, simulate, this.reporter());
      if (!cmd) continue;
      if (m !== 'Drift') {
        await new Promise<void>((resolve) => this.clock.setTimeout(resolve, consolidationTtlMs));
        if (this.stopped || !this.validate(cmd)) {
          this.log.debug({ method: m }, 'abandoning the disruption command: it is no longer valid');
          return false;
        }
      }
      await this.execute(cmd);
      return true;
    }
    return false;
  }

  /** Upstream's validator: the candidates are still candidates for the method, within budget, and the decision holds. */
  private validate(cmd: Command): boolean {
    const s = this.snapshot();
    const byName = new Map<string, Candidate>();
    for (const c of s.candidates) byName.set(c.claim.metadata.name ?? '', c);
    const now: Candidate[] = [];
    for (const c of cmd.candidates) {
      const cur = byName.get(c.claim.metadata.name ?? '');
      if (!cur || !shouldDisrupt(cmd.method, cur)) return false;
      now.push(cur);
    }
    const budgets = budgetMap(s);
    const need = new Map<string, number>();
    for (const c of now) need.set(c.pool.metadata.name ?? '', (need.get(c.pool.metadata.name ?? '') ?? 0) + 1);
    for (const [pool, n] of need) if ((budgets.get(pool)?.[cmd.reason] ?? 0) < n) return false;
    if (cmd.method === 'Emptiness') return now.every((c) => c.reschedulable.length === 0);
    const again = computeConsolidation(now, simulatorFor(s));
    if (!again || decisionOf(again) !== decisionOf(cmd)) return false;
    cmd.replacements = again.replacements;
    cmd.savings = again.savings;
    cmd.candidates = now;
    return true;
  }

  /** Taints the candidates, launches the replacements, queues the command (deletes follow their initialisation). */
  async execute(cmd: Command): Promise<void> {
    const decision = decisionOf(cmd);
    this.log.info({ reason: cmd.reason, decision, candidates: cmd.candidates.map((c) => c.claim.metadata.name), replacements: cmd.replacements.length, savings: cmd.savings },
      `disrupting nodeclaim(s) via ${decision.toLowerCase()}`);
    for (const c of cmd.candidates) {
      await setDisruptedTaint(this.client, c.node.metadata?.name ?? '', true, this.log);
      await setDisruptionReason(this.client, c.claim.metadata.name ?? '', cmd.reason, this.clock, this.log);
    }
    const names: string[] = [];
    for (const plan of cmd.replacements) {
      try {
        const created = await this.client.create<NodeClaim>(nodeClaimsRef, '', nodeClaimFor(plan, this.clock.now()));
        this.deps.nodeClaims.track(created);
        names.push(created.metadata.name ?? '');
        this.events.launching(created, cmd.reason);
      } catch (err) {
        this.log.warn({ err }, 'launching a replacement nodeclaim failed');
        for (const c of cmd.candidates) {
          await setDisruptedTaint(this.client, c.node.metadata?.name ?? '', false, this.log);
          await setDisruptionReason(this.client, c.claim.metadata.name ?? '', undefined, this.clock, this.log);
        }
        return;
      }
    }
    if (cmd.reason !== 'Drifted') {
      for (const c of cmd.candidates) this.events.consolidating(c.node, c.claim, consolidationMessage(cmd, c));
    }
    this.queue.add({ reason: cmd.reason, decision, candidates: cmd.candidates.map((c) => c.claim.metadata.name ?? ''), replacements: names });
    await this.queue.process();
    this.deps.trigger();
  }

  /** The disrupted taint on a node no queued command owns and nothing deletes: left over, removed. */
  private async untaintStale(): Promise<void> {
    const queued = this.queue.candidates();
    for (const n of this.deps.nodes.list() as Node[]) {
      if (!n.spec?.taints?.some((t) => t.key === 'karpenter.sh/disrupted') || n.metadata?.deletionTimestamp) continue;
      const claim = this.deps.nodeClaims.get('', n.metadata?.name ?? '') ?? this.deps.nodeClaims.list().find((c) => c.status?.nodeName === n.metadata?.name);
      if (!claim || claim.metadata.deletionTimestamp || queued.has(claim.metadata.name ?? '')) continue;
      await setDisruptedTaint(this.client, n.metadata?.name ?? '', false, this.log);
      await setDisruptionReason(this.client, claim.metadata.name ?? '', undefined, this.clock, this.log);
    }
  }
}
