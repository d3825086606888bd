// Executing disruption commands (upstream's orchestration queue): the candidates are tainted
// karpenter.sh/disrupted:NoSchedule, replacements launched first and waited for until Initialized, then the
// candidate NodeClaims deleted (termination drains them through the eviction API). A command whose replacements
// never initialise (10 minutes) or vanish is abandoned and its candidates untainted.
import type { Node } from '../../../generated/k8s/core/v1.js';
import type { Client } from '../../../client/client.js';
import type { KObject } from '../../../machinery/types.js';
import type { Clock } from '../../../util/clock.js';
import type { Logger } from '../../../util/logger.js';
import { rfc3339 } from '../../../util/clock.js';
import type { KarpenterDeps } from '../deps.js';
import { conditionTypes, disruptedTaint, nodeClaimsRef, nodesRef, type NodeClaim } from '../types.js';
import type { DisruptionReason } from './budgets.js';
import { condTrue } from './candidates.js';
import type { DisruptionEvents } from './events.js';

const maxCommandMs = 10 * 60_000;
const replacementGoneGraceMs = 5_000;
const maxQueued = 1000;

export interface QueuedCommand {
  id: string;
  reason: DisruptionReason;
  decision: 'Delete' | 'Replace';
  candidates: string[];
  replacements: string[];
  addedMs: number;
}

const hasDisruptedTaint = (n: Node): boolean => n.spec?.taints?.some((t) => t.key === disruptedTaint.key && t.effect === disruptedTaint.effect) ?? false;

/** Adds (or removes) the karpenter.sh/disrupted:NoSchedule taint on a node; quietly skips a node that is gone. */
export async function setDisruptedTaint(client: Client, name: string, on: boolean, log: Logger): Promise<void> {
  const node = client.get<Node>(nodesRef, '', name);
  if (!node || hasDisruptedTaint(node) === on) return;
  try {
    await client.guaranteedUpdate(nodesRef, '', name, (cur) => {
      const n = cur as Node;
      const rest = (n.spec?.taints ?? []).filter((t) => !(t.key === disruptedTaint.key && t.effect === disruptedTaint.effect));
      const taints = on ? [...rest, { ...disruptedTaint }] : rest;
      return { ...cur, spec: { ...(n.spec ?? {}), taints } } as KObject;
    });
  } catch (err) {
    log.debug({ err, node: name }, 'updating the disrupted taint failed');
  }
}

/**
 * Sets (or clears) the NodeClaim's DisruptionReason condition (True, reason and message the method's
 * reason), as upstream marks the candidates of a command.
 */
export async function setDisruptionReason(client: Client, claim: string, reason: DisruptionReason | undefined, clock: Clock, log: Logger): Promise<void> {
  const nc = client.get<NodeClaim>(nodeClaimsRef, '', claim);
  const has = nc?.status?.conditions?.some((c) => c.type === conditionTypes.disruptionReason);
  if (!nc || (!reason && !has)) return;
  try {
    await client.guaranteedUpdate(nodeClaimsRef, '', claim, (cur) => {
      const c = cur as NodeClaim;
      const rest = (c.status?.conditions ?? []).filter((x) => x.type !== conditionTypes.disruptionReason);
      const conditions = reason
        ? [...rest, { type: conditionTypes.disruptionReason, status: 'True' as const, reason, message: reason, lastTransitionTime: rfc3339(clock.now()) }]
        : rest;
      return { ...cur, status: { ...(c.status ?? {}), conditions } } as KObject;
    }, { subresource: 'status' });
  } catch (err) {
    log.debug({ err, nodeClaim: claim }, 'updating the DisruptionReason condition failed');
  }
}

export class DisruptionQueue {
  private readonly commands = new Map<string, QueuedCommand>();
  private readonly byCandidate = new Map<string, string>();
  private seq = 0;

  constructor(private readonly client: Client, private readonly clock: Clock, private readonly log: Logger, private readonly deps: KarpenterDeps, private readonly events: DisruptionEvents) {}

  /** Whether any of the NodeClaims is part of a queued command. */
  has(claim: string): boolean {
    return this.byCandidate.has(claim);
  }

  /** NodeClaim names queued commands disrupt. */
  candidates(): ReadonlySet<string> {
    return new Set(this.byCandidate.keys());
  }

  size(): number {
    return this.commands.size;
  }

  add(cmd: Omit<QueuedCommand, 'id' | 'addedMs'>): boolean {
    if (this.commands.size >= maxQueued || cmd.candidates.some((c) => this.byCandidate.has(c))) return false;
    const id = `cmd-${++this.seq}`;
    this.commands.set(id, { ...cmd, id, addedMs: this.clock.nowMs() });
    for (const c of cmd.candidates) this.byCandidate.set(c, id);
    return true;
  }

  private async remove(id: string, untaint: boolean): Promise<void> {
    const cmd = this.commands.get(id);
    if (!cmd) return;
    this.commands.delete(id);
    for (const c of cmd.candidates) {
      this.byCandidate.delete(c);
      if (untaint) {
        const nc = this.deps.nodeClaims.get('', c);
        await setDisruptedTaint(this.client, nc?.status?.nodeName ?? c, false, this.log);
        await setDisruptionReason(this.client, c, undefined, this.clock, this.log);
      }
    }
  }

  /** Advances every command as far as it can go now; returns whether any finished. */
  async process(): Promise<boolean> {
    let progressed = false;
    for (const cmd of [...this.commands.values()]) {
      const age = this.clock.nowMs() - cmd.addedMs;
      if (age > maxCommandMs) {
        this.log.info({ command: cmd.id }, `command reached timeout after ${Math.round(age / 1000)}s, untainting candidates`);
        await this.remove(cmd.id, true);
        continue;
      }
      let ready = true;
      let failed = false;
      for (const r of cmd.replacements) {
        const nc = this.deps.nodeClaims.get('', r);
        if (!nc) {
          if (age > replacementGoneGraceMs) failed = true;
          ready = false;
          continue;
        }
        if (condTrue(nc, conditionTypes.initialized)) continue;
        this.events.launching(nc, cmd.reason);
        this.events.waitingReadiness(nc);
        ready = false;
      }
      if (failed) {
        this.log.info({ command: cmd.id }, 'replacement was deleted, abandoning the command');
        await this.remove(cmd.id, true);
        continue;
      }
      if (!ready) continue;
      for (const name of cmd.candidates) {
        const nc = this.deps.nodeClaims.get('', name);
        if (!nc) continue;
        const node = this.deps.nodes.get('', nc.status?.nodeName ?? name);
        this.events.terminating(node, nc, `${cmd.reason}/${cmd.decision.toLowerCase()}`);
        await this.deleteClaim(nc);
      }
      await this.remove(cmd.id, false);
      progressed = true;
    }
    return progressed;
  }

  private async deleteClaim(nc: NodeClaim): Promise<void> {
    try {
      await this.client.delete(nodeClaimsRef, '', nc.metadata.name ?? '');
    } catch (err) {
      this.log.debug({ err, nodeClaim: nc.metadata.name }, 'deleting the disrupted nodeclaim failed');
    }
  }
}
