// The DRA allocator on realistic GPU nodes: selectors over attributes and capacity, counts, All, firstAvailable,
// admin access, constraints, taints, devices other claims hold, several claims at once, and the results' shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failureText } from '../../src/scheduler/dra/index.js';
import {
  allocatedClaim, claim, classes, deviceClass, devicesOf, driver, gpu, gpuClass, gpuNode, h100, l4, req, run, slice,
} from './dra-fixtures.js';

const h100Node = gpuNode('h100-node', 8, h100);
const l4Node = gpuNode('l4-node', 2, l4);
const both = [h100Node, l4Node];
const memory80 = `device.capacity["${driver}"].memory.compareTo(quantity("80Gi")) >= 0`;

test('a claim for a GPU with at least 80Gi lands on the H100 node, and the L4 node says why not', async () => {
  const c = claim('big', [req('gpu', { selectors: [memory80] })]);
  assert.deepEqual(devicesOf(await run('h100-node', both, [c])), ['h100-node/gpu-0']);
  const out = await run('l4-node', both, [c]);
  assert.equal(out.ok, false);
  if (out.ok) return;
  assert.equal(out.kind, 'unschedulable');
  assert.equal(out.message, 'cannot allocate all claims');
  assert.deepEqual(out.requests, [{ claim: 'ml/big', request: 'gpu', reason: "no device matches device class gpu.bonsai.dev and the request's selectors" }]);
  assert.equal(failureText(out.message, out.requests), "cannot allocate all claims: claim ml/big, request gpu: no device matches device class gpu.bonsai.dev and the request's selectors");
});

test('the allocation names each device, pins the claim to the node and carries class and claim config', async () => {
  const cls = { ...gpuClass, spec: { ...gpuClass.spec, config: [{ opaque: { driver, parameters: { sharing: 'none' } } }] } };
  const c = claim('cfg', [req('a'), req('b', { count: 2 })], {
    config: [{ requests: ['b'], opaque: { driver, parameters: { mps: true } } }, { opaque: { driver, parameters: { all: 1 } } }],
  });
  const out = await run('h100-node', both, [c], { classes: classes(cls) });
  assert.ok(out.ok);
  if (!out.ok) return;
  assert.deepEqual(out.allocations[0], {
    devices: {
      results: [
        { request: 'a', driver, pool: 'h100-node', device: 'gpu-0' },
        { request: 'b', driver, pool: 'h100-node', device: 'gpu-1' },
        { request: 'b', driver, pool: 'h100-node', device: 'gpu-2' },
      ],
      config: [
        // The class's config applies to both requests, so it names none.
        { source: 'FromClass', opaque: { driver, parameters: { sharing: 'none' } } },
        { source: 'FromClaim', requests: ['b'], opaque: { driver, parameters: { mps: true } } },
        { source: 'FromClaim', opaque: { driver, parameters: { all: 1 } } },
      ],
    },
    nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['h100-node'] }] }] },
  });
});

test('ExactCount takes distinct devices and fails when the node has too few', async () => {
  assert.deepEqual(devicesOf(await run('l4-node', both, [claim('two', [req('gpu', { count: 2 })])])), ['l4-node/gpu-0', 'l4-node/gpu-1']);
  const out = await run('l4-node', both, [claim('three', [req('gpu', { count: 3 })])]);
  assert.ok(!out.ok && out.kind === 'unschedulable');
  assert.deepEqual(!out.ok && out.requests, [{ claim: 'ml/three', request: 'gpu', reason: 'needs 3 devices, 2 of 2 matching available' }]);
});

test('All takes every matching device, and none if one of them is held', async () => {
  assert.equal(devicesOf(await run('h100-node', both, [claim('all', [req('gpu', { all: true })])])).length, 8);
  const holding = [allocatedClaim('other', [{ pool: 'h100-node', device: 'gpu-3' }])];
  const out = await run('h100-node', both, [claim('all', [req('gpu', { all: true })])], { holding });
  assert.ok(!out.ok);
  assert.deepEqual(!out.ok && out.requests, [{ claim: 'ml/all', request: 'gpu', reason: 'needs all 8 matching devices, 7 of 8 matching available (1 in use)' }]);
  const none = await run('l4-node', both, [claim('all', [req('gpu', { all: true, selectors: [memory80] })])]);
  assert.ok(!none.ok && none.kind === 'unschedulable');
});

