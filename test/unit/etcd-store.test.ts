// EtcdStore against a real etcd (Debian's 3.4): optimistic concurrency, watch order, two stores sharing one etcd,
// compaction answered with Expired, and the key layout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EtcdStore, parseEtcdUrl } from '../../src/storage/etcd/etcd-store.js';
import { KeyLayout } from '../../src/storage/etcd/keys.js';
import { StorageError } from '../../src/storage/errors.js';
import type { Change } from '../../src/storage/watch-hub.js';
import type { KObject } from '../../src/machinery/types.js';
import { startEtcd, useEtcd } from '../helpers/etcd.js';
import { waitDeadline } from '../helpers/wait.js';

const builtins = ['core/pods', 'core/nodes', 'core/services', 'core/endpoints', 'apps/deployments', 'apiextensions.k8s.io/customresourcedefinitions'];
const etcd = useEtcd();
const open = (opts: { windowSize?: number } = {}): Promise<EtcdStore> => etcd.open({ builtins, timeoutMs: 5000, ...opts });

const cm = (name: string, data: Record<string, string> = {}, namespace = 'default'): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data } as KObject);

const dataOf = (o: KObject | undefined): Record<string, string> => (o?.data ?? {}) as Record<string, string>;

async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + waitDeadline(ms);
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('key layout follows kube-apiserver: minions, services/specs, group/plural for CRDs and custom resources', () => {
  const k = new KeyLayout(builtins);
  assert.equal(k.key('core/pods', 'default', 'p'), '/registry/pods/default/p');
  assert.equal(k.key('core/nodes', '', 'n1'), '/registry/minions/n1');
  assert.equal(k.key('core/services', 'ns', 's'), '/registry/services/specs/ns/s');
  assert.equal(k.key('core/endpoints', 'ns', 's'), '/registry/services/endpoints/ns/s');
  assert.equal(k.key('apps/deployments', 'ns', 'd'), '/registry/deployments/ns/d');
  assert.equal(k.key('apiextensions.k8s.io/customresourcedefinitions', '', 'a.b.c'), '/registry/apiextensions.k8s.io/customresourcedefinitions/a.b.c');
  assert.equal(k.key('example.com/widgets', 'ns', 'w'), '/registry/example.com/widgets/ns/w');
  for (const [key, parts] of [
    ['/registry/services/specs/ns/s', { resource: 'core/services', namespace: 'ns', name: 's' }],
    ['/registry/services/endpoints/ns/s', { resource: 'core/endpoints', namespace: 'ns', name: 's' }],
    ['/registry/minions/n1', { resource: 'core/nodes', namespace: '', name: 'n1' }],
    ['/registry/example.com/widgets/ns/w', { resource: 'example.com/widgets', namespace: 'ns', name: 'w' }],
    ['/registry/example.com/clusterwidgets/w', { resource: 'example.com/clusterwidgets', namespace: '', name: 'w' }],
  ] as const) assert.deepEqual(k.parse(key), parts);
  assert.equal(k.parse('/other/x'), undefined);
  assert.equal(k.parse('/registry/pods/a/b/c'), undefined);
  assert.throws(() => parseEtcdUrl('http://x:1'), /etcd:\/\//);
  assert.deepEqual(parseEtcdUrl('etcd://a:1,b:2'), ['http://a:1', 'http://b:2']);
});

test('create, update with a stale revision (Conflict), delete; resourceVersion is the etcd revision', async () => {
  const s = await open();
  const a = await s.create('core/configmaps', cm('one', { v: '1' }));
  assert.ok(Number(a.metadata.resourceVersion) > 0);
  assert.equal(s.get('core/configmaps', 'default', 'one'), a, 'read-your-writes: the mirror holds it at once');
  await assert.rejects(s.create('core/configmaps', cm('one')), (e: unknown) => e instanceof StorageError && e.code === 'AlreadyExists');
  const b = await s.update('core/configmaps', { ...a, data: { v: '2' } } as KObject, Number(a.metadata.resourceVersion));
  assert.ok(Number(b.metadata.resourceVersion) > Number(a.metadata.resourceVersion));
  await assert.rejects(s.update('core/configmaps', { ...a, data: { v: '3' } } as KObject, Number(a.metadata.resourceVersion)), (e: unknown) => e instanceof StorageError && e.code === 'Conflict');
  const d = await s.delete('core/configmaps', 'default', 'one');
  assert.equal(s.get('core/configmaps', 'default', 'one'), undefined);
  assert.ok(Number(d.metadata.resourceVersion) > Number(b.metadata.resourceVersion));
  await assert.rejects(s.delete('core/configmaps', 'default', 'one'), (e: unknown) => e instanceof StorageError && e.code === 'NotFound');
  // etcd's request limit (1.5 MiB, as the SQLite store's) answers TooLarge, not a timeout.
  await assert.rejects(s.create('core/configmaps', cm('big', { v: 'x'.repeat(1.6 * 1024 * 1024) })), (e: unknown) => e instanceof StorageError && e.code === 'TooLarge');
  assert.equal((await s.create('core/configmaps', cm('large', { v: 'x'.repeat(1024 * 1024) }))).metadata.name, 'large');
  await s.committed();
  assert.equal(s.hasPending(), false);
  assert.ok(s.publishedRevision() >= Number(d.metadata.resourceVersion));
});

test('two stores on one etcd see each other\'s writes, in revision order, and a stale mirror gets Conflict then catches up', async () => {
  const [s1, s2] = await Promise.all([open(), open()]);
  const seen1: Change[] = [];
  const seen2: Change[] = [];
  s1.hub.subscribe('core/configmaps', (c) => seen1.push(c));
  s2.hub.subscribe('core/configmaps', (c) => seen2.push(c));
  const x = await s1.create('core/configmaps', cm('shared', { n: '0' }));
  const y = await s2.create('core/configmaps', cm('other'));
  await until(() => seen1.length >= 2 && seen2.length >= 2, 'both writes on both stores');
  assert.deepEqual(seen1.map((c) => c.rv), seen2.map((c) => c.rv), 'same order everywhere');
  assert.deepEqual(seen1.map((c) => c.rv), [x, y].map((o) => Number(o.metadata.resourceVersion)).sort((p, q) => p - q));
  assert.equal(dataOf(s2.get('core/configmaps', 'default', 'shared')).n, '0');
  // s2 updates; s1 writes from its (maybe stale) copy with an explicit precondition: Conflict unless it caught up.
  const z = await s2.update('core/configmaps', { ...s2.get('core/configmaps', 'default', 'shared')!, data: { n: '1' } } as KObject);
  await assert.rejects(s1.update('core/configmaps', { ...x, data: { n: 'stale' } } as KObject, Number(x.metadata.resourceVersion)), (e: unknown) => e instanceof StorageError && e.code === 'Conflict');
  // After the Conflict the mirror holds etcd's state, so a retry from it succeeds.
  const fresh = s1.get('core/configmaps', 'default', 'shared')!;
  assert.equal(fresh.metadata.resourceVersion, z.metadata.resourceVersion);
  await s1.update('core/configmaps', { ...fresh, data: { n: '2' } } as KObject, Number(fresh.metadata.resourceVersion));
  await until(() => dataOf(s2.get('core/configmaps', 'default', 'shared')).n === '2', 'the retry reaching s2');
  await s2.consistentRead();
  assert.ok(s2.publishedRevision() >= s1.revision());
});

test('consistent reads through a third store see every write of two others, and its feed has no gap or repeat', async () => {
  const [w1, w2, reader] = await Promise.all([open(), open(), open()]);
  const feed: number[] = [];
  reader.hub.subscribe('core/configmaps', (c) => feed.push(c.rv));
  const written: number[] = [];
  for (let i = 0; i < 120; i++) {
    const o = await (i % 2 ? w1 : w2).create('core/configmaps', cm(`burst-${i}`));
    written.push(Number(o.metadata.resourceVersion));
    // Progress requests and notifications must never let the reader skip a change (etcd 3.4.23 sends them early).
    if (i % 10 === 0) {
      await reader.consistentRead();
      assert.ok(reader.get('core/configmaps', 'default', `burst-${i}`), `burst-${i} visible after a consistent read`);
    }
    // A read of one object waits for that object's last change only: it is there, and a deleted one is gone.
    if (i % 10 === 5) {
      await reader.consistentRead({ resource: 'core/configmaps', namespace: 'default', name: `burst-${i}` });
      assert.ok(reader.get('core/configmaps', 'default', `burst-${i}`), `burst-${i} visible after a read of it`);
      // The other writer made it: the deleting store reads it first (its watch may not have brought it yet).
      const deleter = i % 2 ? w1 : w2;
      await deleter.consistentRead({ resource: 'core/configmaps', namespace: 'default', name: `burst-${i - 1}` });
      await deleter.delete('core/configmaps', 'default', `burst-${i - 1}`);
      await reader.consistentRead({ resource: 'core/configmaps', namespace: 'default', name: `burst-${i - 1}` });
      assert.equal(reader.get('core/configmaps', 'default', `burst-${i - 1}`), undefined, `burst-${i - 1} gone after a read of it`);
    }
  }
  await reader.consistentRead();
  const mine = feed.filter((rv) => written.includes(rv));
  assert.deepEqual(mine, written, 'every write once, in revision order');
  for (let i = 1; i < feed.length; i++) assert.ok(feed[i] > feed[i - 1], 'strictly increasing revisions');
});

test('a watch replays from the in-memory window, then goes live; compaction and the window answer Expired', async () => {
  const s = await open({ windowSize: 5 });
  const start = s.revision();
  const made: number[] = [];
  for (let i = 0; i < 3; i++) made.push(Number((await s.create('core/configmaps', cm(`w${i}`))).metadata.resourceVersion));
  await s.committed();
  const live: Change[] = [];
  const w = s.watch('core/configmaps', start, (c) => live.push(c));
  assert.deepEqual(w.replay(100).map((c) => c.rv), made);
  const later = Number((await s.create('core/configmaps', cm('w-live'))).metadata.resourceVersion);
  await until(() => live.length === 1, 'the live change');
  assert.equal(live[0].rv, later);
  assert.equal(live[0].type, 'ADDED');
  w.stop();
  for (let i = 0; i < 6; i++) await s.create('core/configmaps', cm(`fill${i}`));
  await s.committed();
  assert.throws(() => s.watch('core/configmaps', start, () => {}), (e: unknown) => e instanceof StorageError && e.code === 'Expired', 'beyond the window');
  const now = s.publishedRevision();
  assert.equal(s.compact(0), now);
  assert.throws(() => s.watch('core/configmaps', now - 1, () => {}), (e: unknown) => e instanceof StorageError && e.code === 'Expired', 'before the compaction');
  s.watch('core/configmaps', now, () => {}).stop();
  // A store opened after the compaction loads the current state.
  const fresh = await open();
  assert.equal(fresh.count('core/configmaps'), s.count('core/configmaps'));
});

test('a watch that falls behind a compaction relists: the mirror matches etcd and replays from before are Expired', async () => {
  const [s1, s2] = await Promise.all([open(), open()]);
  const seen: Change[] = [];
  s1.hub.subscribe('core/configmaps', (c) => seen.push(c));
  const early = s1.revision();
  await s2.create('core/configmaps', cm('relist-a'));
  await s2.committed();
  s2.compact(0);
  const gone = await s2.delete('core/configmaps', 'default', 'relist-a');
  const made = await s2.create('core/configmaps', cm('relist-b'));
  await s2.committed();
  // Point s1's etcd watch at a revision etcd has compacted away, as after a long disconnection.
  (s1 as unknown as { channel: { control(c: { op: 'watch'; from: number }): void } }).channel.control({ op: 'watch', from: early });
  // After the relist, replays can only start from the revision it read.
  await until(() => s1.compactedRevision() >= Number(made.metadata.resourceVersion), 'the relist');
  assert.ok(s1.get('core/configmaps', 'default', 'relist-b'));
  assert.equal(s1.get('core/configmaps', 'default', 'relist-a'), undefined);
  assert.ok(Number(gone.metadata.resourceVersion) > 0);
  assert.deepEqual(s1.list('core/configmaps').map((o) => o.metadata.name), s2.list('core/configmaps').map((o) => o.metadata.name));
  assert.ok(seen.some((c) => c.object.metadata.name === 'relist-b'), 'watchers were told about the new object');
  assert.throws(() => s1.watch('core/configmaps', early, () => {}), (e: unknown) => e instanceof StorageError && e.code === 'Expired');
});

test('etcd going away: a write fails with Timeout instead of hanging', async () => {
  const other = await startEtcd();
  const s = await EtcdStore.open({ endpoints: parseEtcdUrl(other.storage), builtins, log: () => {}, timeoutMs: 1500 });
  await s.create('core/configmaps', cm('before'));
  await other.stop();
  try {
    await assert.rejects(s.create('core/configmaps', cm('after')), (e: unknown) => e instanceof StorageError && e.code === 'Timeout');
  } finally {
    s.close();
  }
});

test('many transactions in flight, each answered with its revision; refusals as one at a time gets them', async () => {
  const s = await open();
  const seen: Change[] = [];
  s.hub.subscribe('*', (c) => seen.push(c));
  const created = await Promise.all(Array.from({ length: 40 }, (_, i) => s.create('core/configmaps', cm(`async-${i}`, { i: String(i) }))));
  const revs = created.map((o) => Number(o.metadata.resourceVersion));
  assert.equal(new Set(revs).size, 40, 'one revision each');
  for (const o of created) assert.equal(s.get('core/configmaps', 'default', o.metadata.name ?? '')?.metadata.resourceVersion, o.metadata.resourceVersion, 'read back at once');
  await s.committed();
  assert.deepEqual(seen.filter((c) => c.type === 'ADDED' && c.object.metadata.name?.startsWith('async-')).map((c) => c.rv), [...revs].sort((a, b) => a - b), 'watchers told once each, in revision order');
  await assert.rejects(s.create('core/configmaps', cm('async-0')), (e: unknown) => e instanceof StorageError && e.code === 'AlreadyExists');
  const first = created[0];
  const updated = await s.update('core/configmaps', { ...first, data: { i: 'changed' } }, Number(first.metadata.resourceVersion));
  assert.equal(dataOf(s.get('core/configmaps', 'default', 'async-0')).i, 'changed');
  await assert.rejects(s.update('core/configmaps', { ...first, data: { i: 'stale' } }, Number(first.metadata.resourceVersion)), (e: unknown) => e instanceof StorageError && e.code === 'Conflict');
  const gone = await s.delete('core/configmaps', 'default', 'async-0', Number(updated.metadata.resourceVersion));
  assert.equal(gone.metadata.name, 'async-0');
  assert.equal(s.get('core/configmaps', 'default', 'async-0'), undefined);
  await assert.rejects(s.delete('core/configmaps', 'default', 'async-0'), (e: unknown) => e instanceof StorageError && e.code === 'NotFound');
});
