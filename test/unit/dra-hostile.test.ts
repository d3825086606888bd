// The DRA selector environment (attributes, capacity quantities, versions, missing domains, cost) and hostile input:
// huge device lists, a thousand selectors, deep or costly CEL, absurd counts, combinatorial constraints. Each call
// must come back with a result or a failure that says why (the work bounds), never hang the scheduler.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Device } from '../../src/generated/k8s/resource/v1.js';
import { failureText, loadDeviceCel, toleratesTaint, type AllocateOutcome } from '../../src/scheduler/dra/index.js';
import { claimGenerateName } from '../../src/controllers/resourceclaim/pod-claims.js';
import { claim, classes, deviceClass, devicesOf, driver, gpu, gpuClass, gpuNode, h100, l4, req, run, slice } from './dra-fixtures.js';

async function matches(expression: string, device: Device = gpu('n', 0, h100)): Promise<boolean | string> {
  const c = (await loadDeviceCel()).compile(expression);
  if (!c.ok) return c.error;
  const r = c.evaluate(device, driver, 1_000_000);
  return r.ok ? r.matches : r.error;
}

test('selectors read the driver, attributes by domain, capacity as quantities and versions as semver', async () => {
  assert.equal(await matches(`device.driver == "${driver}"`), true);
  assert.equal(await matches(`device.attributes["${driver}"].productName.startsWith("NVIDIA H100")`), true);
  assert.equal(await matches(`device.attributes["${driver}"].index == 0`), true);
  assert.equal(await matches('device.attributes["resource.kubernetes.io"].pcieRoot == "pci0000:00"'), true);
  assert.equal(await matches(`device.capacity["${driver}"].memory.isGreaterThan(quantity("40Gi"))`), true);
  assert.equal(await matches(`device.capacity["${driver}"].memory.compareTo(quantity("81Gi")) < 0`), true);
  assert.equal(await matches(`device.attributes["${driver}"].driverVersion.isGreaterThan(semver("535.0.0"))`), true);
  assert.equal(await matches(`device.attributes["${driver}"].cudaComputeCapability.major() == 9`), true);
  assert.equal(await matches(`cel.bind(g, device.attributes["${driver}"], g.architecture == "Hopper" && g.brand == "Nvidia")`), true);
  assert.equal(await matches(`cel.bind(m, device.capacity["${driver}"].memory, cel.bind(q, quantity("80Gi"), m == q))`), true);
  assert.match(String(await matches('cel.bind("x", 1, true)')), /cel\.bind\(\) variable names must be simple identifiers/);
  // A domain the device does not have is an empty map; a missing attribute of a present one is an error.
  assert.equal(await matches('has(device.attributes["example.com"].model)'), false);
  assert.equal(await matches('device.attributes["example.com"].size() == 0'), true);
  assert.match(String(await matches(`device.attributes["${driver}"].model == "x"`)), /model/);
  assert.equal(await matches('device.allowMultipleAllocations'), false);
  assert.match(String(await matches('device.name == "gpu-0"')), /undefined field 'name'/);
  assert.match(String(await matches('1 + 1')), /must evaluate to bool or the unknown type, not int/);
  // Evaluation is bounded by upstream's 1e6.
  const list = `[${Array.from({ length: 200 }, (_, i) => i).join(',')}]`;
  assert.match(String(await matches(`${list}.all(a, ${list}.all(b, ${list}.all(c, a + b + c >= 0)))`)), /actual cost limit exceeded/);
});

test('a bad version attribute fails the selector that reads it, in upstream words', async () => {
  const bad = { ...gpu('n', 0, l4), attributes: { type: { string: 'gpu' }, driverVersion: { version: 'v1' } } };
  assert.match(String(await matches(`device.attributes["${driver}"].driverVersion.major() > 0`, bad)), /^attribute driverVersion: parse semantic version: /);
});

test("claim names follow the resourceclaim controller's, and tolerations match as upstream's", () => {
  assert.equal(claimGenerateName('trainer-0', 'gpu'), 'trainer-0-gpu-');
  const long = claimGenerateName('a'.repeat(60), 'b'.repeat(30));
  assert.equal(long, `${'a'.repeat(37)}-${'b'.repeat(18)}`);
  assert.ok(long.length + 6 <= 63, 'a dash and five random characters still fit 63');
  const taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
  assert.ok(toleratesTaint({ operator: 'Exists' }, taint));
  assert.ok(toleratesTaint({ key: 'k', value: 'v' }, taint));
  assert.ok(!toleratesTaint({ key: 'k', value: 'w' }, taint));
  assert.ok(!toleratesTaint({ key: 'k', operator: 'Exists', effect: 'NoExecute' }, taint));
  assert.ok(!toleratesTaint({ key: 'k', operator: 'Gt' }, taint));
});

/** A failure that says it gave up, or a plain "cannot allocate": never anything else, never a throw. */
function assertBounded(out: AllocateOutcome): void {
  assert.ok(!out.ok, 'expected a failure');
  if (out.ok) return;
  assert.equal(out.kind, 'unschedulable');
  assert.match(out.message, /allocation gave up|cannot allocate all claims/);
}

const bigNode = (n: number) => slice('big', Array.from({ length: n }, (_, i) => gpu('big', i, i === n - 1 ? h100 : l4)));

test('ten thousand devices: a match far down the list is given up on, an easy one is found', async () => {
  const node = bigNode(10_000);
  const out = await run('big', [node], [claim('c', [req('gpu', { selectors: [`device.attributes["${driver}"].architecture == "Hopper"`] })])]);
  assertBounded(out);
  assert.match(!out.ok ? out.message : '', /gave up after 2000 device selector evaluations/);
  assert.deepEqual(devicesOf(await run('big', [node], [claim('c', [req('gpu', { count: 4 })])])), ['big/gpu-0', 'big/gpu-1', 'big/gpu-2', 'big/gpu-3']);
  assertBounded(await run('big', [node], [claim('c', [req('gpu', { all: true })])]));
});

