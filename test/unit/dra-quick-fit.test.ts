// The allocator's quick check (dra/quick-fit.ts): it says a node fits only where the allocator finds devices too,
// leaves every other shape of claim to the allocator, sees a changed slice, a changed class and the devices held
// at every call; and through the DynamicResources plugin, a node it passed is allocated at Reserve, and what is in
// flight for one pod is taken for the next.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceClaim, ResourceSlice } from '../../src/generated/k8s/resource/v1.js';
import { allocate, allocatedDevices, deviceKey, loadDeviceCel, surelyFits, type AllocateInput } from '../../src/scheduler/dra/index.js';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ScaledClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { clientFor } from '../../src/client/client.js';
import { draLookups } from '../../src/scheduler/dra-lookups.js';
import { CycleState } from '../../src/scheduler/framework.js';
import { buildPodInfo } from '../../src/scheduler/pod-info.js';
import { dynamicResources } from '../../src/scheduler/plugins/dynamic-resources.js';
import {
  claim, classes, deviceClass, driver, gpu, gpuClass, gpuNode, h100, l4, migClass, migNode, req, slice,
} from './dra-fixtures.js';
import { mkNode, mkPod } from './scheduler-fixtures.js';

const memory80 = `device.capacity["${driver}"].memory.compareTo(quantity("80Gi")) >= 0`;
const held = (node: string, ...indexes: number[]) => new Set(indexes.map((i) => deviceKey({ driver, pool: node, device: `gpu-${i}` })));

function input(slices: ResourceSlice[], claims: ResourceClaim[], o: Partial<AllocateInput> = {}): AllocateInput {
  return { node: { name: 'n' }, slices, claims, classes: classes(), allocated: new Set(), ...o };
}

/** The quick check's answer, after checking that "fits" is never said where the allocator finds nothing. */
async function quick(i: AllocateInput): Promise<{ fits: boolean; allocates: boolean }> {
  const cel = await loadDeviceCel();
  const fits = surelyFits(i, cel);
  const allocates = allocate(i, cel).ok;
  if (fits) assert.ok(allocates, 'the quick check said the node fits, the allocator found no devices');
  return { fits, allocates };
}

test('for one kind of device the quick check answers as the allocator does', async () => {
  const n = gpuNode('n', 8, h100);
  const one = claim('c', [req('gpu')]);
  assert.deepEqual(await quick(input([n], [one])), { fits: true, allocates: true });
  assert.deepEqual(await quick(input([n], [one], { allocated: held('n', 0, 1, 2, 3, 4, 5, 6) })), { fits: true, allocates: true });
  assert.deepEqual(await quick(input([n], [one], { allocated: held('n', 0, 1, 2, 3, 4, 5, 6, 7) })), { fits: false, allocates: false });
  // Three claims and a count of two: five devices in all.
  const five = [claim('a', [req('gpu')]), claim('b', [req('gpu'), req('more', { count: 2 })]), claim('c', [req('gpu')])];
  assert.deepEqual(await quick(input([n], five, { allocated: held('n', 0, 1, 2) })), { fits: true, allocates: true });
  assert.deepEqual(await quick(input([n], five, { allocated: held('n', 0, 1, 2, 3) })), { fits: false, allocates: false });
  // Selectors: 80Gi on an L4 node matches nothing; taints count unless tolerated.
  assert.deepEqual(await quick(input([gpuNode('n', 2, l4)], [claim('c', [req('gpu', { selectors: [memory80] })])])), { fits: false, allocates: false });
  const taint = { key: 'maintenance', value: 'yes', effect: 'NoSchedule' };
  const tainted = slice('n', [gpu('n', 0, h100, { taints: [taint] }), gpu('n', 1, h100, { taints: [taint] })]);
  assert.deepEqual(await quick(input([tainted], [one])), { fits: false, allocates: false });
  const tolerating = claim('c', [req('gpu', { tolerations: [{ key: 'maintenance', operator: 'Exists' }] })]);
  assert.deepEqual(await quick(input([tainted], [tolerating])), { fits: true, allocates: true });
});

