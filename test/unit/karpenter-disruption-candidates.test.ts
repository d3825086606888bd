import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod } from '../../src/generated/k8s/core/v1.js';
import { checkCandidate, podsBlock, type CandidateContext } from '../../src/addons/karpenter/disruption/candidates.js';
import { consolidatableAt, driftReason, expiresAt } from '../../src/addons/karpenter/disruption/claim-conditions.js';
import type { NodePool } from '../../src/addons/karpenter/types.js';
import { T0, claimAndNode, iso, pdb, pod, pool } from './karpenter-disruption-fixtures.js';

const p = pool('default');
const ctx = (over: Partial<CandidateContext> = {}): CandidateContext => ({
  nowMs: T0, pools: new Map<string, NodePool>([['default', p]]), pdbs: [], inFlight: new Set(), nominated: new Set(), priceOf: () => 0.2, ...over,
});
const blockedText = (r: ReturnType<typeof checkCandidate>) => ('blocked' in r ? r.blocked : undefined);

test('an initialised NodeClaim with movable pods is a candidate; DaemonSet and finished pods do not move', () => {
  const { claim, node } = claimAndNode('n1', 'default');
  const done = { ...pod('done', 'n1'), status: { phase: 'Succeeded' } } as Pod;
  const r = checkCandidate(claim, node, [pod('a', 'n1'), pod('ds', 'n1', '100m', { daemonSet: true }), done], ctx());
  assert.ok('candidate' in r);
  assert.deepEqual(r.candidate.reschedulable.map((x) => x.metadata?.name), ['a']);
  assert.equal(r.candidate.price, 0.2);
  assert.ok(r.candidate.disruptionCost > 0);
});

test('node-level exclusions with upstream texts', () => {
  const { claim, node } = claimAndNode('n1', 'default');
  assert.equal(blockedText(checkCandidate(claimAndNode('n2', 'default', { initialized: false }).claim, node, [], ctx())), "Node isn't initialized");
  assert.equal(blockedText(checkCandidate({ ...claim, metadata: { ...claim.metadata, deletionTimestamp: iso(T0) } }, node, [], ctx())), 'Node is deleting or marked for deletion');
  assert.equal(blockedText(checkCandidate(claim, node, [], ctx({ nominated: new Set(['n1']) }))), 'Node is nominated for a pending pod');
  const annotated: Node = { ...node, metadata: { ...node.metadata, annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } };
  assert.equal(blockedText(checkCandidate(claim, annotated, [], ctx())), 'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation');
  const claimAnnotated = claimAndNode('n1', 'default', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }).claim;
  assert.match(blockedText(checkCandidate(claimAnnotated, node, [], ctx())) ?? '', /do-not-disrupt/);
  const inFlight = checkCandidate(claim, node, [], ctx({ inFlight: new Set(['n1']) }));
  assert.ok('blocked' in inFlight && inFlight.quiet);
  assert.equal(blockedText(checkCandidate(claimAndNode('x', 'gone').claim, node, [], ctx())), 'NodePool "gone" not found');
  assert.ok('blocked' in checkCandidate(claim, undefined, [], ctx()));
});

test('pods block: the do-not-disrupt annotation and PDBs that allow no disruption', () => {
  const { claim, node } = claimAndNode('n1', 'default');
  const dnd = pod('keep', 'n1', '1', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
  assert.equal(blockedText(checkCandidate(claim, node, [pod('a', 'n1'), dnd], ctx())), 'Pod "default/keep" has "karpenter.sh/do-not-disrupt" annotation');
  assert.equal(blockedText(checkCandidate(claim, node, [pod('a', 'n1')], ctx({ pdbs: [pdb('web', 0)] }))), 'Pdb "default/web" prevents pod evictions');
  assert.ok('candidate' in checkCandidate(claim, node, [pod('a', 'n1')], ctx({ pdbs: [pdb('web', 1)] })));
  assert.ok('candidate' in checkCandidate(claim, node, [pod('a', 'n1')], ctx({ pdbs: [pdb('other', 0, { app: 'db' })] })));
  // A finished pod with the annotation no longer blocks.
  assert.equal(podsBlock([{ ...dnd, status: { phase: 'Succeeded' } } as Pod], []), undefined);
});

test('Consolidatable: consolidateAfter after the last pod event, else after initialisation; Never disables', () => {
  const { claim } = claimAndNode('n1', 'default');
  const five = pool('p', { consolidateAfter: '5m' });
  assert.equal(consolidatableAt(five, claim), T0 - 3600_000 + 300_000);
  claim.status!.lastPodEventTime = iso(T0);
  assert.equal(consolidatableAt(five, claim), T0 + 300_000);
  assert.equal(consolidatableAt(pool('p', { consolidateAfter: 'Never' }), claim), undefined);
  assert.equal(consolidatableAt(five, claimAndNode('n2', 'p', { initialized: false }).claim), undefined);
});

test('Drifted: nodepool hash mismatch (same hash version) and requirements no longer met; expireAfter', () => {
  const np = pool('p', {}, { template: { metadata: {}, spec: { nodeClassRef: { group: 'g', kind: 'K', name: 'n' }, requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }] } } });
  np.metadata.annotations = { 'karpenter.sh/nodepool-hash': '111', 'karpenter.sh/nodepool-hash-version': 'v3' };
  const { claim } = claimAndNode('n1', 'p');
  claim.metadata.annotations = { 'karpenter.sh/nodepool-hash': '111', 'karpenter.sh/nodepool-hash-version': 'v3' };
  assert.equal(driftReason(np, claim), undefined);
  claim.metadata.annotations['karpenter.sh/nodepool-hash'] = '222';
  assert.equal(driftReason(np, claim), 'NodePoolDrifted');
  claim.metadata.annotations['karpenter.sh/nodepool-hash-version'] = 'v2';
  assert.equal(driftReason(np, claim), undefined, 'different hash versions are not compared');
  const spot = claimAndNode('n2', 'p', { capacityType: 'spot' }).claim;
  assert.equal(driftReason(np, spot), 'RequirementsDrifted');
  spot.spec.expireAfter = '2h';
  assert.equal(expiresAt(spot), T0 - 3600_000 + 7200_000);
  spot.spec.expireAfter = 'Never';
  assert.equal(expiresAt(spot), undefined);
});
