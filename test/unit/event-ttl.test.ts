// Event TTL internals: passes are bounded and pick up where they left, events stored before the start are queued
// by their own timestamps, events written again are kept, stale queue entries are compacted away, and the
// estimate of an event's last write reads the latest of its timestamps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ManualClock, rfc3339 } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { EventTtl, lastWriteMs, maxDeletesPerPass } from '../../src/registry/event-ttl.js';
import type { KObject } from '../../src/machinery/types.js';

const start = Date.UTC(2026, 0, 1);
const ttl = 60_000;

function setup(clockStart = start): { reg: Registry; clock: ManualClock; store: SqliteStore; def: NonNullable<ReturnType<Registry['find']>> } {
  const store = new SqliteStore({ path: ':memory:' });
  const clock = new ManualClock(clockStart);
  const reg = new Registry(store, allResources, clock, createLogger('silent'));
  bootstrap(reg);
  return { reg, clock, store, def: reg.find('', 'v1', 'events')! };
}

const event = (name: string, atMs: number): KObject => ({
  apiVersion: 'v1', kind: 'Event', metadata: { name }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'x' },
  reason: 'Test', message: name, type: 'Normal', count: 1, firstTimestamp: rfc3339(new Date(atMs)), lastTimestamp: rfc3339(new Date(atMs)),
});

test('a pass deletes at most its bound; the rest go in the next passes, after the event loop has turned', async () => {
  const { reg, clock, store, def } = setup();
  const expiry = new EventTtl(reg, clock, ttl);
  try {
    expiry.start();
    await turn();
    const n = maxDeletesPerPass * 2 + 10;
    for (let i = 0; i < n; i++) await reg.create(def, 'default', event(`e${i}`, start));
    await store.committed();
    assert.equal(expiry.stats().queued, n);
    clock.advance(ttl - 2_000);
    assert.equal(store.count('core/events'), n, 'nothing expires before the TTL');
    clock.advance(3_000);
    assert.equal(store.count('core/events'), n - maxDeletesPerPass, 'one bounded pass ran on the clock');
    for (let i = 0; i < 10 && store.count('core/events') > 0; i++) await turn();
    assert.equal(store.count('core/events'), 0, 'the next passes ran without waiting for the clock');
    assert.equal(expiry.stats().expired, n);
  } finally {
    expiry.stop();
    store.close();
  }
});

test('events stored before the start are queued by their timestamps; one written again lives on', async () => {
  // Written (created) two TTLs and half a TTL before the start.
  const { reg, clock, store, def } = setup(start - 2 * ttl);
  await reg.create(def, 'default', event('old', start - 2 * ttl));
  await reg.create(def, 'default', event('again', start - 2 * ttl));
  clock.advance(1.5 * ttl);
  await reg.create(def, 'default', event('recent', start - ttl / 2));
  clock.advance(ttl / 2);
  await store.committed();
  const expiry = new EventTtl(reg, clock, ttl);
  try {
    expiry.start();
    assert.equal(expiry.stats().queued, 0, 'the stored events are queued in the background');
    await turn();
    assert.equal(expiry.stats().queued, 3);
    clock.advance(1_000);
    assert.equal(reg.getStored('core/events', 'default', 'old'), undefined, 'older than the TTL: gone on the first pass');
    assert.ok(reg.getStored('core/events', 'default', 'recent'));
    assert.equal(reg.getStored('core/events', 'default', 'again'), undefined);
    await reg.create(def, 'default', event('again', clock.nowMs()));
    await store.committed();
    clock.advance(ttl / 2);
    assert.equal(reg.getStored('core/events', 'default', 'recent'), undefined, 'expired by its own timestamps');
    // Written again (an update) half a TTL later: its clock starts over.
    await reg.update(def, 'default', 'again', (cur) => ({ ...cur, count: 2 }));
    await store.committed();
    clock.advance(ttl / 2 + 1_000);
    assert.ok(reg.getStored('core/events', 'default', 'again'), 'kept: written again half a TTL ago');
    clock.advance(ttl / 2 + 1_000);
    assert.equal(reg.getStored('core/events', 'default', 'again'), undefined);
  } finally {
    expiry.stop();
    store.close();
  }
});

test('stale queue entries of events written again and again are compacted away', async () => {
  const { reg, clock, store, def } = setup();
  const expiry = new EventTtl(reg, clock, ttl);
  try {
    expiry.start();
    await turn();
    await reg.create(def, 'default', event('busy', start));
    for (let i = 0; i < 5_000; i++) {
      await reg.update(def, 'default', 'busy', (cur) => ({ ...cur, count: i + 2 }));
      if (i % 100 === 0) await store.committed();
    }
    await store.committed();
    assert.ok(expiry.stats().queued <= 2 + 1024 + 1024, `queue bounded (${expiry.stats().queued})`);
    clock.advance(ttl + 1_000);
    assert.equal(store.count('core/events'), 0);
  } finally {
    expiry.stop();
    store.close();
  }
});

test('lastWriteMs reads the latest of an event\'s timestamps', () => {
  const e = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', creationTimestamp: '2026-01-01T00:00:00Z' }, lastTimestamp: '2026-01-01T00:10:00Z', series: { lastObservedTime: '2026-01-01T00:20:00.000000Z' }, eventTime: null };
  assert.equal(lastWriteMs(e as never), Date.parse('2026-01-01T00:20:00Z'));
  assert.equal(lastWriteMs({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, lastTimestamp: 'garbage', series: 'x' } as never), 0);
});
