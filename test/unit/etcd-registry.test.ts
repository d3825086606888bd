// Two registries on one etcd, as two Bonsai processes: a write through one from a copy that lags behind the other's
// write is retried from etcd's state (no spurious 409), and a pinned resourceVersion still conflicts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { storageKey } from '../../src/registry/resource.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ManualClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { ApiError } from '../../src/machinery/errors.js';
import type { KObject } from '../../src/machinery/types.js';
import { useEtcd } from '../helpers/etcd.js';

const etcd = useEtcd();

async function registry(): Promise<Registry> {
  const store = await etcd.open({ builtins: allResources.map(storageKey) });
  const reg = new Registry(store, allResources, new ManualClock(Date.UTC(2026, 0, 1)), createLogger('silent'));
  await bootstrap(reg);
  return reg;
}

test('an update from a lagging copy is retried from etcd; a pinned resourceVersion conflicts', async () => {
  const [r1, r2] = [await registry(), await registry()];
  const cms = r1.find('', 'v1', 'configmaps')!;
  const made = await r1.create(cms, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared' }, data: { n: '0' } } as KObject);
  await r2.store.consistentRead?.();
  assert.equal(r2.store.get('core/configmaps', 'default', 'shared')?.metadata.resourceVersion, made.metadata.resourceVersion);
  // r1 writes; r2's copy still has the old revision when it writes right after (its watch has not delivered yet).
  // The mutations pin no resourceVersion (as a patch): a conflict is retried.
  const unpinned = (cur: KObject, data: Record<string, string>) => ({ ...cur, metadata: { ...cur.metadata, resourceVersion: undefined }, data } as KObject);
  await r1.update(cms, 'default', 'shared', (cur) => unpinned(cur, { n: '1', a: 'x' }));
  const out = await r2.update(cms, 'default', 'shared', (cur) => unpinned(cur, { ...(cur.data as Record<string, string>), b: 'y' }));
  assert.deepEqual(out.data, { n: '1', a: 'x', b: 'y' }, 'the retry started from r1\'s write');
  await assert.rejects(
    async () => r1.update(cms, 'default', 'shared', () => ({ ...made, data: { n: 'stale' } } as KObject)),
    (e: unknown) => e instanceof ApiError && e.code === 409,
  );
  await r1.store.consistentRead?.();
  assert.deepEqual(r1.store.get('core/configmaps', 'default', 'shared')?.data, { n: '1', a: 'x', b: 'y' });
});
