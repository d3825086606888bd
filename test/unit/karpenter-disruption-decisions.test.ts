import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod } from '../../src/generated/k8s/core/v1.js';
import { builtinCatalog } from '../../src/addons/karpenter/catalog.js';
import { computeCommand, decisionOf, methodOrder, type Command } from '../../src/addons/karpenter/disruption/methods.js';
import { consolidationMessage } from '../../src/addons/karpenter/disruption/messages.js';
import { budgetMap, simulatorFor, takeSnapshot, type Snapshot } from '../../src/addons/karpenter/disruption/snapshot.js';
import { requirement } from '../../src/addons/karpenter/scheduling/requirements.js';
import type { SimInput, SimResult } from '../../src/addons/karpenter/scheduling/types.js';
import { podRequests } from '../../src/machinery/resources.js';
import type { NodeClaim, NodePool } from '../../src/addons/karpenter/types.js';
import { T0, budgets, claimAndNode, pod, pool } from './karpenter-disruption-fixtures.js';

const catalog = builtinCatalog();

// A CPU-only stand-in for the provisioning simulation: first fit on schedulable nodes, then one new claim of the
// cheapest type that holds the rest (or failures when more claims would be needed than allowed).
function fakeSimulate(input: SimInput): SimResult {
  const free = new Map<string, number>();
  for (const n of input.nodes) if (!n.unschedulable) free.set(n.name, (n.allocatable.cpu ?? 0) - n.pods.reduce((s, p) => s + (podRequests(p).cpu ?? 0), 0));
  const existing = new Map<string, Pod[]>();
  const rest: Pod[] = [];
  for (const p of input.pods) {
    const cpu = podRequests(p).cpu ?? 0;
    const target = [...free].find(([, f]) => f >= cpu - 1e-9);
    if (!target) { rest.push(p); continue; }
    free.set(target[0], target[1] - cpu);
    existing.set(target[0], [...(existing.get(target[0]) ?? []), p]);
  }
  const failures = new Map<string, string>();
  if (!rest.length) return { existing, newClaims: [], failures };
  const need = rest.reduce((s, p) => s + (podRequests(p).cpu ?? 0), 0);
  const types = catalog.all().filter((t) => t.arch === 'amd64' && t.gpus === 0 && t.cpuMilli - 100 >= need * 1000);
  if (!types.length || (input.maxNewClaims ?? Infinity) < 1) {
    for (const p of rest) failures.set(`${p.metadata?.namespace}/${p.metadata?.name}`, 'no instance type fits');
    return { existing, newClaims: [], failures };
  }
  const plan = { pool: input.pools[0], pods: rest, requirements: new Map([['karpenter.sh/capacity-type', requirement({ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] })]]), instanceTypes: types, price: Math.min(...types[0].offerings.filter((o) => o.capacityType === 'on-demand').map((o) => o.price)), requests: { cpu: need } };
  return { existing, newClaims: [plan], failures };
}

function cluster(pools: NodePool[], nodes: Array<{ claim: NodeClaim; node: Node; pods: Pod[] }>): Snapshot {
  const podsBy = new Map(nodes.map((n) => [n.node.metadata!.name!, n.pods]));
  return takeSnapshot({
    nowMs: T0, pools, claims: nodes.map((n) => n.claim), nodes: nodes.map((n) => n.node), podsOn: (n) => podsBy.get(n) ?? [],
    pdbs: [], pending: [], inFlight: new Set(), catalog,
  });
}
const withPods = (name: string, poolName: string, cpus: string[], o = {}) => ({ ...claimAndNode(name, poolName, o), pods: cpus.map((c, i) => pod(`${name}-p${i}`, name, c)) });

function first(snap: Snapshot): Command | undefined {
  for (const m of methodOrder) {
    const cmd = computeCommand(m, snap.candidates, budgetMap(snap), simulatorFor(snap, fakeSimulate));
    if (cmd) return cmd;
  }
  return undefined;
}
const names = (c: Command | undefined) => c?.candidates.map((x) => x.claim.metadata.name).sort();

