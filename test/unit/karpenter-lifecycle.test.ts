// The NodeClaim lifecycle stage table: which stage is next, when it is due, and what launch and registration write.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node } from '../../src/generated/k8s/core/v1.js';
import { builtinCatalog } from '../../src/addons/karpenter/catalog.js';
import { dueIn, initialConditions, isTrue, launched, nextStage, nodeFor, registeredNode, type StageContext } from '../../src/addons/karpenter/lifecycle.js';
import { defaultSettings } from '../../src/addons/karpenter/settings.js';
import type { NodeClaim } from '../../src/addons/karpenter/types.js';

const catalog = builtinCatalog();
const t0 = new Date('2026-01-01T00:00:00Z');
const at = (s: number) => new Date(t0.getTime() + s * 1000);

function claim(): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim',
    metadata: { name: 'default-abcde', uid: 'u1', creationTimestamp: t0.toISOString().replace('.000', ''), labels: { 'karpenter.sh/nodepool': 'default' } },
    spec: {
      nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' },
      requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['c-2x-amd64-linux', 'c-4x-amd64-linux'] }, { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
      resources: { requests: { cpu: '1500m' } }, startupTaints: [{ key: 'agent', effect: 'NoSchedule' }],
    },
  };
}

test('launch waits launchSeconds, then picks the cheapest fitting offering and sets status', () => {
  const c = claim();
  initialConditions(c, t0);
  assert.equal(c.status!.conditions!.find((x) => x.type === 'Ready')!.status, 'Unknown');
  const ctx = (now: Date, cl = c, node?: Node): StageContext => ({ claim: cl, node, now, settings: { ...defaultSettings, launchSeconds: 5 }, catalog });
  const s = nextStage(ctx(at(1)))!;
  assert.equal(s.name, 'launch');
  assert.equal(dueIn(s, ctx(at(1))), 4000);
  const l = launched(c, catalog, at(5))!;
  assert.equal(l.metadata.labels!['node.kubernetes.io/instance-type'], 'c-2x-amd64-linux');
  assert.equal(l.metadata.labels!['karpenter.sh/capacity-type'], 'on-demand');
  assert.equal(l.status!.providerID, 'kwok://default-abcde');
  assert.equal(l.status!.allocatable!.cpu, '1900m');
  assert.ok(isTrue(l, 'Launched'));
  assert.equal(nextStage(ctx(at(5), l))!.name, 'create-node');
  const node = nodeFor(l);
  assert.deepEqual(node.spec!.taints!.map((t) => t.key), ['karpenter.sh/unregistered', 'agent']);
  assert.equal(node.metadata!.labels!['topology.kubernetes.io/zone'], l.metadata.labels!['topology.kubernetes.io/zone']);
  Object.assign(node.metadata!, { creationTimestamp: at(5).toISOString() });
  assert.equal(nextStage(ctx(at(5), l, node))!.name, 'register');
  const reg = registeredNode(node, l) as Node;
  assert.deepEqual(reg.spec!.taints!.map((t) => t.key), ['agent']);
  assert.equal(reg.metadata!.labels!['karpenter.sh/registered'], 'true');
  assert.deepEqual(reg.metadata!.finalizers, ['karpenter.sh/termination']);
  assert.equal(reg.metadata!.ownerReferences![0]!.kind, 'NodeClaim');
});

test('a claim nothing in the catalog can hold is not launched', () => {
  const c = claim();
  c.spec.resources = { requests: { cpu: '100' } };
  assert.equal(launched(c, catalog, t0), undefined);
});
