// Karpenter consolidation figure (issue 12): 100 underutilised NodeClaims (4-CPU nodes, each running two 500m pods)
// are consolidated in memory by the disruption methods with the real provisioning simulation, one command after
// another (each applied: candidates removed, their pods placed as the simulation said) until no method finds one;
// the NodePool has the default budget (10% of its nodes per decision).
// The figure is decisions per second of decision computation (snapshot, budgets, methods), and the nodes and $/h
// before and after. Pure computation: no server, no clock.
import { performance } from 'node:perf_hooks';
import type { Node, Pod } from '../src/generated/k8s/core/v1.js';
import { builtinCatalog, cheapestPrice, instanceTypeLabels } from '../src/addons/karpenter/catalog.js';
import { computeCommand, methodOrder, type Command } from '../src/addons/karpenter/disruption/methods.js';
import { budgetMap, simulatorFor, takeSnapshot } from '../src/addons/karpenter/disruption/snapshot.js';
import type { NodeClaim, NodePool } from '../src/addons/karpenter/types.js';
import { target, type Row } from './table.js';

const T0 = Date.UTC(2026, 0, 1, 12);
const ts = new Date(T0 - 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
const catalog = builtinCatalog();
const pool: NodePool = {
  apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'default', uid: 'p' },
  spec: {
    template: { spec: { nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' }, requirements: [
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }, { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
    ] } },
    disruption: { consolidateAfter: '0s', consolidationPolicy: 'WhenEmptyOrUnderutilized', budgets: [{ nodes: '10%' }] },
  },
};

interface World { claims: Map<string, NodeClaim>; nodes: Map<string, Node>; pods: Map<string, Pod[]> }

function addNode(w: World, name: string, typeName: string): void {
  const t = catalog.get(typeName)!;
  const off = t.offerings.find((o) => o.capacityType === 'on-demand')!;
  const labels = { ...instanceTypeLabels(t), 'karpenter.sh/nodepool': 'default', 'karpenter.sh/capacity-type': 'on-demand', 'topology.kubernetes.io/zone': off.zone, 'kubernetes.io/hostname': name };
  const conds = ['Launched', 'Initialized', 'Consolidatable'].map((type) => ({ type, status: 'True' as const, reason: type, message: '', lastTransitionTime: ts }));
  w.claims.set(name, { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name, uid: name, labels, creationTimestamp: ts }, spec: { nodeClassRef: pool.spec.template.spec.nodeClassRef, requirements: [] }, status: { nodeName: name, conditions: conds } });
  w.nodes.set(name, { apiVersion: 'v1', kind: 'Node', metadata: { name, uid: `n-${name}`, labels }, spec: {}, status: { allocatable: t.allocatable, capacity: t.capacity, conditions: [{ type: 'Ready', status: 'True' }] } });
  w.pods.set(name, []);
}

const cost = (w: World) => [...w.nodes.values()].reduce((s, n) => s + (catalog.get(n.metadata!.labels!['node.kubernetes.io/instance-type'])?.offerings.find((o) => o.capacityType === 'on-demand' && o.zone === n.metadata!.labels!['topology.kubernetes.io/zone'])?.price ?? 0), 0);

function apply(w: World, cmd: Command, placed: Map<string, Pod[]>, seq: number): void {
  for (const c of cmd.candidates) {
    w.nodes.delete(c.node.metadata!.name!);
    w.claims.delete(c.claim.metadata.name!);
    w.pods.delete(c.node.metadata!.name!);
  }
  for (const [node, pods] of placed) w.pods.get(node)?.push(...pods.map((p) => ({ ...p, spec: { ...p.spec!, nodeName: node } })));
  cmd.replacements.forEach((r, i) => {
    const name = `replacement-${seq}-${i}`;
    addNode(w, name, [...r.instanceTypes].sort((a, b) => cheapestPrice(a) - cheapestPrice(b))[0].name);
    w.pods.get(name)!.push(...r.pods.map((p) => ({ ...p, spec: { ...p.spec!, nodeName: name } })));
  });
}

export interface ConsolidationFigure { nodesBefore: number; nodesAfter: number; decisions: number; computeMs: number; costBefore: number; costAfter: number }

export function consolidationFigure(nodes = 100): ConsolidationFigure {
  const w: World = { claims: new Map(), nodes: new Map(), pods: new Map() };
  for (let i = 0; i < nodes; i++) {
    const name = `node-${String(i).padStart(3, '0')}`;
    addNode(w, name, 'c-4x-amd64-linux');
    for (let j = 0; j < 2; j++) {
      w.pods.get(name)!.push({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}-${j}`, namespace: 'default', uid: `p-${i}-${j}`, labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs', controller: true }] },
        spec: { nodeName: name, containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '500m', memory: '256Mi' } } }] }, status: { phase: 'Running' } });
    }
  }
  const costBefore = cost(w);
  let decisions = 0;
  let computeMs = 0;
  for (let guard = 0; guard < 1000; guard++) {
    const t0 = performance.now();
    const snap = takeSnapshot({ nowMs: T0, pools: [pool], claims: [...w.claims.values()], nodes: [...w.nodes.values()], podsOn: (n) => w.pods.get(n) ?? [], pdbs: [], pending: [], inFlight: new Set(), catalog });
    let cmd: Command | undefined;
    let placed = new Map<string, Pod[]>();
    for (const m of methodOrder) {
      const sim = simulatorFor(snap);
      cmd = computeCommand(m, snap.candidates, budgetMap(snap), (cands, max) => {
        const r = sim(cands, max);
        placed = r.existing;
        return r;
      });
      if (cmd) break;
    }
    computeMs += performance.now() - t0;
    if (!cmd) break;
    decisions++;
    apply(w, cmd, placed, decisions);
  }
  return { nodesBefore: nodes, nodesAfter: w.nodes.size, decisions, computeMs, costBefore, costAfter: cost(w) };
}

export function karpenterConsolidationRows(quick: boolean, log: (msg: string) => void): Row[] {
  const n = quick ? 30 : 100;
  log(`20. Karpenter consolidation: ${n} underutilised 4-CPU NodeClaims (two 500m pods each), decisions until none is left`);
  const r = consolidationFigure(n);
  const perSec = r.decisions / (r.computeMs / 1000);
  log(`   ${r.decisions} decisions in ${r.computeMs.toFixed(0)} ms of computation; ${r.nodesBefore} -> ${r.nodesAfter} nodes, $${r.costBefore.toFixed(2)}/h -> $${r.costAfter.toFixed(2)}/h`);
  return [
    { figure: `20. consolidation of ${n} underutilised nodes: decisions per second`, value: `${perSec.toFixed(1)}/s`, baseline: '-', verdict: `${r.decisions} decisions, ${(r.computeMs / 1000).toFixed(2)} s computing` },
    { figure: `20. consolidation of ${n} underutilised nodes: nodes and $/h after`, value: `${r.nodesAfter} nodes, $${r.costAfter.toFixed(2)}/h`, baseline: `${r.nodesBefore} nodes, $${r.costBefore.toFixed(2)}/h`, verdict: target(r.nodesAfter <= Math.ceil(n / 3), `target <= ${Math.ceil(n / 3)} nodes`) },
  ];
}

// `node dist/bench/karpenter-consolidation.js` runs the figure alone.
if (process.argv[1]?.endsWith('karpenter-consolidation.js')) {
  const rows = karpenterConsolidationRows(process.env.BENCH_QUICK === '1', (m) => process.stderr.write(`${m}\n`));
  for (const r of rows) process.stdout.write(`${r.figure}: ${r.value} (was ${r.baseline}) ${r.verdict}\n`);
}