test('a thousand selectors are refused; thirty-two on a class and a request are bounded', async () => {
  const selectors = (n: number) => Array.from({ length: n }, (_, i) => `device.attributes["${driver}"].index >= ${-i}`);
  const nodes = [gpuNode('h100-node', 8, h100)];
  const out = await run('h100-node', nodes, [claim('c', [req('gpu', { selectors: selectors(1000) })])]);
  assert.deepEqual(!out.ok && [out.kind, out.message], ['error', 'claim ml/c, request gpu: 1000 selectors exceed the limit of 32']);
  const cls = deviceClass('many', ...selectors(1000));
  const viaClass = await run('h100-node', nodes, [claim('c', [req('gpu', { cls: 'many' })])], { classes: classes(cls) });
  assert.deepEqual(!viaClass.ok && viaClass.message, 'class many, request gpu: 1000 selectors exceed the limit of 32');
  const full = deviceClass('full', ...selectors(32));
  const one = await run('h100-node', nodes, [claim('c', [req('gpu', { cls: 'full', selectors: selectors(32), count: 8 })])], { classes: classes(full) });
  assert.equal(devicesOf(one).length, 8);
  // 10,000 devices with 64 selectors each: bounded.
  assertBounded(await run('big', [bigNode(10_000)], [claim('c', [req('gpu', { cls: 'full', selectors: [...selectors(31), 'false'] })])], { classes: classes(full) }));
});

test('deep and costly CEL fails with a reason', async () => {
  const nodes = [gpuNode('n', 8, l4)];
  const deep = `${'['.repeat(1000)}1${']'.repeat(1000)}.size() == 1`;
  const d = await run('n', nodes, [claim('c', [req('gpu', { selectors: [deep] })])]);
  assert.match(!d.ok ? d.message : '', /^claim ml\/c: selector #0: CEL compile error: /);
  const negations = `${'!'.repeat(5000)}true`;
  const n = await run('n', nodes, [claim('c', [req('gpu', { selectors: [negations] })])]);
  assert.ok(n.ok || /CEL compile error/.test(n.message));
  const long = Array.from({ length: 3000 }, () => 'device.driver != ""').join(' && ');
  const l = await run('n', nodes, [claim('c', [req('gpu', { selectors: [long] })])]);
  assert.match(!l.ok ? l.message : '', /exceeds the limit of 10240/);
  const list = `[${Array.from({ length: 100 }, (_, i) => i).join(',')}]`;
  const costly = `${list}.all(a, ${list}.all(b, ${list}.all(c, true)))`;
  const c = await run('n', nodes, [claim('c', [req('gpu', { selectors: [costly], count: 8 })])]);
  assertBounded(c);
  assert.match(!c.ok ? c.message : '', /CEL cost budget of 50000/);
});

test('absurd counts and combinatorial constraints end in a failure', async () => {
  const node = gpuNode('n', 8, l4);
  for (const count of [1e9, 2 ** 52, 33]) {
    const out = await run('n', [node], [claim('c', [req('gpu', { count })])]);
    assert.ok(!out.ok && out.kind === 'error' && /exceeds the claim limit of 32/.test(out.message));
  }
  for (const count of [0, -3, 1.5, 2 ** 64]) {
    const out = await run('n', [node], [claim('c', [req('gpu', { count })])]);
    assert.deepEqual(!out.ok && [out.kind, out.message], ['error', `claim ml/c, request gpu: count ${count} is not a positive number`]);
  }
  // Thousands of claims with admin access (not bounded by the free devices): refused before the search.
  const admins = Array.from({ length: 5000 }, (_, i) => claim(`a${i}`, [req('gpu', { adminAccess: true })]));
  const a = await run('n', [node], admins);
  assert.deepEqual(!a.ok && [a.kind, a.message], ['error', 'the claims have 5000 requests in all, more than the 1024 one allocation handles']);
  const fewer = await run('n', [node], admins.slice(0, 1000));
  assert.ok(fewer.ok || fewer.kind === 'unschedulable', !fewer.ok ? fewer.message : '');
  // 200 devices with distinct PCIe roots, three requests that must share one: every combination is tried until the bound.
  const spread = slice('s', Array.from({ length: 200 }, (_, i) => gpu('s', i, l4, { pcieRoot: `root-${i}` })));
  const same = { matchAttribute: 'resource.kubernetes.io/pcieRoot' };
  const c = claim('c', [req('a'), req('b'), req('c'), req('d')], { constraints: [same, { matchAttribute: `${driver}/productName` }] });
  assertBounded(await run('s', [spread], [c]));
  // More claims than the node has devices fail at once, whatever their number.
  const claims = Array.from({ length: 500 }, (_, i) => claim(`c${i}`, [req('gpu')]));
  assertBounded(await run('n', [node], claims));
  // The bounds can be set per call; the failure names the one reached.
  const tight = await run('s', [spread], [c], { limits: { maxSteps: 50 } });
  assert.deepEqual(!tight.ok && [tight.kind, tight.message, failureText(tight.message, tight.requests)], ['unschedulable',
    'allocation gave up after 50 steps: too many devices, requests or constraints to try on this node',
    'allocation gave up after 50 steps: too many devices, requests or constraints to try on this node']);
  // Thousands of slices for other nodes are skipped.
  const others = Array.from({ length: 5000 }, (_, i) => gpuNode(`other-${i}`, 2, l4));
  assert.deepEqual(devicesOf(await run('n', [...others, node], [claim('c', [req('gpu')])])), ['n/gpu-0']);
});
