// The simulated GPU driver's pools (gpu.bonsai.dev): a device per GPU with NVIDIA's attribute names, MIG partitions
// consuming their GPU's counters from counter sets in their own slice, the 1.35 per-slice limits, and the cluster
// file's `gpu` section.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node } from '../../src/generated/k8s/core/v1.js';
import { gpuDeviceClasses, gpuSliceSpecs, migLabel } from '../../src/kubelet/dra/gpu-slices.js';
import { parseClusterConfig } from '../../src/cluster/config.js';

const node = (name: string, product: string, gpus: number, labels: Record<string, string> = {}): Node => ({
  metadata: { name, uid: 'u', labels: { 'nvidia.com/gpu.product': product, ...labels } },
  status: { capacity: { 'nvidia.com/gpu': String(gpus) } },
});

test('a node without MIG publishes one slice with a device per GPU, named and described as NVIDIA\'s driver does', () => {
  const specs = gpuSliceSpecs(node('bonsai-gpu-1', 'NVIDIA-H100-80GB-HBM3', 8));
  assert.equal(specs.length, 1);
  const [s] = specs;
  assert.deepEqual([s.driver, s.nodeName, s.pool.name, s.pool.generation, s.pool.resourceSliceCount], ['gpu.bonsai.dev', 'bonsai-gpu-1', 'bonsai-gpu-1', 1, 1]);
  assert.deepEqual(s.devices?.map((d) => d.name), ['gpu-0', 'gpu-1', 'gpu-2', 'gpu-3', 'gpu-4', 'gpu-5', 'gpu-6', 'gpu-7']);
  const d = s.devices![0];
  assert.equal(d.attributes?.productName?.string, 'NVIDIA H100 80GB HBM3');
  assert.equal(d.attributes?.architecture?.string, 'Hopper');
  assert.equal(d.attributes?.type?.string, 'gpu');
  assert.match(d.attributes?.uuid?.string ?? '', /^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.equal(d.attributes?.['resource.kubernetes.io/pcieRoot']?.string, 'pci0000:00');
  assert.equal(s.devices![7].attributes?.['resource.kubernetes.io/pcieRoot']?.string, 'pci0000:80');
  assert.equal(d.capacity?.memory?.value, '80Gi');
  assert.equal(d.consumesCounters, undefined);
  assert.equal(s.sharedCounters, undefined);
  // Stable: the same node gives the same UUIDs; another node others.
  assert.deepEqual(gpuSliceSpecs(node('bonsai-gpu-1', 'NVIDIA-H100-80GB-HBM3', 8)), specs);
  assert.notEqual(gpuSliceSpecs(node('bonsai-gpu-2', 'NVIDIA-H100-80GB-HBM3', 8))[0].devices![0].attributes?.uuid?.string, d.attributes?.uuid?.string);
  assert.deepEqual(gpuSliceSpecs(node('cpu', 'NVIDIA-L4', 0)), []);
  assert.equal(gpuSliceSpecs(node('l4', 'NVIDIA-L4', 2))[0].devices![0].capacity?.memory?.value, '24Gi');
});

test('with MIG, partitions consume memory slices of their GPU\'s counter set; counter sets sit in a slice of their own', () => {
  const specs = gpuSliceSpecs(node('bonsai-gpu-1', 'NVIDIA-H100-80GB-HBM3', 8, { [migLabel]: 'true' }));
  const counterSlices = specs.filter((s) => s.sharedCounters);
  const deviceSlices = specs.filter((s) => s.devices);
  assert.equal(counterSlices.length, 1);
  assert.ok(specs.every((s) => !(s.sharedCounters && s.devices)), 'a slice holds devices or counters, not both');
  assert.ok(specs.every((s) => s.pool.resourceSliceCount === specs.length));
  assert.ok(deviceSlices.every((s) => s.devices!.length <= 64), 'at most 64 devices that consume counters per slice');
  const sets = new Map(counterSlices[0].sharedCounters!.map((c) => [c.name, c.counters]));
  assert.equal(sets.size, 8);
  assert.equal(sets.get('gpu-0-counter-set')?.['memory-slice-7']?.value, '1');
  const devices = deviceSlices.flatMap((s) => s.devices!);
  assert.equal(devices.length, 8 * 15);
  for (const d of devices) {
    const use = d.consumesCounters?.[0];
    assert.ok(use && sets.has(use.counterSet), `${d.name} consumes an existing counter set`);
    for (const c of Object.keys(use.counters)) assert.ok(sets.get(use.counterSet)?.[c], `${d.name}: counter ${c} exists`);
  }
  const slicesOf = (name: string) => Object.keys(devices.find((d) => d.name === name)!.consumesCounters![0].counters).filter((c) => c.startsWith('memory-slice-'));
  assert.deepEqual(slicesOf('gpu-0-mig-1g10gb-3'), ['memory-slice-3']);
  assert.deepEqual(slicesOf('gpu-0-mig-3g40gb-4'), ['memory-slice-4', 'memory-slice-5', 'memory-slice-6', 'memory-slice-7']);
  assert.equal(slicesOf('gpu-0-mig-7g80gb-0').length, 8);
  assert.equal(slicesOf('gpu-0').length, 8, 'the whole GPU takes every memory slice');
  const mig = devices.find((d) => d.name === 'gpu-2-mig-2g20gb-4')!;
  assert.equal(mig.attributes?.profile?.string, '2g.20gb');
  assert.equal(mig.attributes?.parentUUID?.string, devices.find((d) => d.name === 'gpu-2')!.attributes?.uuid?.string);
  // An L4 has no MIG: the label changes nothing.
  assert.equal(gpuSliceSpecs(node('l4', 'NVIDIA-L4', 4, { [migLabel]: 'true' }))[0].devices!.length, 4);
});

test('the driver\'s device classes select its GPUs and its MIG partitions', () => {
  assert.deepEqual(gpuDeviceClasses().map((c) => [c.metadata.name, c.spec.selectors?.[0].cel?.expression]), [
    ['gpu.bonsai.dev', "device.driver == 'gpu.bonsai.dev' && device.attributes['gpu.bonsai.dev'].type == 'gpu'"],
    ['mig.gpu.bonsai.dev', "device.driver == 'gpu.bonsai.dev' && device.attributes['gpu.bonsai.dev'].type == 'mig'"],
  ]);
});

test('a cluster file pool\'s gpu section sets the capacity and NVIDIA\'s labels; bad values are refused', () => {
  const cfg = parseClusterConfig('nodePools:\n  - { name: l4, count: 2, gpu: { model: l4, count: 4 } }\n  - { name: h100, gpu: { model: h100-80gb, mig: true } }\n');
  const [l4, h100] = cfg.nodePools;
  assert.equal(l4.resources['nvidia.com/gpu'], '4');
  assert.equal(l4.labels['nvidia.com/gpu.product'], 'NVIDIA-L4');
  assert.equal(l4.labels['nvidia.com/gpu.memory'], '24576');
  assert.equal(l4.labels[migLabel], undefined);
  assert.equal(h100.resources['nvidia.com/gpu'], '8');
  assert.equal(h100.labels[migLabel], 'true');
  assert.throws(() => parseClusterConfig('nodePools:\n  - { name: x, gpu: { model: v100 } }\n'), /gpu\.model: required, one of h100-80gb/);
  assert.throws(() => parseClusterConfig('nodePools:\n  - { name: x, gpu: { model: l4, mig: true } }\n'), /gpu\.mig: l4 has no MIG/);
  assert.throws(() => parseClusterConfig('nodePools:\n  - { name: x, gpu: { model: l4, count: 0 } }\n'), /gpu\.count: must be a whole number from 1 to 64/);
});