test('firstAvailable tries its alternatives in order and names the result request/subrequest', async () => {
  const c = claim('pref', [{
    name: 'gpu',
    firstAvailable: [
      { name: 'h100', deviceClassName: gpuClass.metadata.name!, selectors: [{ cel: { expression: memory80 } }] },
      { name: 'two-l4', deviceClassName: gpuClass.metadata.name!, count: 2 },
    ],
  }], { config: [{ requests: ['gpu/two-l4'], opaque: { driver, parameters: { x: 1 } } }] });
  assert.deepEqual(devicesOf(await run('h100-node', both, [c]), 0, true), ['gpu/h100=h100-node/gpu-0']);
  const out = await run('l4-node', both, [c]);
  assert.deepEqual(devicesOf(out, 0, true), ['gpu/two-l4=l4-node/gpu-0', 'gpu/two-l4=l4-node/gpu-1']);
  assert.deepEqual(out.ok && out.allocations[0].devices?.config, [{ source: 'FromClaim', opaque: { driver, parameters: { x: 1 } } }]);
  const held = await run('l4-node', both, [c], { holding: [allocatedClaim('o', [{ pool: 'l4-node', device: 'gpu-1' }])] });
  assert.deepEqual(!held.ok && held.requests.map((r) => r.request), ['gpu/h100', 'gpu/two-l4']);
});

test('admin access may take a device another claim holds, but not twice in one claim', async () => {
  const holding = [allocatedClaim('o', [{ pool: 'l4-node', device: 'gpu-0' }, { pool: 'l4-node', device: 'gpu-1' }])];
  const plain = await run('l4-node', both, [claim('p', [req('gpu')])], { holding });
  assert.ok(!plain.ok);
  const admin = await run('l4-node', both, [claim('mon', [req('gpu', { adminAccess: true, count: 2 })])], { holding });
  assert.ok(admin.ok);
  assert.deepEqual(admin.ok && admin.allocations[0].devices?.results?.map((r) => [r.device, r.adminAccess]), [['gpu-0', true], ['gpu-1', true]]);
  assert.ok(!(await run('l4-node', both, [claim('mon', [req('gpu', { adminAccess: true, count: 3 })])], { holding })).ok);
  // An admin-access allocation does not hold its device.
  const monitored = [allocatedClaim('mon', [{ pool: 'l4-node', device: 'gpu-0', adminAccess: true }])];
  assert.deepEqual(devicesOf(await run('l4-node', both, [claim('p', [req('gpu')])], { holding: monitored })), ['l4-node/gpu-0']);
});

test('matchAttribute keeps devices on one PCIe root, backtracking past a root with too few', async () => {
  const node = slice('topo', [gpu('topo', 0, l4, { pcieRoot: 'a' }), gpu('topo', 1, l4, { pcieRoot: 'b' }), gpu('topo', 2, l4, { pcieRoot: 'b' })]);
  const same = { matchAttribute: 'resource.kubernetes.io/pcieRoot' };
  assert.deepEqual(devicesOf(await run('topo', [node], [claim('pair', [req('gpu', { count: 2 })], { constraints: [same] })])), ['topo/gpu-1', 'topo/gpu-2']);
  // Across two requests; the driver's own attributes may be named with its domain.
  const c = claim('pair', [req('a'), req('b')], { constraints: [{ ...same, requests: ['a', 'b'] }, { matchAttribute: `${driver}/productName` }] });
  assert.deepEqual(devicesOf(await run('topo', [node], [c])), ['topo/gpu-1', 'topo/gpu-2']);
  const three = await run('topo', [node], [claim('trio', [req('gpu', { count: 3 })], { constraints: [same] })]);
  assert.ok(!three.ok && three.kind === 'unschedulable');
  assert.match(!three.ok ? three.requests[0].reason : '', /cannot be met together/);
  // A device without the attribute never satisfies the constraint.
  const missing = await run('topo', [node], [claim('m', [req('gpu')], { constraints: [{ matchAttribute: 'example.com/none' }] })]);
  assert.ok(!missing.ok);
  const distinct = claim('d', [req('gpu', { count: 2 })], { constraints: [{ distinctAttribute: 'resource.kubernetes.io/pcieRoot' }] });
  assert.deepEqual(devicesOf(await run('topo', [node], [distinct])), ['topo/gpu-0', 'topo/gpu-1']);
});

