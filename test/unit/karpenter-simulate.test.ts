// Karpenter's provisioning simulation: packing, the cheapest compatible type, requirements, GPUs, taints, limits,
// zone spread, existing nodes first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { builtinCatalog, gpuResource } from '../../src/addons/karpenter/catalog.js';
import { cheapestOffering } from '../../src/addons/karpenter/scheduling/fit.js';
import { simulate, type SimNode } from '../../src/addons/karpenter/scheduling/simulate.js';
import type { NodePool } from '../../src/addons/karpenter/types.js';

const catalog = builtinCatalog();

function pool(name: string, extra: Partial<NodePool['spec']> = {}, reqs: NodePool['spec']['template']['spec']['requirements'] = []): NodePool {
  return {
    apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name, uid: `uid-${name}` },
    spec: { template: { spec: { nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' }, requirements: reqs } }, ...extra },
  };
}

function pod(name: string, requests: Record<string, string>, spec: Partial<NonNullable<Pod['spec']>> = {}, labels: Record<string, string> = {}): Pod {
  return { metadata: { name, namespace: 'default', labels }, spec: { containers: [{ name: 'c', image: 'x', resources: { requests, limits: requests[gpuResource] ? { [gpuResource]: requests[gpuResource]! } : undefined } }], ...spec } };
}

test('10 pods of 1 CPU pack into one claim of the cheapest type that holds them', () => {
  const pods = Array.from({ length: 10 }, (_, i) => pod(`p${i}`, { cpu: '1', memory: '1Gi' }));
  const r = simulate({ pods, nodes: [], pools: [pool('default')], catalog });
  assert.equal(r.failures.size, 0);
  assert.equal(r.newClaims.length, 1);
  const plan = r.newClaims[0]!;
  assert.equal(plan.pods.length, 10);
  const cheapest = plan.instanceTypes[0]!;
  assert.ok(cheapest.cpuMilli >= 11_000, `type ${cheapest.name} holds 10 CPUs plus overhead`);
  // Cheapest first: no later type's cheapest offering is cheaper.
  for (const t of plan.instanceTypes) assert.ok(Math.min(...t.offerings.map((o) => o.price)) >= plan.price - 1e-9, t.name);
  assert.equal(cheapest.name, 'c-16x-arm64-linux');
});

test('NodePool requirements narrow the types and the plan (on-demand, amd64, zone)', () => {
  const p = pool('od', {}, [
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
    { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
    { key: 'topology.kubernetes.io/zone', operator: 'NotIn', values: ['zone-a'] },
  ]);
  const r = simulate({ pods: [pod('a', { cpu: '3' })], nodes: [], pools: [p], catalog });
  const plan = r.newClaims[0]!;
  assert.equal(plan.instanceTypes[0]!.name, 'c-4x-amd64-linux');
  const offering = cheapestOffering(plan.instanceTypes[0]!, plan.requirements)!;
  assert.equal(offering.price, plan.price);
  assert.equal(offering.capacityType, 'on-demand');
  assert.notEqual(offering.zone, 'zone-a');
});

test('a 4-GPU pod gets a type with at least 4 GPUs; pods needing more than any type fail', () => {
  const r = simulate({ pods: [pod('g', { cpu: '1', [gpuResource]: '4' }), pod('huge', { cpu: '500' })], nodes: [], pools: [pool('default')], catalog });
  assert.equal(r.newClaims.length, 1);
  assert.equal(r.newClaims[0]!.instanceTypes[0]!.gpus, 4);
  assert.match(r.failures.get('default/huge') ?? '', /incompatible with nodepool "default"/);
});

test('nodeSelector on a custom label the NodePool does not set fails; one it sets works', () => {
  const labelled = pool('team', {});
  labelled.spec.template.metadata = { labels: { team: 'a' } };
  const r = simulate({ pods: [pod('x', { cpu: '1' }, { nodeSelector: { team: 'a' } }), pod('y', { cpu: '1' }, { nodeSelector: { team: 'b' } })], nodes: [], pools: [labelled], catalog });
  assert.equal(r.newClaims.length, 1);
  assert.deepEqual(r.newClaims[0]!.pods.map((p) => p.metadata?.name), ['x']);
  assert.ok(r.failures.has('default/y'));
});

test('taints need tolerations; weight orders the NodePools', () => {
  const tainted = pool('gpu', { weight: 50 });
  tainted.spec.template.spec.taints = [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }];
  const plain = simulate({ pods: [pod('plain', { cpu: '1' })], nodes: [], pools: [pool('default'), tainted], catalog });
  assert.deepEqual(plain.newClaims.map((c) => c.pool.metadata.name), ['default']);
  const tolerant = simulate({ pods: [pod('tolerant', { cpu: '1' }, { tolerations: [{ key: 'gpu', operator: 'Exists' }] })], nodes: [], pools: [pool('default'), tainted], catalog });
  assert.deepEqual(tolerant.newClaims.map((c) => c.pool.metadata.name), ['gpu']);
  const none = simulate({ pods: [pod('plain', { cpu: '1' })], nodes: [], pools: [tainted], catalog });
  assert.match(none.failures.get('default/plain') ?? '', /did not tolerate/);
});

test('limits: a NodePool at its limit is skipped with upstream\'s message', () => {
  const limited = pool('small', { limits: { cpu: '4' } });
  const r = simulate({ pods: [pod('a', { cpu: '1' })], nodes: [], pools: [limited], catalog, poolUsage: new Map([['small', { cpu: 4 }]]) });
  assert.equal(r.newClaims.length, 0);
  assert.equal(r.failures.get('default/a'), 'all available instance types exceed limits for nodepool (NodePool=small)');
  const r2 = simulate({ pods: Array.from({ length: 6 }, (_, i) => pod(`p${i}`, { cpu: '1' })), nodes: [], pools: [limited], catalog });
  assert.ok(r2.newClaims.every((c) => c.instanceTypes.every((t) => t.cpuMilli <= 4000)));
  assert.ok(r2.failures.size > 0);
});

test('existing nodes with room are used before new claims; taints and unschedulable respected', () => {
  const node = (name: string, extra: Partial<SimNode> = {}): SimNode => ({ name, labels: { 'topology.kubernetes.io/zone': 'zone-a' }, taints: [], allocatable: { cpu: 4, memory: 16 * 2 ** 30, pods: 110 }, pods: [], ...extra });
  const r = simulate({
    pods: [pod('a', { cpu: '2' }), pod('b', { cpu: '1' }), pod('c', { cpu: '2' })],
    nodes: [node('busy', { unschedulable: true }), node('n1')], pools: [pool('default')], catalog,
  });
  assert.deepEqual(r.existing.get('n1')?.map((p) => p.metadata?.name).sort(), ['a', 'c']);
  assert.equal(r.existing.get('busy'), undefined);
  assert.equal(r.newClaims.length, 1);
});

test('zone topology spread with maxSkew 1 spreads new claims over the zones', () => {
  const spread = { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule' as const, labelSelector: { matchLabels: { app: 'web' } } }] };
  const pods = Array.from({ length: 6 }, (_, i) => pod(`w${i}`, { cpu: '1' }, spread, { app: 'web' }));
  const r = simulate({ pods, nodes: [], pools: [pool('default')], catalog });
  assert.equal(r.failures.size, 0);
  const perZone = new Map<string, number>();
  for (const c of r.newClaims) {
    const z = c.requirements.get('topology.kubernetes.io/zone')!;
    assert.equal(z.values.size, 1);
    const zone = [...z.values][0]!;
    perZone.set(zone, (perZone.get(zone) ?? 0) + c.pods.length);
  }
  assert.deepEqual([...perZone.values()].sort(), [2, 2, 2]);
});

test('1,000 pods simulate, every one placed', () => {
  const pods = Array.from({ length: 1000 }, (_, i) => pod(`p${i}`, { cpu: i % 3 ? '1' : '500m', memory: i % 2 ? '1Gi' : '3Gi' }));
  const r = simulate({ pods, nodes: [], pools: [pool('default')], catalog });
  assert.equal(r.failures.size, 0);
  assert.equal(r.newClaims.reduce((n, c) => n + c.pods.length, 0), 1000);
});

test('hostile NodePools and pods neither crash the simulation nor reach Object.prototype', () => {
  const p = pool('evil', {}, [
    { key: '__proto__', operator: 'In', values: ['x'] },
    { key: 'constructor', operator: 'Gt', values: ['not-a-number'] },
    { key: 'karpenter.kwok.sh/instance-cpu', operator: 'Gt', values: ['1e400'] },
    { key: 'kubernetes.io/arch', operator: 'In', values: Array.from({ length: 5000 }, (_, i) => `a${i}`) },
  ]);
  p.spec.template.metadata = { labels: JSON.parse('{"__proto__":"y","toString":"z"}') as Record<string, string> };
  p.spec.limits = JSON.parse('{"__proto__":"1","cpu":"lots"}') as Record<string, string>;
  const terms = Array.from({ length: 10_000 }, () => ({ matchExpressions: [{ key: 'hasOwnProperty', operator: 'Exists' }] }));
  const hostile = pod('h', { cpu: '1', 'valueOf': '1' }, { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } }, nodeSelector: JSON.parse('{"__proto__":"x"}') as Record<string, string> });
  const r = simulate({ pods: [hostile, pod('ok', { cpu: '1' })], nodes: [{ name: '__proto__', labels: JSON.parse('{"__proto__":"x"}') as Record<string, string>, taints: [], allocatable: {}, pods: [] }], pools: [p, pool('default')], catalog });
  assert.equal(({} as Record<string, unknown>).x, undefined);
  assert.equal(({} as Record<string, unknown>).y, undefined);
  assert.ok(r.failures.has('default/h'));
  assert.deepEqual(r.newClaims.map((c) => c.pool.metadata.name), ['default']);
});

test('nodeClaimFor: name, labels, owner, hash, requirements and requests from the plan', async () => {
  const { nodeClaimFor, nodePoolHash, priceOf } = await import('../../src/addons/karpenter/nodeclaims.js');
  const p = pool('web', {}, [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }]);
  p.spec.template.metadata = { labels: { team: 'web' }, annotations: { note: 'x' } };
  p.spec.template.spec.startupTaints = [{ key: 'agent', effect: 'NoSchedule' }];
  const r = simulate({ pods: [pod('a', { cpu: '2', memory: '1Gi' })], nodes: [], pools: [p], catalog });
  const claim = nodeClaimFor(r.newClaims[0]!, new Date('2026-01-01T00:00:00Z'));
  assert.match(claim.metadata.name!, /^web-[a-z0-9]{5}$/);
  assert.equal(claim.metadata.labels!['karpenter.sh/nodepool'], 'web');
  assert.equal(claim.metadata.labels!['karpenter.sh/capacity-type'], 'on-demand');
  assert.equal(claim.metadata.labels!.team, 'web');
  assert.equal(claim.metadata.annotations!['karpenter.sh/nodepool-hash'], nodePoolHash(p));
  assert.equal(claim.metadata.annotations!['karpenter.sh/nodepool-hash-version'], 'v3');
  assert.deepEqual(claim.metadata.ownerReferences!.map((o) => [o.kind, o.name, o.uid]), [['NodePool', 'web', 'uid-web']]);
  assert.deepEqual(claim.spec.startupTaints, [{ key: 'agent', effect: 'NoSchedule' }]);
  assert.deepEqual(claim.spec.resources!.requests, { cpu: '2', memory: '1Gi', pods: '1' });
  const types = claim.spec.requirements.find((q) => q.key === 'node.kubernetes.io/instance-type')!;
  assert.equal(types.operator, 'In');
  assert.equal(types.values![0], r.newClaims[0]!.instanceTypes[0]!.name);
  const changed = structuredClone(p);
  changed.spec.template.metadata!.labels!.team = 'api';
  assert.notEqual(nodePoolHash(changed), nodePoolHash(p));
  const labelled = { metadata: { labels: { 'node.kubernetes.io/instance-type': 'c-4x-amd64-linux', 'karpenter.sh/capacity-type': 'spot', 'topology.kubernetes.io/zone': 'zone-b' } } };
  assert.equal(priceOf(labelled as never, catalog), catalog.get('c-4x-amd64-linux')!.offerings.find((o) => o.zone === 'zone-b' && o.capacityType === 'spot')!.price);
  assert.equal(priceOf({ metadata: {} } as never, catalog), undefined);
});
