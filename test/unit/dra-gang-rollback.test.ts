// A gang whose pods carry ResourceClaims, through the scheduler on an in-memory registry: while the gang waits at
// Permit its members' allocations stay in memory (no claim is written, and a pod outside the gang sees the devices
// taken); when one member's PreBind fails (its claim was replaced), what the others wrote is taken back and nothing
// is bound; after the backoff the whole gang binds on distinct devices.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import type { ResourceClaim } from '../../src/generated/k8s/resource/v1.js';
import { claim, h100, req } from './dra-fixtures.js';
import { draCluster } from './dra-scheduler-cluster.js';

const claimsRef = 'resource.k8s.io/v1/resourceclaims';

describe('a gang with claims', () => {
  it('allocates nothing while it waits, rolls back a failed pre-bind, then binds whole', async () => {
    const { client, until: untilSeen, start, stop } = draCluster({ gpus: 3, model: h100 });
    const mkClaim = async (name: string, count = 1) => {
      const { metadata: _c, ...spec } = claim(name, [req('gpu', { count })]);
      return await client.create<ResourceClaim>(claimsRef, 'default', { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name }, ...spec });
    };
    await client.create('scheduling.k8s.io/v1alpha1/workloads', 'default', {
      // The Permit timeout is far beyond the clock's advances in this test.
      apiVersion: 'scheduling.k8s.io/v1alpha1', kind: 'Workload', metadata: { name: 'train', annotations: { 'bonsai.dev/gang-scheduling-timeout-seconds': '36000' } },
      spec: { controllerRef: { apiGroup: 'batch', kind: 'Job', name: 'train' }, podGroups: [{ name: 'g', policy: { gang: { minCount: 3 } } }] },
    });
    const mkPod = (name: string, claimName: string, gang = true) => client.create<Pod>('v1/pods', 'default', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name },
      spec: {
        ...(gang ? { workloadRef: { name: 'train', podGroup: 'g' } } : {}), resourceClaims: [{ name: 'gpu', resourceClaimName: claimName }],
        containers: [{ name: 'c', image: 'x', resources: { claims: [{ name: 'gpu' }] } }],
      },
    });
    const claimOf = (name: string) => client.get<ResourceClaim>(claimsRef, 'default', name);
    const podOf = (name: string) => client.get<Pod>('v1/pods', 'default', name);
    const scheduled = (name: string) => podOf(name)?.status?.conditions?.find((c) => c.type === 'PodScheduled');
    const until = (cond: () => boolean, what: string) =>
      untilSeen(cond, what, () => ['p0', 'p1', 'p2', 'outsider'].map((n) => [n, podOf(n)?.spec?.nodeName, scheduled(n)?.message]));

    await start();
    try {
      await mkClaim('c0');
      await mkClaim('c1');
      // p2's claim does not exist yet: p0 and p1 hold places at Permit (two of the three GPUs, in memory only).
      for (const [p, c] of [['p0', 'c0'], ['p1', 'c1'], ['p2', 'c2']]) await mkPod(p, c);
      await until(() => /resourceclaim "c2" not found/.test(scheduled('p2')?.message ?? ''), 'p2 rejected for its missing claim');
      // A pod outside the gang asking for two GPUs finds one free.
      await mkClaim('pair', 2);
      await mkPod('outsider', 'pair', false);
      await until(() => /cannot allocate all claims/.test(scheduled('outsider')?.message ?? ''), 'the outsider does not fit beside the waiting gang');
      assert.deepEqual(['c0', 'c1', 'pair'].map((n) => claimOf(n)?.status?.allocation), [undefined, undefined, undefined], 'nothing written while the gang waits');
      await client.delete('v1/pods', 'default', 'outsider');

      // c1 is replaced under p1 (same name, new uid): p1's PreBind fails once the gang fits, and p0's write is undone.
      const old = claimOf('c1')!;
      await client.delete(claimsRef, 'default', 'c1');
      const replaced = await mkClaim('c1');
      assert.notEqual(replaced.metadata.uid, old.metadata.uid);
      await mkClaim('c2');
      // p0's PreBind wrote c0 (adding the delete-protection finalizer, which the resourceclaim controller drops later)
      // and the rollback took the allocation back.
      await until(() => !!claimOf('c0')?.metadata.finalizers?.includes('resource.kubernetes.io/delete-protection'), 'c0 written by p0\'s PreBind');
      assert.equal(claimOf('c0')?.status?.allocation, undefined, 'c0 not left allocated');
      assert.deepEqual(['p0', 'p1', 'p2'].map((n) => podOf(n)?.spec?.nodeName), [undefined, undefined, undefined], 'no member bound');
      assert.deepEqual(['c0', 'c1', 'c2'].map((n) => claimOf(n)?.status?.reservedFor), [undefined, undefined, undefined], 'no reservation left');

      // After the backoff the gang is attempted again and binds whole, one device per claim.
      await until(() => ['p0', 'p1', 'p2'].every((n) => podOf(n)?.spec?.nodeName === 'n1'), 'the gang bound');
      const devices = ['c0', 'c1', 'c2'].map((n) => claimOf(n)?.status?.allocation?.devices?.results?.[0]?.device);
      assert.equal(new Set(devices).size, 3, devices.join(' '));
    } finally {
      stop();
    }
  });
});
