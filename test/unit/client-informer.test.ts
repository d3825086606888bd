// The in-process client and its informers: resource references, reads, label selectors, watches, named indexes
// kept from the change feed, indexing of the client's own writes before the feed reports them, and index entries
// left behind by a lagging feed being dropped when read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ManualClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { clientFor, type Client } from '../../src/client/client.js';
import type { Change } from '../../src/client/types.js';
import type { KObject } from '../../src/machinery/types.js';
import { ApiError } from '../../src/machinery/errors.js';

function setup(): { client: Client; store: SqliteStore; close: () => void } {
  const store = new SqliteStore({ path: ':memory:' });
  const reg = new Registry(store, allResources, new ManualClock(Date.UTC(2026, 0, 1)), createLogger('silent'));
  bootstrap(reg);
  return { client: clientFor(reg), store, close: () => store.close() };
}

const pod = (name: string, labels: Record<string, string> = {}, owner?: string): KObject => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, labels, ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: owner, controller: true }] } : {}) },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

const ownerOf = (p: KObject) => p.metadata.ownerReferences?.find((r) => r.controller)?.uid;
const names = (objs: KObject[]) => objs.map((o) => o.metadata.name ?? '').sort();

async function committed(client: Client): Promise<void> {
  await client.pendingCommit();
}

test('references resolve by version/plural and group/version/plural; reads share the stored objects', async () => {
  const { client, store, close } = setup();
  try {
    assert.equal(client.resource('v1/pods')?.kind, 'Pod');
    assert.equal(client.resource('apps/v1/replicasets')?.kind, 'ReplicaSet');
    assert.equal(client.resource('nope/v1/things'), undefined);
    assert.equal(client.resource('pods'), undefined);
    const created = await client.create('v1/pods', 'default', pod('a', { app: 'web' }));
    assert.equal(created.metadata.name, 'a');
    // No copy on read: the object is the store's own.
    assert.equal(client.get('v1/pods', 'default', 'a'), store.get('core/pods', 'default', 'a'));
    assert.equal(client.get(client.resource('v1/pods')!, 'default', 'a'), store.get('core/pods', 'default', 'a'));
    assert.equal(client.get('v1/pods', 'default', 'missing'), undefined);
    assert.equal(client.get('nope/v1/things', 'default', 'a'), undefined);
    assert.deepEqual(client.list('nope/v1/things'), []);
    await assert.rejects(() => client.create('nope/v1/things', 'default', pod('x')), (e: unknown) => e instanceof ApiError && e.code === 404);
  } finally {
    close();
  }
});

test('list filters by namespace and label selector; count counts', async () => {
  const { client, close } = setup();
  try {
    await client.create('v1/pods', 'default', pod('a', { app: 'web' }));
    await client.create('v1/pods', 'default', pod('b', { app: 'db' }));
    await client.create('v1/pods', 'kube-system', pod('c', { app: 'web' }));
    assert.deepEqual(names(client.list('v1/pods')), ['a', 'b', 'c']);
    assert.deepEqual(names(client.list('v1/pods', 'default')), ['a', 'b']);
    assert.deepEqual(names(client.list('v1/pods', undefined, { labelSelector: 'app=web' })), ['a', 'c']);
    assert.deepEqual(names(client.list('v1/pods', 'default', { labelSelector: 'app!=web' })), ['b']);
    assert.equal(client.count('v1/pods'), 3);
  } finally {
    close();
  }
});

test('updateStatus writes only status; guaranteedUpdate mutates a copy; delete removes', async () => {
  const { client, close } = setup();
  try {
    await client.create('v1/pods', 'default', pod('a'));
    const before = client.get('v1/pods', 'default', 'a')!;
    const cur = structuredClone(before);
    cur.status = { phase: 'Running' };
    (cur.spec as { containers: Array<{ image: string }> }).containers[0].image = 'ignored';
    await client.updateStatus('v1/pods', 'default', 'a', cur);
    const after = client.get<{ status?: { phase?: string }; spec: { containers: Array<{ image: string }> } }>('v1/pods', 'default', 'a')!;
    assert.equal(after.status?.phase, 'Running');
    assert.equal(after.spec.containers[0].image, 'nginx');
    await client.guaranteedUpdate('v1/pods', 'default', 'a', (o) => ({ ...o, metadata: { ...o.metadata, labels: { x: 'y' } } }));
    assert.deepEqual(client.get('v1/pods', 'default', 'a')!.metadata.labels, { x: 'y' });
    assert.equal(before.metadata.labels?.x, undefined, 'the object read earlier is not mutated');
    await client.delete('v1/pods', 'default', 'a', { gracePeriodSeconds: 0 });
    assert.equal(client.get('v1/pods', 'default', 'a'), undefined);
  } finally {
    close();
  }
});

