// Partitionable devices: MIG profiles of an H100 consume their GPU's shared counters (80Gi, 7 compute slices), so a
// 7g.80gb slice and a 1g.10gb slice never share a GPU, whether in one claim, in two, or next to devices other claims
// already hold; and pools: generations, completeness, node selection, validity.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allocatedClaim, claim, devicesOf, driver, gpu, h100, l4, migClass, migNode, req, run, slice } from './dra-fixtures.js';

const profile = (p: string) => `device.attributes["${driver}"].profile == "${p}"`;
const mig = (name: string, p: string, count = 1) => req(name, { cls: migClass.metadata.name!, selectors: [profile(p)], count });

test('a 7g.80gb and a 1g.10gb slice cannot both take one GPU, in one claim or in two', async () => {
  const one = migNode('h100-mig', 1);
  const together = await run('h100-mig', one, [claim('c', [mig('big', '7g.80gb'), mig('small', '1g.10gb')])]);
  assert.ok(!together.ok && together.kind === 'unschedulable');
  const apart = await run('h100-mig', one, [claim('a', [mig('big', '7g.80gb')]), claim('b', [mig('small', '1g.10gb')])]);
  assert.ok(!apart.ok);
  // With two GPUs they land on different ones.
  const two = await run('h100-mig', migNode('h100-mig', 2), [claim('c', [mig('big', '7g.80gb'), mig('small', '1g.10gb')])]);
  assert.deepEqual(devicesOf(two), ['h100-mig/gpu-0-mig-7g.80gb-0', 'h100-mig/gpu-1-mig-1g.10gb-0']);
});

test('MIG slices fill a GPU up to its counters and no further', async () => {
  const one = migNode('h100-mig', 1);
  assert.equal(devicesOf(await run('h100-mig', one, [claim('c', [mig('s', '1g.10gb', 7)])])).length, 7);
  // 3g.40gb twice uses 6 of 7 compute slices and all 80Gi: no 1g.10gb fits beside them.
  assert.equal(devicesOf(await run('h100-mig', one, [claim('c', [mig('m', '3g.40gb', 2)])])).length, 2);
  const over = await run('h100-mig', one, [claim('c', [mig('m', '3g.40gb', 2), mig('s', '1g.10gb')])]);
  assert.ok(!over.ok);
  // The whole GPU consumes all of its counters too.
  const whole = await run('h100-mig', one, [claim('c', [req('gpu'), mig('s', '1g.10gb')])]);
  assert.ok(!whole.ok);
  const alone = await run('h100-mig', one, [claim('c', [req('gpu')])]);
  assert.deepEqual(devicesOf(alone), ['h100-mig/gpu-0']);
});

test('devices other claims hold consume their counters', async () => {
  const two = migNode('h100-mig', 2);
  const holding = [allocatedClaim('o', [{ pool: 'h100-mig', device: 'gpu-0-mig-1g.10gb-3' }])];
  const out = await run('h100-mig', two, [claim('c', [mig('big', '7g.80gb')])], { holding });
  assert.deepEqual(devicesOf(out), ['h100-mig/gpu-1-mig-7g.80gb-0']);
  const both = [...holding, allocatedClaim('p', [{ pool: 'h100-mig', device: 'gpu-1' }])];
  const none = await run('h100-mig', two, [claim('c', [mig('big', '7g.80gb')])], { holding: both });
  assert.ok(!none.ok);
  assert.deepEqual(!none.ok && none.requests, [{ claim: 'ml/c', request: 'big', reason: 'needs 1 device, 0 of 2 matching available (2 without enough shared counters left)' }]);
});

test('only the newest generation of a pool counts, and an incomplete pool is not used', async () => {
  const old = slice('n', [gpu('n', 0, h100)], { generation: 1, name: 'old' });
  const cur = slice('n', [gpu('n', 5, l4)], { generation: 2, name: 'new' });
  assert.deepEqual(devicesOf(await run('n', [old, cur], [claim('c', [req('gpu')])])), ['n/gpu-5']);
  const half = slice('n', [gpu('n', 0, l4)], { count: 2 });
  const out = await run('n', [half], [claim('c', [req('gpu')])]);
  assert.ok(!out.ok && out.kind === 'unschedulable');
  assert.deepEqual(!out.ok && out.requests[0], { claim: '', request: '', reason: `resource pool ${driver}/n is currently being updated` });
  const all = await run('n', [half], [claim('c', [req('gpu', { all: true })])]);
  assert.deepEqual(!all.ok && [all.kind, all.message], ['error', `claim ml/c, request gpu: asks for all devices, but resource pool ${driver}/n is currently being updated`]);
  // The pool's other slice, published for another node, completes it.
  const other = { ...slice('m', [gpu('m', 1, l4)], { count: 2, pool: 'n' }) };
  assert.deepEqual(devicesOf(await run('n', [half, other], [claim('c', [req('gpu', { count: 1 })])])), ['n/gpu-0']);
});

test('slices reach nodes by name, for all nodes, or by node selector, and the allocation says which', async () => {
  const shared = slice('x', [gpu('fabric', 0, h100)], { allNodes: true, pool: 'fabric' });
  const zoned = slice('x', [gpu('zone', 0, l4)], {
    pool: 'zone-a', nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a'] }] }] },
  });
  const elsewhere = slice('other-node', [gpu('other-node', 0, h100)]);
  const nodeA = { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'a' } };
  const out = await run(nodeA, [elsewhere, shared, zoned], [claim('c', [req('gpu', { all: true })])]);
  assert.deepEqual(devicesOf(out), ['fabric/gpu-0', 'zone-a/gpu-0']);
  assert.deepEqual(out.ok && out.allocations[0].nodeSelector, zoned.spec.nodeSelector);
  const onlyShared = await run(nodeA, [shared], [claim('c', [req('gpu')])]);
  assert.equal(onlyShared.ok && onlyShared.allocations[0].nodeSelector, undefined);
  assert.deepEqual(devicesOf(await run({ name: 'n2', labels: { 'topology.kubernetes.io/zone': 'b' } }, [elsewhere, shared, zoned], [claim('c', [req('gpu', { all: true })])])), ['fabric/gpu-0']);
  // Per-device node selection.
  const { nodeName: _, ...spec } = slice('x', [{ ...gpu('n1', 0, l4), nodeName: 'n1' }, { ...gpu('n9', 1, l4), nodeName: 'n9' }], { pool: 'pd' }).spec;
  const perDevice = { metadata: { name: 'pd' }, spec: { ...spec, perDeviceNodeSelection: true } };
  const pd = await run(nodeA, [perDevice], [claim('c', [req('gpu', { all: true })])]);
  assert.deepEqual(devicesOf(pd), ['pd/gpu-0']);
  assert.deepEqual(pd.ok && pd.allocations[0].nodeSelector?.nodeSelectorTerms[0].matchFields?.[0].values, ['n1']);
});

test('a pool that names a device twice is invalid and not used', async () => {
  const dup = [slice('n', [gpu('n', 0, l4)], { count: 2, name: 's1' }), slice('n', [gpu('n', 0, l4)], { count: 2, name: 's2' })];
  const out = await run('n', dup, [claim('c', [req('gpu')])]);
  assert.ok(!out.ok);
  assert.deepEqual(!out.ok && out.requests[0].reason, `resource pool ${driver}/n is invalid: duplicate device name gpu-0`);
});
