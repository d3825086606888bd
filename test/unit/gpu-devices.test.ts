// The one rule the kubelet, the scheduler and the dashboard read a node's GPUs by (src/machinery/gpu-devices.ts): a
// device's physical GPU, the first free whole GPUs, and the GPUs a pod's container statuses record.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { firstFree, physicalGpu, recordedGpus, recordedIds } from '../../src/machinery/gpu-devices.js';

it('a MIG partition is part of the GPU consuming the same counter set; a device consuming none is its own GPU', () => {
  const set = [{ counterSet: 'gpu-1-counter-set' }];
  assert.equal(physicalGpu('n1', { name: 'gpu-1', consumesCounters: set }), 'n1/gpu-1-counter-set');
  assert.equal(physicalGpu('n1', { name: 'gpu-1-mig-1g10gb-3', consumesCounters: set }), 'n1/gpu-1-counter-set');
  assert.equal(physicalGpu('n1', { name: 'gpu-2' }), 'n1/gpu-2');
  assert.equal(physicalGpu('n1', { name: 'gpu-2', consumesCounters: [] }), 'n1/gpu-2');
});

it('the first free whole GPUs skip busy ones, in order, no more than asked or there are', () => {
  const gpus = ['a', 'b', 'c', 'd'];
  assert.deepEqual(firstFree(gpus, (g) => g, new Set(['a', 'c']), 1), ['b']);
  assert.deepEqual(firstFree(gpus, (g) => g, new Set(['a', 'c']), 5), ['b', 'd']);
  assert.deepEqual(firstFree(gpus, (g) => g, new Set(), 0), []);
});

it('reads the GPUs recorded per container, init containers included; nothing recorded is undefined', () => {
  const entry = (...ids: string[]) => [{ name: 'nvidia.com/gpu', resources: ids.map((resourceID) => ({ resourceID, health: 'Healthy' })) }];
  const status = {
    initContainerStatuses: [{ name: 'setup', allocatedResourcesStatus: entry('GPU-a') }],
    containerStatuses: [
      { name: 'a', allocatedResourcesStatus: entry('GPU-a', 'GPU-b') },
      { name: 'b', allocatedResourcesStatus: [{ name: 'claim:x/gpu', resources: [{ resourceID: 'other' }] }] },
      { name: 'c', allocatedResourcesStatus: entry('GPU-c') },
    ],
  };
  const got = recordedGpus(status);
  assert.deepEqual(got && [...got], [['setup', ['GPU-a']], ['a', ['GPU-a', 'GPU-b']], ['c', ['GPU-c']]]);
  assert.deepEqual([...recordedIds(got)].sort(), ['GPU-a', 'GPU-b', 'GPU-c']);
  assert.equal(recordedGpus({ containerStatuses: [{ name: 'a' }] }), undefined);
  assert.equal(recordedGpus('hostile'), undefined);
  assert.deepEqual([...recordedIds(undefined)], []);
});