test('watch delivers committed changes with the previous state, in order, until unsubscribed', async () => {
  const { client, close } = setup();
  try {
    const seen: string[] = [];
    const stop = client.watch('v1/pods', (c: Change) => seen.push(`${c.type} ${c.object.metadata.name} ${c.previous?.metadata.labels?.v ?? '-'}>${c.object.metadata.labels?.v ?? '-'}`));
    await client.create('v1/pods', 'default', pod('a', { v: '1' }));
    assert.deepEqual(seen, [], 'nothing before the commit');
    await committed(client);
    await client.guaranteedUpdate('v1/pods', 'default', 'a', (o) => ({ ...o, metadata: { ...o.metadata, labels: { v: '2' } } }));
    await client.delete('v1/pods', 'default', 'a', { gracePeriodSeconds: 0 });
    await committed(client);
    assert.deepEqual(seen, ['ADDED a ->1', 'MODIFIED a 1>2', 'DELETED a 2>2']);
    stop();
    await client.create('v1/pods', 'default', pod('b'));
    await committed(client);
    assert.equal(seen.length, 3);
    // A resource nobody serves: a no-op watch, not an error.
    client.watch('nope/v1/things', () => {})();
  } finally {
    close();
  }
});

test('an informer indexes existing objects and follows the feed; onChange runs after the indexes took the change', async () => {
  const { client, close } = setup();
  try {
    await client.create('v1/pods', 'default', pod('a', {}, 'uid-1'));
    await client.create('v1/pods', 'default', pod('b', {}, 'uid-2'));
    await committed(client);
    const inf = client.informer('v1/pods', { indexes: { owner: ownerOf, labels: (p) => Object.values(p.metadata.labels ?? {}) } });
    assert.deepEqual(names(inf.byIndex('owner', 'uid-1')), ['a']);
    assert.deepEqual(names(inf.list('default')), ['a', 'b']);
    assert.equal(inf.get('default', 'a'), client.get('v1/pods', 'default', 'a'));
    const during: string[][] = [];
    inf.onChange((c) => during.push([c.type, ...names(inf.byIndex('owner', 'uid-1'))]));
    await client.create('v1/pods', 'default', pod('c', { t: 'x', u: 'y' }, 'uid-1'));
    await committed(client);
    assert.deepEqual(during, [['ADDED', 'a', 'c']]);
    assert.deepEqual(names(inf.byIndex('labels', 'y')), ['c']);
    // Moving to another owner moves the entry.
    await client.guaranteedUpdate('v1/pods', 'default', 'a', (o) => ({ ...o, metadata: { ...o.metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'uid-2', controller: true }] } }));
    await committed(client);
    assert.deepEqual(names(inf.byIndex('owner', 'uid-1')), ['c']);
    assert.deepEqual(names(inf.byIndex('owner', 'uid-2')), ['a', 'b']);
    await client.delete('v1/pods', 'default', 'b', { gracePeriodSeconds: 0 });
    await committed(client);
    assert.deepEqual(names(inf.byIndex('owner', 'uid-2')), ['a']);
    assert.deepEqual(inf.indexValues('owner').sort(), ['uid-1', 'uid-2']);
    assert.throws(() => inf.byIndex('nope', 'x'));
    inf.stop();
    await client.create('v1/pods', 'default', pod('d', {}, 'uid-1'));
    await committed(client);
    assert.equal(during.length, 3, 'no change after stop');
  } finally {
    close();
  }
});

test('a lagging index: own writes are found once tracked, and entries the feed has not removed yet are dropped when read', async () => {
  const { client, close } = setup();
  try {
    const inf = client.informer('v1/pods', { indexes: { owner: ownerOf } });
    const created = await client.create('v1/pods', 'default', pod('a', {}, 'uid-1'));
    assert.deepEqual(inf.byIndex('owner', 'uid-1'), [], 'the feed has not reported the create yet');
    inf.track(created);
    assert.deepEqual(names(inf.byIndex('owner', 'uid-1')), ['a'], 'found once tracked (read-your-writes)');
    await committed(client);
    // Released by its owner: until the feed reports it, the old entry is still there, but is not returned.
    await client.guaranteedUpdate('v1/pods', 'default', 'a', (o) => ({ ...o, metadata: { ...o.metadata, ownerReferences: [] } }));
    assert.deepEqual(inf.byIndex('owner', 'uid-1'), []);
    assert.deepEqual(inf.indexValues('owner'), [], 'the stale entry was dropped when read');
    // Deleted: not returned before the feed reports it either.
    const b = await client.create('v1/pods', 'default', pod('b', {}, 'uid-2'));
    inf.track(b);
    await client.delete('v1/pods', 'default', 'b', { gracePeriodSeconds: 0 });
    assert.deepEqual(inf.byIndex('owner', 'uid-2'), []);
    // Recreated under the same name with another owner: the old entry does not return the new object.
    const b2 = await client.create('v1/pods', 'default', pod('b', {}, 'uid-3'));
    inf.track(b2);
    assert.deepEqual(inf.byIndex('owner', 'uid-2'), []);
    assert.deepEqual(names(inf.byIndex('owner', 'uid-3')), ['b']);
    await committed(client);
    assert.deepEqual(names(inf.byIndex('owner', 'uid-3')), ['b']);
    assert.deepEqual(inf.byIndex('owner', 'uid-2'), []);
    inf.stop();
  } finally {
    close();
  }
});

test('clients of other identities are made once and write as that identity', async () => {
  const { client, close } = setup();
  try {
    const user = { username: 'system:node:n1', groups: ['system:nodes'] };
    const n1 = client.as(user);
    assert.equal(client.as(user), n1);
    assert.notEqual(n1, client);
    const created = await n1.create('v1/pods', 'default', pod('a'));
    assert.equal(created.metadata.name, 'a');
    assert.equal(n1.get('v1/pods', 'default', 'a'), client.get('v1/pods', 'default', 'a'));
  } finally {
    close();
  }
});