test('empty consolidatable nodes go first, all in one command within the budget', () => {
  const snap = cluster([pool('p', budgets({ nodes: '2' }))], [withPods('a', 'p', []), withPods('b', 'p', []), withPods('c', 'p', []), withPods('d', 'p', ['1'])]);
  const cmd = first(snap)!;
  assert.equal(cmd.method, 'Emptiness');
  assert.equal(cmd.reason, 'Empty');
  assert.equal(names(cmd)!.length, 2);
  assert.equal(decisionOf(cmd), 'Delete');
  assert.match(consolidationMessage(cmd, cmd.candidates[0]), /^Consolidation of node [abc] because it is empty and it saves \$0\.\d\d\/h \(part of a 2-node consolidation saving \$0\.\d\d\/h\)$/);
});

test('drift comes before emptiness and consolidation', () => {
  const snap = cluster([pool('p')], [withPods('a', 'p', []), withPods('b', 'p', ['1'], { drifted: true }), withPods('c', 'p', ['1'])]);
  const cmd = first(snap)!;
  assert.equal(cmd.method, 'Drift');
  assert.deepEqual(names(cmd), ['b']);
});

test('underutilised nodes whose pods fit elsewhere: multi-node consolidation deletes as many as fit', () => {
  // Three 4-CPU nodes each running 1 CPU: two can go, their pods fit on the third.
  const snap = cluster([pool('p')], [withPods('a', 'p', ['1']), withPods('b', 'p', ['1']), withPods('c', 'p', ['1'])]);
  const cmd = first(snap)!;
  assert.equal(cmd.method, 'MultiNodeConsolidation');
  assert.equal(cmd.candidates.length, 2);
  assert.equal(decisionOf(cmd), 'Delete');
  assert.ok(cmd.savings > 0.2);
  assert.match(consolidationMessage(cmd, cmd.candidates[0]), /because its pods fit elsewhere and it saves \$0\.\d\d\/h \(part of a 2-node consolidation saving \$0\.\d\d\/h\)/);
});

test('single-node: replaced by one cheaper NodeClaim when the pods do not fit on the others', () => {
  // A lone big node with a small pod: nothing else to go to, a 1-CPU type is cheaper.
  const snap = cluster([pool('p')], [withPods('big', 'p', ['500m'], { type: 'c-16x-amd64-linux', cpu: '15900m' })]);
  const cmd = first(snap)!;
  assert.equal(cmd.method, 'SingleNodeConsolidation');
  assert.equal(decisionOf(cmd), 'Replace');
  assert.equal(cmd.replacements.length, 1);
  assert.ok(cmd.replacements[0].instanceTypes.every((t) => t.cpuMilli < 16000));
  assert.ok(cmd.savings > 0);
  assert.match(consolidationMessage(cmd, cmd.candidates[0]), /with a cheaper replacement \(c-1x-amd64-linux\) and it saves/);
});

test('no command when nothing is cheaper, when consolidation is WhenEmpty, or when the budget is exhausted', () => {
  const full = cluster([pool('p')], [withPods('a', 'p', ['3500m'], { type: 'c-4x-amd64-linux' })]);
  const reasons: string[] = [];
  const report = { unconsolidatable: (_c: unknown, m: string) => reasons.push(m), blocked: (_c: unknown, m: string) => reasons.push(m) };
  assert.equal(computeCommand('SingleNodeConsolidation', full.candidates, budgetMap(full), simulatorFor(full, fakeSimulate), report), undefined);
  assert.deepEqual(reasons, ["Can't replace with a cheaper node"]);
  const whenEmpty = cluster([pool('p', { consolidationPolicy: 'WhenEmpty' })], [withPods('a', 'p', ['1']), withPods('b', 'p', ['1'])]);
  assert.equal(first(whenEmpty), undefined);
  const zero = cluster([pool('p', budgets({ nodes: '0' }))], [withPods('a', 'p', []), withPods('b', 'p', ['1']), withPods('c', 'p', ['1'])]);
  assert.equal(first(zero), undefined);
  const notYet = cluster([pool('p')], [withPods('a', 'p', [], { consolidatable: false })]);
  assert.equal(first(notYet), undefined);
});

