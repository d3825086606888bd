// One look at the cluster for a disruption pass: the NodePools, the candidates (and why the others are not), the
// nodes as the scheduling simulation sees them, and the budgets left per NodePool and reason.
import type { Node, Pod } from '../../../generated/k8s/core/v1.js';
import type { PodDisruptionBudget } from '../../../generated/k8s/policy/v1.js';
import { isNodeReady } from '../../../machinery/conditions.js';
import { amounts } from '../../../machinery/resources.js';
import type { Catalog } from '../catalog.js';
import { priceOf } from '../nodeclaims.js';
import { simulate } from '../scheduling/simulate.js';
import type { SimNode, SimResult } from '../scheduling/types.js';
import { conditionTypes, disruptedTaint, labels as wk, type NodeClaim, type NodePool } from '../types.js';
import { allowedDisruptions, type DisruptionReason } from './budgets.js';
import { checkCandidate, condTrue, isReschedulable, isTerminal, type Candidate } from './candidates.js';
import { durationMs } from './claim-conditions.js';
import type { BudgetMap, Simulate } from './methods.js';

export interface ClusterView {
  nowMs: number;
  pools: readonly NodePool[];
  claims: readonly NodeClaim[];
  nodes: readonly Node[];
  podsOn(nodeName: string): readonly Pod[];
  pdbs: readonly PodDisruptionBudget[];
  /** Pending pods (for nominations). */
  pending: readonly Pod[];
  /** NodeClaims queued commands disrupt. */
  inFlight: ReadonlySet<string>;
  /** NodeClaims the provisioner nominated pending pods to. */
  nominatedClaims?: ReadonlySet<string>;
  catalog: Catalog;
}

export interface Snapshot {
  view: ClusterView;
  pools: Map<string, NodePool>;
  candidates: Candidate[];
  blocked: Array<{ claim: NodeClaim; node?: Node; message: string }>;
  simNodes: SimNode[];
}

const hasTaint = (n: Node, key: string): boolean => n.spec?.taints?.some((t) => t.key === key) ?? false;

export function takeSnapshot(view: ClusterView): Snapshot {
  const pools = new Map<string, NodePool>();
  for (const p of view.pools) pools.set(p.metadata.name ?? '', p);
  const nominated = new Set<string>();
  for (const p of view.pending) if (p.status?.nominatedNodeName) nominated.add(p.status.nominatedNodeName);
  for (const c of view.claims) if (view.nominatedClaims?.has(c.metadata.name ?? '') && c.status?.nodeName) nominated.add(c.status.nodeName);
  const nodeByName = new Map<string, Node>();
  for (const n of view.nodes) nodeByName.set(n.metadata?.name ?? '', n);
  const claimByNode = new Map<string, NodeClaim>();
  const candidates: Candidate[] = [];
  const blocked: Snapshot['blocked'] = [];
  const ctx = {
    nowMs: view.nowMs, pools, pdbs: view.pdbs, inFlight: view.inFlight, nominated,
    priceOf: (claim: NodeClaim, node: Node) => priceOf(node, view.catalog) ?? priceOf(claim, view.catalog) ?? 0,
  };
  for (const claim of view.claims) {
    const nodeName = claim.status?.nodeName;
    const node = nodeName ? nodeByName.get(nodeName) : undefined;
    if (node) claimByNode.set(nodeName!, claim);
    const pods = node ? view.podsOn(nodeName!) : [];
    const pool = pools.get(claim.metadata.labels?.[wk.nodePool] ?? '');
    const r = checkCandidate(claim, node, pods, ctx, durationMs(claim.spec?.expireAfter ?? pool?.spec?.template?.spec?.expireAfter));
    if ('candidate' in r) candidates.push(r.candidate);
    else if (!r.quiet) blocked.push({ claim, node, message: r.blocked });
  }
  const simNodes: SimNode[] = [];
  for (const n of view.nodes) {
    const name = n.metadata?.name ?? '';
    const claim = claimByNode.get(name);
    const unschedulable = !!n.spec?.unschedulable || !isNodeReady(n) || !!n.metadata?.deletionTimestamp || hasTaint(n, disruptedTaint.key) ||
      (claim !== undefined && (!!claim.metadata.deletionTimestamp || view.inFlight.has(claim.metadata.name ?? '') || !condTrue(claim, conditionTypes.initialized)));
    simNodes.push({
      name, nodeClaim: claim?.metadata.name, pool: n.metadata?.labels?.[wk.nodePool], labels: n.metadata?.labels ?? {},
      taints: (n.spec?.taints ?? []).filter((t) => t.key !== disruptedTaint.key), allocatable: amounts(n.status?.allocatable as Record<string, unknown> | undefined),
      pods: view.podsOn(name).filter((p) => !isTerminal(p)), unschedulable: unschedulable || undefined,
    });
  }
  return { view, pools, candidates, blocked, simNodes };
}

/** The simulation for "where do these candidates' pods go": every other node, the NodePools, at most N new claims. */
export function simulatorFor(snap: Snapshot, run: (input: Parameters<typeof simulate>[0]) => SimResult = simulate): Simulate {
  const pools = [...snap.pools.values()];
  return (cands, maxNewClaims) => {
    const gone = new Set(cands.map((c) => c.node.metadata?.name ?? ''));
    const pods: Pod[] = [];
    for (const c of cands) for (const p of c.reschedulable) if (isReschedulable(p)) pods.push({ ...p, spec: { ...p.spec!, nodeName: undefined } });
    return run({ pods, nodes: snap.simNodes.filter((n) => !gone.has(n.name)), pools, catalog: snap.view.catalog, maxNewClaims });
  };
}

/** The budgets left per NodePool (every reason), counting the nodes already being disrupted. */
export function budgetMap(snap: Snapshot, onBlocked?: (pool: NodePool, reason: DisruptionReason | undefined) => void): BudgetMap {
  const total = new Map<string, number>();
  const disrupting = new Map<string, number>();
  const nodeByName = new Map<string, Node>();
  for (const n of snap.view.nodes) nodeByName.set(n.metadata?.name ?? '', n);
  for (const c of snap.view.claims) {
    if (!condTrue(c, conditionTypes.initialized)) continue;
    const pool = c.metadata.labels?.[wk.nodePool] ?? '';
    total.set(pool, (total.get(pool) ?? 0) + 1);
    const node = nodeByName.get(c.status?.nodeName ?? '');
    if (c.metadata.deletionTimestamp || !node || !isNodeReady(node) || node.metadata?.deletionTimestamp || snap.view.inFlight.has(c.metadata.name ?? '')) {
      disrupting.set(pool, (disrupting.get(pool) ?? 0) + 1);
    }
  }
  const out: BudgetMap = new Map();
  for (const [name, pool] of snap.pools) {
    const n = total.get(name) ?? 0;
    const a = allowedDisruptions(pool, n, disrupting.get(name) ?? 0, snap.view.nowMs);
    out.set(name, a);
    if (onBlocked && n > 0) {
      if (a.Underutilized === 0 && a.Empty === 0 && a.Drifted === 0) onBlocked(pool, undefined);
      else for (const r of ['Underutilized', 'Empty', 'Drifted'] as const) if (a[r] === 0) onBlocked(pool, r);
    }
  }
  return out;
}
