// Karpenter's instance-type catalog: the built-in one (families, sizes, arches, GPU types, prices) and one from the
// cluster file's `addons.karpenter` section, checked as hostile input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinCatalog, cheapestPrice, gpuResource, instanceTypeLabels } from '../../src/addons/karpenter/catalog.js';
import { catalogFromSettings } from '../../src/addons/karpenter/catalog-settings.js';
import { parseSettings } from '../../src/addons/karpenter/settings.js';

test('the built-in catalog: c/m/r in 1..64 CPUs on amd64 and arm64, GPU types, spot cheaper, prices rising with size', () => {
  const cat = builtinCatalog();
  const all = cat.all();
  for (const fam of ['c', 'm', 'r']) {
    for (const arch of ['amd64', 'arm64']) {
      const sizes = all.filter((t) => t.family === fam && t.arch === arch).sort((a, b) => a.cpuMilli - b.cpuMilli);
      assert.deepEqual(sizes.map((t) => t.cpuMilli / 1000), [1, 2, 4, 8, 16, 32, 48, 64]);
      for (let i = 1; i < sizes.length; i++) assert.ok(cheapestPrice(sizes[i]!) > cheapestPrice(sizes[i - 1]!), sizes[i]!.name);
    }
  }
  const m4 = cat.get('m-4x-amd64-linux')!;
  assert.equal(m4.memoryBytes, 16 * 2 ** 30);
  assert.equal(m4.capacity.cpu, '4');
  assert.equal(m4.allocatable.cpu, '3900m');
  assert.equal(m4.capacity.memory, '16Gi');
  assert.equal(m4.allocatable.memory, '16374Mi');
  assert.deepEqual([...new Set(m4.offerings.map((o) => o.zone))], ['zone-a', 'zone-b', 'zone-c']);
  for (const z of ['zone-a', 'zone-b', 'zone-c']) {
    const od = m4.offerings.find((o) => o.zone === z && o.capacityType === 'on-demand')!;
    const spot = m4.offerings.find((o) => o.zone === z && o.capacityType === 'spot')!;
    assert.ok(spot.price < od.price);
  }
  assert.deepEqual(all.filter((t) => t.gpus).map((t) => t.gpus).sort((a, b) => a - b), [1, 4, 8]);
  const g8 = all.find((t) => t.gpus === 8)!;
  assert.equal(g8.capacity[gpuResource], '8');
  const labels = instanceTypeLabels(g8);
  assert.equal(labels['karpenter.kwok.sh/instance-gpu-count'], '8');
  assert.equal(labels['node.kubernetes.io/instance-type'], g8.name);
  // all() is cheapest first
  for (let i = 1; i < all.length; i++) assert.ok(cheapestPrice(all[i]!) >= cheapestPrice(all[i - 1]!));
  assert.deepEqual([...new Set(builtinCatalog(['x-1']).all().flatMap((t) => t.offerings.map((o) => o.zone)))], ['x-1']);
});

test('instanceTypes from settings replace the built-in catalog', () => {
  const cat = catalogFromSettings({
    instanceTypes: [
      { name: 'tiny.small', cpu: '2', memory: '4Gi', offerings: [{ zone: 'z1', capacityType: 'spot', price: 0.01 }] },
      { name: 'fpga-8x', cpu: 8, memory: '32Gi', pods: 50, arch: 'arm64', resources: { 'example.com/fpga': '2' }, offerings: [{ zone: 'z1', capacityType: 'on-demand', price: 0.5, available: false }] },
    ],
  });
  assert.deepEqual(cat.all().map((t) => t.name), ['tiny.small', 'fpga-8x']);
  const t = cat.get('tiny.small')!;
  assert.equal(t.family, 'tiny');
  assert.equal(t.pods, 32);
  assert.equal(t.allocatable.cpu, '1900m');
  const f = cat.get('fpga-8x')!;
  assert.equal(f.capacity['example.com/fpga'], '2');
  assert.equal(f.offerings[0]!.available, false);
  assert.equal(f.arch, 'arm64');
});

test('hostile or wrong settings are refused with the field path', () => {
  const bad: Array<[unknown, RegExp]> = [
    [{ instanceTypes: 'x' }, /addons\.karpenter\.instanceTypes: must be a list/],
    [{ instanceTypes: [] }, /instanceTypes: Required value/],
    [{ instanceTypes: [{ name: 'a', cpu: '1', memory: '1Gi' }] }, /instanceTypes\[0\]\.offerings: Required value/],
    [{ instanceTypes: [{ name: 'a', cpu: 'lots', memory: '1Gi', offerings: [] }] }, /instanceTypes\[0\]\.cpu: Invalid value: "lots"/],
    [{ instanceTypes: [{ name: 'a', cpu: '-1', memory: '1Gi', offerings: [] }] }, /instanceTypes\[0\]\.cpu/],
    [{ instanceTypes: [{ name: 'a b', cpu: '1', memory: '1Gi', offerings: [] }] }, /instanceTypes\[0\]\.name: Invalid value/],
    [{ instanceTypes: [{ name: 'a', cpu: '1', memory: '1Gi', offerings: [{ zone: 'z', capacityType: 'reserved', price: 1 }] }] }, /capacityType: Unsupported value: "reserved"/],
    [{ instanceTypes: [{ name: 'a', cpu: '1', memory: '1Gi', offerings: [{ zone: 'z', capacityType: 'spot', price: 'free' }] }] }, /offerings\[0\]\.price/],
    [{ instanceTypes: [{ name: 'a', cpu: '1', memory: '1Gi', offerings: [{ zone: 'z', capacityType: 'spot', price: Infinity }] }] }, /offerings\[0\]\.price/],
    [{ instanceTypes: [{ name: 'a', cpu: '1', memory: '1Gi', resources: { cpu: '1' }, offerings: [{ zone: 'z', capacityType: 'spot', price: 1 }] }] }, /resources: Invalid value: "cpu"/],
    [{ instanceTypes: [1, 2] }, /instanceTypes\[0\]: must be a mapping/],
    [{ instanceTypes: Array.from({ length: 2001 }, () => ({})) }, /at most 2000/],
    [{ zones: [] }, /zones: must be a list/],
    [{ launchSeconds: -1 }, /launchSeconds: must be a number of seconds/],
    [{ launchSeconds: '2' }, /launchSeconds/],
    [{ batchIdleSeconds: 5, batchMaxSeconds: 1 }, /batchMaxSeconds/],
    [{ surprise: 1 }, /addons\.karpenter\.surprise: unknown field/],
    [[1], /must be a mapping/],
  ];
  for (const [settings, re] of bad) assert.throws(() => parseSettings(settings), re, JSON.stringify(settings).slice(0, 100));
  const dup = { name: 'a', cpu: '1', memory: '1Gi', offerings: [{ zone: 'z', capacityType: 'spot', price: 1 }] };
  assert.throws(() => catalogFromSettings({ instanceTypes: [dup, dup] }), /instanceTypes\[1\]\.name: Duplicate value: "a"/);
  // Prototype keys are plain keys: no pollution, a clear error or a plain value.
  const proto = JSON.parse('{"instanceTypes":[{"name":"a","cpu":"1","memory":"1Gi","resources":{"__proto__":"1"},"offerings":[{"zone":"z","capacityType":"spot","price":1}]}]}') as unknown;
  assert.throws(() => catalogFromSettings(proto), /resources: Invalid value: "__proto__"/);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const { settings } = parseSettings({ launchSeconds: 0 });
  assert.equal(settings.launchSeconds, 0);
  assert.equal(settings.batchIdleSeconds, 1);
});
