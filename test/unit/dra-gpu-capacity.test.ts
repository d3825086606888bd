// One node's GPUs through both doors, through the scheduler on an in-memory registry: the node advertises
// `nvidia.com/gpu: 2` (the device plugin's view) and its driver publishes the same two GPUs as devices. A pod bound
// through the capacity holds one of them, so only one claim pod fits beside it, and a second capacity pod does not fit
// beside the two; once a DeviceClass maps nvidia.com/gpu to the devices, the pod bound through the capacity before the
// mapping still holds its GPU: a mapped pod takes the other one, and a claim pod finds none.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ManualClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { clientFor } from '../../src/client/client.js';
import { startScheduler } from '../../src/scheduler/index.js';
import { claim, gpuClass, gpuNode, l4, req } from './dra-fixtures.js';

type Json = Record<string, unknown>;
const claimsRef = 'resource.k8s.io/v1/resourceclaims';

describe('nvidia.com/gpu capacity and DRA devices of one node', () => {
  it('never hand out a GPU twice, before and after a DeviceClass maps the extended resource', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
    const store = new SqliteStore({ path: ':memory:' });
    const reg = new Registry(store, allResources, clock, createLogger('silent'));
    bootstrap(reg);
    const client = clientFor(reg);
    const now = new Date(clock.nowMs()).toISOString().replace(/\.\d+Z$/, 'Z');
    const alloc = { cpu: '64', memory: '256Gi', pods: '110', 'nvidia.com/gpu': '2' };
    client.create('v1/nodes', '', {
      apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1' } },
      status: { capacity: alloc, allocatable: alloc, conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: now, lastTransitionTime: now }] },
    });
    client.create('resource.k8s.io/v1/deviceclasses', '', { apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', ...gpuClass });
    const { metadata: _m, ...sliceRest } = gpuNode('n1', 2, l4);
    client.create('resource.k8s.io/v1/resourceslices', '', { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: { name: 'n1-gpus' }, ...sliceRest });

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
    const until = async (cond: () => boolean, what: string) => {
      for (let i = 0; i < 500 && !cond(); i++) {
        clock.advance(500);
        await store.committed();
        await new Promise((r) => setTimeout(r, 5));
      }
      const pods = client.list<Pod>('v1/pods', 'default').map((p) => [p.metadata.name, p.spec?.nodeName, why(p.metadata.name ?? '')]);
      assert.ok(cond(), `${what}: ${JSON.stringify(pods)}`);
    };
    /** Deletes pods, and their claims as the resourceclaim controller (not running here) would. */
    const remove = async (...names: string[]) => {
      for (const n of names) {
        client.delete('v1/pods', 'default', n, { gracePeriodSeconds: 0 });
        if (!client.get(claimsRef, 'default', n)) continue;
        client.guaranteedUpdate(claimsRef, 'default', n, (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: [] } }));
        client.delete(claimsRef, 'default', n);
      }
      await until(() => names.every((n) => !podOf(n) && !client.get(claimsRef, 'default', n)), `${names.join(', ')} gone`);
    };

    await store.committed();
    const sched = startScheduler(client, clock, createLogger('silent'));
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
      sched.stop();
      store.close();
    }
  });
});
