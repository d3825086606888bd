// Which NodeClaims the disruption methods may consider, and why the others may not (upstream's StateNode
// ValidateNodeDisruptable / ValidatePodsDisruptable and NewCandidate, as pure functions over a snapshot).
import type { Node, Pod } from '../../../generated/k8s/core/v1.js';
import type { PodDisruptionBudget } from '../../../generated/k8s/policy/v1.js';
import { labelSelectorMatches } from '../../../machinery/labels.js';
import { annotations as ann, conditionTypes, labels as wk, type NodeClaim, type NodePool } from '../types.js';
import { sentence } from './events.js';

export interface Candidate {
  claim: NodeClaim;
  node: Node;
  pool: NodePool;
  /** Every pod bound to the node. */
  pods: Pod[];
  /** The pods that move when the node goes (not DaemonSet, mirror, terminal or terminating pods). */
  reschedulable: Pod[];
  /** The launched offering's $/h (0 when unknown). */
  price: number;
  /** Upstream's disruption cost: eviction cost of the pods scaled by the lifetime left (lower goes first). */
  disruptionCost: number;
}

export type CandidateCheck = { candidate: Candidate } | { blocked: string; quiet?: boolean };

export interface CandidateContext {
  nowMs: number;
  pools: ReadonlyMap<string, NodePool>;
  pdbs: readonly PodDisruptionBudget[];
  /** Names of the NodeClaims a running command already disrupts. */
  inFlight: ReadonlySet<string>;
  /** Node names a pending pod is nominated to. */
  nominated: ReadonlySet<string>;
  priceOf(claim: NodeClaim, node: Node): number;
}

export const condTrue = (o: { status?: { conditions?: Array<{ type: string; status: string }> } }, type: string): boolean =>
  o.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;

export const isTerminal = (p: Pod): boolean => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
const isDaemonSetPod = (p: Pod): boolean => p.metadata?.ownerReferences?.some((o) => o.kind === 'DaemonSet' && o.controller === true) ?? false;
const isMirrorPod = (p: Pod): boolean => p.metadata?.annotations?.['kubernetes.io/config.mirror'] !== undefined;
const podKey = (p: Pod): string => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;

/** A pod the node's removal moves elsewhere. */
export function isReschedulable(p: Pod): boolean {
  return !isTerminal(p) && !p.metadata?.deletionTimestamp && !isDaemonSetPod(p) && !isMirrorPod(p);
}

const hasDoNotDisrupt = (o: { metadata?: { annotations?: Record<string, string> } }): boolean => o.metadata?.annotations?.[ann.doNotDisrupt] === 'true';

/** The PDBs selecting the pod (same namespace, selector matches; an empty selector matches every pod). */
export function pdbsFor(pod: Pod, pdbs: readonly PodDisruptionBudget[]): PodDisruptionBudget[] {
  const out: PodDisruptionBudget[] = [];
  for (const b of pdbs) {
    if (b.metadata?.namespace !== pod.metadata?.namespace || !b.spec?.selector) continue;
    if (labelSelectorMatches(b.spec.selector, pod.metadata?.labels ?? {})) out.push(b);
  }
  return out;
}

/** Why the pods on a node block its disruption (upstream's texts before capitalisation), or undefined. */
export function podsBlock(pods: readonly Pod[], pdbs: readonly PodDisruptionBudget[]): string | undefined {
  for (const p of pods) if (!isTerminal(p) && !p.metadata?.deletionTimestamp && hasDoNotDisrupt(p)) return `pod "${podKey(p)}" has "${ann.doNotDisrupt}" annotation`;
  for (const p of pods) {
    if (isTerminal(p) || p.metadata?.deletionTimestamp || isMirrorPod(p)) continue;
    const matching = pdbsFor(p, pdbs);
    if (matching.length > 1) return `pod "${podKey(p)}" has multiple PDBs`;
    const b = matching[0];
    if (b && (b.status?.disruptionsAllowed ?? 0) <= 0) return `pdb "${b.metadata?.namespace}/${b.metadata?.name}" prevents pod evictions`;
  }
  return undefined;
}

/** Upstream's EvictionCost, simplified: 1 per pod, more for higher priority and pod-deletion-cost. */
function evictionCost(p: Pod): number {
  let cost = 1;
  const dc = Number(p.metadata?.annotations?.['controller.kubernetes.io/pod-deletion-cost']);
  if (Number.isFinite(dc)) cost += Math.max(-1, Math.min(1, dc / 2 ** 27));
  const prio = p.spec?.priority ?? 0;
  cost += Math.max(-1, Math.min(1, prio / 2 ** 25));
  return Math.max(0, cost);
}

/** The share of the NodeClaim's life left under expireAfter (1 without one). */
function lifetimeRemaining(claim: NodeClaim, nowMs: number, expireMs: number | undefined): number {
  if (expireMs === undefined || expireMs <= 0) return 1;
  const age = nowMs - Date.parse(claim.metadata.creationTimestamp ?? '');
  if (!Number.isFinite(age)) return 1;
  return Math.max(0, Math.min(1, (expireMs - age) / expireMs));
}

/**
 * Checks one NodeClaim (with its node and pods) as a disruption candidate. `blocked` carries the text of the
 * DisruptionBlocked event (capitalised as upstream), `quiet` when upstream publishes none.
 */
export function checkCandidate(claim: NodeClaim, node: Node | undefined, pods: readonly Pod[], ctx: CandidateContext, expireMs?: number): CandidateCheck {
  const name = claim.metadata.name ?? '';
  if (!node) return { blocked: sentence('nodeclaim does not have an associated node'), quiet: true };
  if (!condTrue(claim, conditionTypes.initialized)) return { blocked: sentence("node isn't initialized") };
  if (claim.metadata.deletionTimestamp || node.metadata?.deletionTimestamp) return { blocked: sentence('node is deleting or marked for deletion') };
  if (ctx.inFlight.has(name)) return { blocked: 'candidate is already being disrupted', quiet: true };
  if (ctx.nominated.has(node.metadata?.name ?? '')) return { blocked: sentence('node is nominated for a pending pod') };
  if (hasDoNotDisrupt(node) || hasDoNotDisrupt(claim)) return { blocked: sentence(`disruption is blocked through the "${ann.doNotDisrupt}" annotation`) };
  const poolName = claim.metadata.labels?.[wk.nodePool] ?? node.metadata?.labels?.[wk.nodePool];
  if (!poolName) return { blocked: sentence(`node doesn't have required label "${wk.nodePool}"`) };
  const pool = ctx.pools.get(poolName);
  if (!pool) return { blocked: `NodePool "${poolName}" not found` };
  const block = podsBlock(pods, ctx.pdbs);
  if (block) return { blocked: sentence(block) };
  const reschedulable = pods.filter(isReschedulable);
  const life = lifetimeRemaining(claim, ctx.nowMs, expireMs);
  let cost = 0;
  for (const p of reschedulable) cost += evictionCost(p);
  return { candidate: { claim, node, pool, pods: [...pods], reschedulable, price: ctx.priceOf(claim, node), disruptionCost: cost * life } };
}