test('constraints, counters, alternatives, admin access, All, mixed requests and failing selectors go to the allocator', async () => {
  const n = gpuNode('n', 8, h100);
  const same = { matchAttribute: 'resource.kubernetes.io/pcieRoot' };
  const shapes: ResourceClaim[][] = [
    [claim('c', [req('a'), req('b')], { constraints: [same] })],
    [claim('c', [{ name: 'gpu', firstAvailable: [{ name: 'big', deviceClassName: gpuClass.metadata.name!, selectors: [{ cel: { expression: memory80 } }] }] }])],
    [claim('c', [req('gpu', { adminAccess: true })])],
    [claim('c', [req('gpu', { all: true })])],
    [claim('c', [req('gpu'), req('big', { selectors: [memory80] })])],
  ];
  for (const claims of shapes) assert.deepEqual(await quick(input([n], claims)), { fits: false, allocates: true }, JSON.stringify(claims[0].spec));
  // MIG devices consume their GPU's shared counters.
  assert.deepEqual(await quick(input(migNode('n'), [claim('c', [req('mig', { cls: migClass.metadata.name! })])])), { fits: false, allocates: true });
  // A selector that fails on a device: the allocator reports the error.
  const failing = await quick(input([n], [claim('c', [req('gpu', { selectors: [`device.attributes["${driver}"].model == "x"`] })])]));
  assert.deepEqual(failing, { fits: false, allocates: false });
  // Past the search's work bounds on the node, the allocator decides (and here finds the first four).
  const big = slice('n', Array.from({ length: 10_000 }, (_, i) => gpu('n', i, l4)));
  assert.deepEqual(await quick(input([big], [claim('c', [req('gpu', { count: 4 })])])), { fits: false, allocates: true });
  assert.deepEqual(await quick(input([gpuNode('n', 8, h100)], [claim('c', [req('gpu', { count: 4 })])], { limits: { maxSteps: 7 } })), { fits: false, allocates: true });
});

test('a changed slice, a changed class and the devices held are seen at once', async () => {
  const big = [claim('c', [req('gpu', { selectors: [memory80] })])];
  // The same node, pool and generation: first an L4, then the slice rewritten with an H100; then an L4 in a new generation.
  const l4s = [slice('n', [gpu('n', 0, l4)])];
  const h100s = [slice('n', [gpu('n', 0, h100)])];
  assert.equal((await quick(input(l4s, big))).fits, false);
  assert.equal((await quick(input(h100s, big))).fits, true);
  assert.equal((await quick(input([slice('n', [gpu('n', 0, l4)], { generation: 2 })], big))).fits, false);
  // The same claims and slices, another class of that name: only L4s.
  const one = [claim('c', [req('gpu')])];
  const onlyL4 = classes(deviceClass(gpuClass.metadata.name!, `device.attributes["${driver}"].architecture == "Ada Lovelace"`));
  assert.equal((await quick(input(h100s, one))).fits, true);
  assert.equal((await quick(input(h100s, one, { classes: onlyL4 }))).fits, false);
  // The same claims and slices as devices are allocated, freed, allocated again.
  const two = [gpuNode('n', 2, h100)];
  for (const [allocated, fits] of [[held('n', 0), true], [held('n', 0, 1), false], [held('n', 1), true], [held('n', 0, 1), false]] as const) {
    assert.equal((await quick(input(two, one, { allocated }))).fits, fits, [...allocated].join());
  }
});

test('DynamicResources allocates a node the quick check passed at Reserve, and the next pod sees it in flight', async () => {
  const store = new SqliteStore({ path: ':memory:' });
  try {
    const registry = new Registry(store, allResources, new ScaledClock(), createLogger('silent'));
    bootstrap(registry);
    const client = clientFor(registry);
    client.create('resource.k8s.io/v1/deviceclasses', '', { apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', ...gpuClass });
    const { metadata: _m, ...sliceRest } = gpuNode('n1', 1, h100);
    client.create('resource.k8s.io/v1/resourceslices', '', { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: { name: 'n1-gpus' }, ...sliceRest });
    for (const name of ['c1', 'c2']) {
      const { metadata: _c, ...spec } = claim(name, [req('gpu')]);
      client.create('resource.k8s.io/v1/resourceclaims', 'default', { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name }, ...spec });
    }
    let loaded!: () => void;
    const engine = new Promise<void>((res) => { loaded = res; });
    const dra = draLookups(client, () => loaded());
    const node = mkNode('n1');
    const attempt = (pod: string, claimName: string) => {
      const s = new CycleState(buildPodInfo(mkPod(pod, { spec: { resourceClaims: [{ name: 'gpu', resourceClaimName: claimName }] } })), [node], { nsLabels: () => undefined, defaultSelector: () => undefined, dra });
      return { s, pre: dynamicResources.preFilter!(s) };
    };
    if (attempt('p0', 'c1').pre) await engine;
    const first = attempt('p1', 'c1');
    assert.equal(first.pre, undefined);
    assert.equal(dynamicResources.filter(first.s, node), undefined);
    dynamicResources.reserve!(first.s, node);
    const c1 = client.get<ResourceClaim>('resource.k8s.io/v1/resourceclaims', 'default', 'c1')!;
    assert.deepEqual([...allocatedDevices([], [dra.inFlight.get(c1.metadata.uid!)!.allocation])], [...held('n1', 0)]);
    // The one GPU is in flight for p1: p2 finds none, until p1 gives its place up.
    const second = attempt('p2', 'c2');
    assert.deepEqual(dynamicResources.filter(second.s, node)?.reasons, ['cannot allocate all claims']);
    dynamicResources.unreserve!(first.s);
    assert.equal(dra.inFlight.size, 0);
    assert.equal(dynamicResources.filter(attempt('p3', 'c2').s, node), undefined);
  } finally {
    store.close();
  }
});