test('tainted devices are skipped unless the request tolerates the taint', async () => {
  const taint = { key: 'gpu.bonsai.dev/ecc-errors', value: 'true', effect: 'NoSchedule' };
  const node = slice('t', [gpu('t', 0, l4, { taints: [taint] }), gpu('t', 1, l4, { taints: [{ key: 'info', effect: 'None' }] })]);
  assert.deepEqual(devicesOf(await run('t', [node], [claim('c', [req('gpu', { count: 1 })])])), ['t/gpu-1']);
  const two = await run('t', [node], [claim('c', [req('gpu', { count: 2 })])]);
  assert.deepEqual(!two.ok && two.requests[0].reason, 'needs 2 devices, 1 of 2 matching available (1 with a taint not tolerated)');
  const tolerations = [{ key: 'gpu.bonsai.dev/ecc-errors', operator: 'Exists', effect: 'NoSchedule' }];
  const out = await run('t', [node], [claim('c', [req('gpu', { count: 2, tolerations })])]);
  assert.deepEqual(out.ok && out.allocations[0].devices?.results?.[0].tolerations, tolerations);
  const wrongValue = [{ key: 'gpu.bonsai.dev/ecc-errors', value: 'false', effect: 'NoSchedule' }];
  assert.ok(!(await run('t', [node], [claim('c', [req('gpu', { count: 2, tolerations: wrongValue })])])).ok);
  const noExecute = slice('t', [gpu('t', 0, l4, { taints: [{ ...taint, effect: 'NoExecute' }] })]);
  assert.ok(!(await run('t', [noExecute], [claim('c', [req('gpu', { tolerations })])])).ok);
});

test("a pod's claims are allocated together or not at all, never sharing a device", async () => {
  const claims = [claim('a', [req('gpu')]), claim('b', [req('gpu')])];
  const out = await run('l4-node', both, claims);
  assert.deepEqual([devicesOf(out, 0), devicesOf(out, 1)], [['l4-node/gpu-0'], ['l4-node/gpu-1']]);
  const held = await run('l4-node', both, claims, { holding: [allocatedClaim('o', [{ pool: 'l4-node', device: 'gpu-0' }])] });
  assert.ok(!held.ok && held.kind === 'unschedulable');
  assert.deepEqual(!held.ok && held.requests, [{ claim: '', request: '', reason: 'the claims need 2 devices in all, 1 is free' }]);
  // Enough devices in all, but the claims' constraints conflict.
  const topo = slice('t', [gpu('t', 0, l4, { pcieRoot: 'a' }), gpu('t', 1, l4, { pcieRoot: 'b' })]);
  const pair = claim('pair', [req('gpu', { count: 2 })], { constraints: [{ matchAttribute: 'resource.kubernetes.io/pcieRoot' }] });
  const conflict = await run('t', [topo], [pair]);
  assert.deepEqual(!conflict.ok && conflict.requests, [
    { claim: 'ml/pair', request: '', reason: "the claim's requests cannot be met together (constraints, shared counters, or devices wanted by more than one request)" },
  ]);
});

test('broken input is reported in upstream words', async () => {
  const missing = await run('l4-node', both, [claim('c', [req('gpu', { cls: 'nope' })])]);
  assert.deepEqual(missing, { ok: false, kind: 'unresolvable', message: 'request gpu: device class nope does not exist', requests: [] });
  const bad = await run('l4-node', both, [claim('c', [req('gpu', { selectors: ['device.driver =='] })])]);
  assert.ok(!bad.ok && bad.kind === 'error');
  assert.match(!bad.ok ? bad.message : '', /^claim ml\/c: selector #0: CEL compile error: compilation failed: /);
  const notBool = await run('l4-node', both, [claim('c', [req('gpu', { selectors: ['device.driver'] })])]);
  assert.match(!notBool.ok ? notBool.message : '', /CEL compile error: must evaluate to bool or the unknown type, not string/);
  const cls = deviceClass('broken', 'device.attributes["gpu.bonsai.dev"].missing == "x"');
  const runtime = await run('l4-node', both, [claim('c', [req('gpu', { cls: 'broken' })])], { classes: classes(cls) });
  assert.match(!runtime.ok ? runtime.message : '', /^class broken: selector #0 on device gpu\.bonsai\.dev\/l4-node\/gpu-0: CEL runtime error: /);
  const mode = await run('l4-node', both, [claim('c', [{ name: 'gpu', exactly: { deviceClassName: 'gpu.bonsai.dev', allocationMode: 'Some' } }])]);
  assert.deepEqual(!mode.ok && [mode.kind, mode.message], ['error', 'claim ml/c, request gpu: unsupported count mode Some']);
  const many = await run('h100-node', both, [claim('c', [req('gpu', { count: 33 })])]);
  assert.deepEqual(!many.ok && many.message, 'claim ml/c: number of requested devices 33 exceeds the claim limit of 32');
});
