// One node's GPUs through both doors, through the scheduler on an in-memory registry: the node advertises
// `nvidia.com/gpu: 2` (the device plugin's view) and its driver publishes the same two GPUs as devices. A pod bound
// through the capacity holds one of them, so only one claim pod fits beside it, and a second capacity pod does not fit
// beside the two; once a DeviceClass maps nvidia.com/gpu to the devices, the pod bound through the capacity before the
// mapping still holds its GPU: a mapped pod takes the other one, and a claim pod finds none.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { claim, gpuClass, l4, req } from './dra-fixtures.js';
import { draCluster } from './dra-scheduler-cluster.js';

type Json = Record<string, unknown>;
const claimsRef = 'resource.k8s.io/v1/resourceclaims';

describe('nvidia.com/gpu capacity and DRA devices of one node', () => {
  it('never hand out a GPU twice, before and after a DeviceClass maps the extended resource', async () => {
    const { client, until: untilSeen, start: startScheduling, stop } = draCluster({ gpus: 2, model: l4, allocatable: { 'nvidia.com/gpu': '2' } });

    const container = (resources: Json) => ({ name: 'c', image: 'x', resources });
    const capacityPod = (name: string) => client.create<Pod>('v1/pods', 'default', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [container({ limits: { 'nvidia.com/gpu': '1' } })] },
    });
    const claimPod = (name: string) => {
      const { metadata: _c, ...spec } = claim(name, [req('gpu')]);
      client.create(claimsRef, 'default', { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name }, ...spec });
      return client.create<Pod>('v1/pods', 'default', {
        apiVersion: 'v1', kind: 'Pod', metadata: { name },
        spec: { resourceClaims: [{ name: 'gpu', resourceClaimName: name }], containers: [container({ claims: [{ name: 'gpu' }] })] },
      });
    };
    const podOf = (name: string) => client.get<Pod>('v1/pods', 'default', name);
    const why = (name: string) => podOf(name)?.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False')?.message ?? '';
    const bound = (name: string) => podOf(name)?.spec?.nodeName === 'n1';
    const until = (cond: () => boolean, what: string) =>
      untilSeen(cond, what, () => client.list<Pod>('v1/pods', 'default').map((p) => [p.metadata.name, p.spec?.nodeName, why(p.metadata.name ?? '')]));
    /** Deletes pods, and their claims as the resourceclaim controller (not running here) would. */
    const remove = async (...names: string[]) => {
      for (const n of names) {
        await client.delete('v1/pods', 'default', n, { gracePeriodSeconds: 0 });
        if (!client.get(claimsRef, 'default', n)) continue;
        await client.guaranteedUpdate(claimsRef, 'default', n, (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: [] } }));
        await client.delete(claimsRef, 'default', n);
      }
      await until(() => names.every((n) => !podOf(n) && !client.get(claimsRef, 'default', n)), `${names.join(', ')} gone`);
    };

    await startScheduling();
    try {
      // No class maps nvidia.com/gpu: the capacity pod is counted by NodeResourcesFit, and holds a GPU for DRA too.
      capacityPod('legacy');
      await until(() => bound('legacy'), 'legacy bound through the capacity');
      claimPod('claim-a');
      await until(() => bound('claim-a'), 'claim-a bound');
      claimPod('claim-b');
      await until(() => /cannot allocate all claims/.test(why('claim-b')), 'claim-b finds no free GPU beside legacy and claim-a');
      capacityPod('legacy-2');
      await until(() => /Insufficient nvidia\.com\/gpu/.test(why('legacy-2')), 'legacy-2 finds no capacity beside legacy and claim-a\'s device');
      assert.equal(bound('claim-b') || bound('legacy-2'), false);

      // The class maps nvidia.com/gpu; legacy (bound through the capacity before) keeps its GPU.
      await remove('claim-b', 'legacy-2', 'claim-a');
      client.create('resource.k8s.io/v1/deviceclasses', '', {
        apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: { name: 'gpu-extended' },
        spec: { ...gpuClass.spec, extendedResourceName: 'nvidia.com/gpu' },
      });
      capacityPod('mapped');
      await until(() => bound('mapped'), 'mapped bound');
      assert.ok(podOf('mapped')?.status?.extendedResourceClaimStatus, 'mapped served by a DRA device');
      claimPod('claim-c');
      await until(() => /cannot allocate all claims/.test(why('claim-c')), 'claim-c finds no free GPU beside legacy and mapped');
      capacityPod('mapped-2');
      await until(() => /cannot allocate all claims/.test(why('mapped-2')), 'mapped-2 finds no free GPU either');

      // legacy goes: its GPU serves the next pod.
      await remove('legacy', 'mapped-2');
      await until(() => bound('claim-c'), 'claim-c bound once legacy is gone');
    } finally {
      stop();
    }
  });
});
