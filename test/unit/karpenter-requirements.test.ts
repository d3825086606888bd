// Karpenter's requirement sets: operators, intersection, compatibility of a pod with a NodePool, label matching.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allows, fromLabels, fromNodeSelector, incompatibility, intersect, matchesLabels, podRequirements, requirement, satisfiable, singleValueLabels } from '../../src/addons/karpenter/scheduling/requirements.js';

test('operators: In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte', () => {
  const r = (operator: string, values?: string[]) => requirement({ key: 'k', operator, values });
  assert.ok(allows(r('In', ['a']), 'a') && !allows(r('In', ['a']), 'b') && !allows(r('In', ['a']), undefined));
  assert.ok(!allows(r('NotIn', ['a']), 'a') && allows(r('NotIn', ['a']), 'b') && allows(r('NotIn', ['a']), undefined));
  assert.ok(allows(r('Exists'), 'x') && !allows(r('Exists'), undefined));
  assert.ok(!allows(r('DoesNotExist'), 'x') && allows(r('DoesNotExist'), undefined));
  assert.ok(allows(r('Gt', ['4']), '5') && !allows(r('Gt', ['4']), '4') && !allows(r('Gt', ['4']), 'x'));
  assert.ok(allows(r('Lt', ['4']), '3') && !allows(r('Lt', ['4']), '4'));
  assert.ok(allows(r('Gte', ['4']), '4') && allows(r('Lte', ['4']), '4') && !allows(r('Lte', ['4']), '5'));
  assert.ok(!allows(r('Bogus', ['4']), '4'));
});

test('intersection and satisfiability', () => {
  const i = intersect(requirement({ key: 'z', operator: 'In', values: ['a', 'b'] }), requirement({ key: 'z', operator: 'NotIn', values: ['a'] }));
  assert.deepEqual([...i.values], ['b']);
  assert.ok(satisfiable(i));
  const none = intersect(requirement({ key: 'z', operator: 'In', values: ['a'] }), requirement({ key: 'z', operator: 'In', values: ['b'] }));
  assert.ok(!satisfiable(none));
  const bounds = intersect(requirement({ key: 'c', operator: 'Gt', values: ['4'] }), requirement({ key: 'c', operator: 'Lt', values: ['5'] }));
  assert.ok(!satisfiable(bounds));
  const both = intersect(requirement({ key: 'c', operator: 'DoesNotExist' }), requirement({ key: 'c', operator: 'NotIn', values: ['x'] }));
  assert.ok(satisfiable(both) && allows(both, undefined));
  const inBounds = intersect(requirement({ key: 'c', operator: 'In', values: ['2', '8', '64'] }), requirement({ key: 'c', operator: 'Gt', values: ['4'] }));
  assert.deepEqual([...inBounds.values].sort(), ['64', '8']);
});

test('a pod against a NodePool: shared keys must overlap, unknown custom labels must be allowed absent', () => {
  const pool = fromNodeSelector([{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }]);
  for (const [k, v] of fromLabels({ team: 'a' })) pool.set(k, v);
  assert.equal(incompatibility(pool, fromLabels({ team: 'a' })), undefined);
  assert.match(incompatibility(pool, fromLabels({ team: 'b' })) ?? '', /key team/);
  assert.match(incompatibility(pool, fromLabels({ other: 'x' })) ?? '', /label "other" does not have known values/);
  assert.equal(incompatibility(pool, fromNodeSelector([{ key: 'other', operator: 'DoesNotExist' }])), undefined);
  assert.equal(incompatibility(pool, fromLabels({ 'topology.kubernetes.io/zone': 'zone-a' })), undefined, 'well-known keys need no NodePool value');
  assert.match(incompatibility(pool, fromLabels({ 'karpenter.sh/capacity-type': 'spot' })) ?? '', /capacity-type/);
});

test('pod requirements: nodeSelector with each ORed affinity term; label matching; pinned labels', () => {
  const opts = podRequirements({
    metadata: {},
    spec: {
      containers: [], nodeSelector: { disk: 'ssd' },
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
        { matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] },
        { matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] },
      ] } } },
    },
  });
  assert.equal(opts.length, 2);
  assert.ok(matchesLabels(opts[0]!, { disk: 'ssd', 'kubernetes.io/arch': 'arm64' }));
  assert.ok(!matchesLabels(opts[0]!, { disk: 'ssd', 'kubernetes.io/arch': 'amd64' }));
  assert.ok(matchesLabels(opts[1]!, { disk: 'ssd', 'kubernetes.io/arch': 'amd64' }));
  assert.deepEqual(singleValueLabels(opts[0]!), { disk: 'ssd', 'kubernetes.io/arch': 'arm64' });
  const proto = singleValueLabels(fromLabels(JSON.parse('{"__proto__":"x"}') as Record<string, string>));
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  assert.equal((proto as Record<string, string>)['__proto__'], 'x');
});