test('a budget of one node disrupts one node per command; in-flight commands count against it', () => {
  const nodes = [withPods('a', 'p', ['1']), withPods('b', 'p', ['1']), withPods('c', 'p', ['1']), withPods('d', 'p', [])];
  const snap = cluster([pool('p', budgets({ nodes: '1' }))], nodes);
  const cmd = first(snap)!;
  assert.equal(cmd.candidates.length, 1);
  const podsBy = new Map(nodes.map((n) => [n.node.metadata!.name!, n.pods]));
  const busy = takeSnapshot({ nowMs: T0, pools: [pool('p', budgets({ nodes: '1' }))], claims: nodes.map((n) => n.claim), nodes: nodes.map((n) => n.node), podsOn: (n) => podsBy.get(n) ?? [], pdbs: [], pending: [], inFlight: new Set(['d']), catalog });
  assert.equal(first(busy), undefined);
});

test('spot-to-spot consolidation is disabled (upstream feature gate off); unplaceable pods are named', () => {
  const reasons: string[] = [];
  const report = { unconsolidatable: (_c: unknown, m: string) => reasons.push(m), blocked: (_c: unknown, m: string) => reasons.push(m) };
  const spotSim = (input: SimInput): SimResult => {
    const r = fakeSimulate(input);
    for (const p of r.newClaims) p.requirements = new Map([['karpenter.sh/capacity-type', requirement({ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] })]]);
    return r;
  };
  const spot = cluster([pool('p')], [withPods('s', 'p', ['500m'], { type: 'c-16x-amd64-linux', cpu: '15900m', capacityType: 'spot' })]);
  assert.equal(computeCommand('SingleNodeConsolidation', spot.candidates, budgetMap(spot), simulatorFor(spot, spotSim), report), undefined);
  assert.deepEqual(reasons, ["SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node"]);
  // An on-demand node may be replaced by spot: the replacement is narrowed to spot.
  const od = cluster([pool('p')], [withPods('o', 'p', ['500m'], { type: 'c-16x-amd64-linux', cpu: '15900m' })]);
  const cmd = computeCommand('SingleNodeConsolidation', od.candidates, budgetMap(od), simulatorFor(od, spotSim))!;
  assert.equal(decisionOf(cmd), 'Replace');
  assert.deepEqual([...cmd.replacements[0].requirements.get('karpenter.sh/capacity-type')!.values], ['spot']);
  reasons.length = 0;
  const huge = cluster([pool('p')], [withPods('h', 'p', ['100'], { type: 'c-16x-amd64-linux', cpu: '15900m' })]);
  assert.equal(computeCommand('SingleNodeConsolidation', huge.candidates, budgetMap(huge), simulatorFor(huge, (i) => fakeSimulate({ ...i, maxNewClaims: 0 })), report), undefined);
  assert.deepEqual(reasons, ['not all pods would schedule, default/h-p0 => no instance type fits']);
});

test('a NodeClaim the provisioner nominated pending pods to is not a candidate (DisruptionBlocked text)', () => {
  const nodes = [withPods('a', 'p', []), withPods('b', 'p', [])];
  const podsBy = new Map(nodes.map((n) => [n.node.metadata!.name!, n.pods]));
  const snap = takeSnapshot({ nowMs: T0, pools: [pool('p')], claims: nodes.map((n) => n.claim), nodes: nodes.map((n) => n.node), podsOn: (n) => podsBy.get(n) ?? [], pdbs: [], pending: [], inFlight: new Set(), nominatedClaims: new Set(['a']), catalog });
  assert.deepEqual(snap.candidates.map((c) => c.claim.metadata.name), ['b']);
  assert.deepEqual(snap.blocked.map((b) => [b.claim.metadata.name, b.message]), [['a', 'Node is nominated for a pending pod']]);
  assert.deepEqual(names(first(snap)), ['b']);
});
