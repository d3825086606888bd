// The scheduler's view of the devices claims hold (dra-lookups.ts): kept claim by claim from its own reservations
// and the claims' changes, skipping a change older than the reservation it already knows of.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ScaledClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { clientFor } from '../../src/client/client.js';
import { draLookups } from '../../src/scheduler/dra-lookups.js';
import type { ResourceClaim } from '../../src/generated/k8s/resource/v1.js';
import { deviceKey } from '../../src/scheduler/dra/types.js';

const claimsRef = 'resource.k8s.io/v1/resourceclaims';
const gpu0 = deviceKey({ driver: 'gpu.bonsai.dev', pool: 'n1', device: 'gpu-0' });

it('a reservation holds its devices at once; an older change of the claim does not free them; deletion does', async () => {
  const store = new SqliteStore({ path: ':memory:' });
  try {
    const registry = new Registry(store, allResources, new ScaledClock(), createLogger('silent'));
    bootstrap(registry);
    const client = clientFor(registry);
    const claim = await client.create<ResourceClaim>(claimsRef, 'default', {
      apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: 'c' },
      spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.bonsai.dev' } }] } },
    });
    const dra = draLookups(client, () => {});
    assert.deepEqual([...dra.allocated!()], []);
    dra.reserve(claim, {
      allocation: { devices: { results: [{ request: 'gpu', driver: 'gpu.bonsai.dev', pool: 'n1', device: 'gpu-0' }] } },
      reservedFor: [{ resource: 'pods', name: 'p', uid: 'u1' }],
    });
    assert.deepEqual([...dra.allocated!()], [gpu0]);
    // The claim's creation (and its finalizer) arriving late, after the scheduler's own reservation.
    dra.claimChanged(claim, false);
    assert.deepEqual([...dra.allocated!()], [gpu0]);
    const now = client.get<ResourceClaim>(claimsRef, 'default', 'c')!;
    dra.claimChanged({ ...now, status: {} }, true);
    assert.deepEqual([...dra.allocated!()], []);
  } finally {
    store.close();
  }
});
