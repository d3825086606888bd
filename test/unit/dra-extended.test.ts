// Which of a pod's extended resources DeviceClasses map, and the claim the scheduler would allocate for them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import type { DeviceClass } from '../../src/generated/k8s/resource/v1.js';
import { extendedClaimToCreate, extendedRequests, isExtendedDraft, mayUseExtended } from '../../src/scheduler/plugins/dra-extended.js';

const cls = (name: string, created: string, extendedResourceName?: string): DeviceClass => ({
  metadata: { name, creationTimestamp: created }, spec: { ...(extendedResourceName ? { extendedResourceName } : {}) },
});
const classes = (...list: DeviceClass[]) => new Map(list.map((c) => [c.metadata.name ?? '', c]));
const pod: Pod = {
  metadata: { name: 'train', namespace: 'ml', uid: 'u1' },
  spec: {
    initContainers: [{ name: 'warmup', image: 'x', resources: { limits: { 'nvidia.com/gpu': '1' } } }],
    containers: [
      { name: 'main', image: 'x', resources: { requests: { cpu: '1', 'nvidia.com/gpu': '2', 'deviceclass.resource.kubernetes.io/fpga': '1' } } },
      { name: 'side', image: 'x', resources: { limits: { 'example.com/other': '1' } } },
    ],
  },
};

test('maps requests to the newest class naming them, explicitly or as deviceclass.resource.kubernetes.io/<class>', () => {
  const out = extendedRequests(pod, classes(cls('gpu-old', '2026-01-01T00:00:00Z', 'nvidia.com/gpu'), cls('gpu-new', '2026-02-01T00:00:00Z', 'nvidia.com/gpu'), cls('fpga', '2026-01-01T00:00:00Z')));
  assert.ok(out);
  assert.deepEqual([...out.resources].sort(), ['deviceclass.resource.kubernetes.io/fpga', 'nvidia.com/gpu']);
  assert.deepEqual(out.mappings, [
    { containerName: 'warmup', resourceName: 'nvidia.com/gpu', requestName: 'container-0-request-0' },
    { containerName: 'main', resourceName: 'deviceclass.resource.kubernetes.io/fpga', requestName: 'container-1-request-0' },
    { containerName: 'main', resourceName: 'nvidia.com/gpu', requestName: 'container-1-request-1' },
  ]);
  assert.deepEqual(out.claim.spec.devices?.requests?.map((r) => [r.name, r.exactly?.deviceClassName, r.exactly?.count]), [
    ['container-0-request-0', 'gpu-new', 1], ['container-1-request-0', 'fpga', 1], ['container-1-request-1', 'gpu-new', 2],
  ]);
  assert.ok(isExtendedDraft(out.claim));
  const made = extendedClaimToCreate(pod, out.claim);
  assert.equal(made.metadata.generateName, 'train-extended-resources-');
  assert.equal(made.metadata.annotations?.['resource.kubernetes.io/extended-resource-claim'], 'true');
  assert.deepEqual(made.metadata.ownerReferences?.map((o) => [o.kind, o.name, o.uid, o.controller]), [['Pod', 'train', 'u1', true]]);
  assert.equal(isExtendedDraft(made), false);
});

test('no class maps the requests: nothing to allocate', () => {
  assert.equal(extendedRequests(pod, classes(cls('tpu', '2026-01-01T00:00:00Z', 'google.com/tpu'))), undefined);
  assert.equal(extendedRequests(pod, classes()), undefined);
  assert.equal(mayUseExtended({ cpu: 1000, memory: 1 }), false);
  assert.equal(mayUseExtended({ cpu: 1000, 'nvidia.com/gpu': 1 }), true);
});
