// What a restart on a data dir costs beside the kubelets: a scan or a namespace list after a restart parses the
// objects it reaches a page at a time (same answers as before), the store tells each object's write time without
// parsing it, the Event TTL queues stored Events from those times, and the garbage collector ignores Events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ManualClock, rfc3339 } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { EventTtl } from '../../src/registry/event-ttl.js';
import type { KObject } from '../../src/machinery/types.js';

function tmpDb(): { path: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'bonsai-restart-'));
  return { path: join(dir, 'bonsai.db'), done: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A manual clock, a data dir and a function opening a store and registry on them, for the Event TTL tests. */
function eventTtlSetup() {
  const start = Date.UTC(2026, 0, 1);
  const ttl = 60_000;
  const clock = new ManualClock(start);
  const db = tmpDb();
  const open = () => {
    const store = new SqliteStore({ path: db.path, now: () => clock.nowMs() });
    const reg = new Registry(store, allResources, clock, createLogger('silent'));
    bootstrap(reg);
    return { store, reg, def: reg.find('', 'v1', 'events')! };
  };
  return { start, ttl, clock, db, open };
}

/** An Event whose own timestamps say `atMs`. */
const testEvent = (name: string, atMs: number): KObject => ({
  apiVersion: 'v1', kind: 'Event', metadata: { name }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'x' },
  reason: 'Test', message: name, type: 'Normal', count: 1, firstTimestamp: rfc3339(new Date(atMs)), lastTimestamp: rfc3339(new Date(atMs)),
});

const pod = (name: string, namespace: string): KObject => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels: { app: 'web' } },
  spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
});

test('after a restart, scans and namespace lists parse a page at a time and answer as before', () => {
  const db = tmpDb();
  try {
    const s = new SqliteStore({ path: db.path });
    for (let i = 0; i < 2600; i++) s.create('core/pods', pod(`p${String(i).padStart(4, '0')}`, i % 2 ? 'a' : 'b'));
    const expected = s.list('core/pods').map((p) => `${p.metadata.namespace}/${p.metadata.name}@${p.metadata.resourceVersion}`);
    const removed = s.list('core/pods', 'a')[5];
    s.close();
    const r = new SqliteStore({ path: db.path });
    try {
      assert.equal(r.unparsedCount(), 2600);
      const page: string[] = [];
      r.scan('core/pods', undefined, '', (o) => (page.push(`${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`), page.length < 10));
      assert.deepEqual(page, expected.slice(0, 10));
      assert.ok(r.unparsedCount() <= 2600 - 1000, 'the page ahead was parsed in one read');
      r.delete('core/pods', 'a', removed.metadata.name ?? '');
      const inA = r.list('core/pods', 'a').map((p) => `${p.metadata.namespace}/${p.metadata.name}@${p.metadata.resourceVersion}`);
      assert.deepEqual(inA, expected.filter((k) => k.startsWith('a/') && !k.startsWith(`a/${removed.metadata.name}@`)));
      const all: string[] = [];
      r.scan('core/pods', undefined, '', (o) => (all.push(`${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`), true));
      assert.equal(all.length, 2599);
      assert.equal(r.unparsedCount(), 0);
    } finally {
      r.close();
    }
  } finally {
    db.done();
  }
});

test('the store tells write times in write order; the Event TTL queues stored Events from them', async () => {
  const { start, ttl, clock, db, open } = eventTtlSetup();
  // Event timestamps that say nothing useful (written long before): the write time decides.
  const event = (name: string) => testEvent(name, start - 10 * ttl);
  try {
    let { store, reg, def } = open();
    await reg.create(def, 'default', event('first'));
    await store.committed();
    clock.advance(ttl / 2);
    await reg.create(def, 'default', event('second'));
    await store.committed();
    store.close();
    clock.advance(ttl / 4);
    ({ store, reg, def } = open());
    const times = store.writeTimes('core/events');
    assert.deepEqual(times.revs.map((rv) => store.keyAt('core/events', rv)?.name), ['first', 'second']);
    assert.deepEqual(times.times, [start, start + ttl / 2]);
    assert.ok(times.revs[0] < times.revs[1]);
    const expiry = new EventTtl(reg, clock, ttl);
    try {
      expiry.start();
      await turn();
      assert.equal(expiry.stats().queued, 2);
      clock.advance(ttl / 4 + 1000);
      assert.equal(reg.getStored('core/events', 'default', 'first'), undefined, 'expired a TTL after its write');
      assert.ok(reg.getStored('core/events', 'default', 'second'), 'kept: written half a TTL later (its timestamps are older)');
      clock.advance(ttl / 2);
      assert.equal(reg.getStored('core/events', 'default', 'second'), undefined);
    } finally {
      expiry.stop();
      store.close();
    }
  } finally {
    db.done();
  }
});

test('stored Events queued at start-up without their keys are expired by key, and compacted away once rewritten', async () => {
  const { start, ttl, clock, db, open } = eventTtlSetup();
  const event = (name: string) => testEvent(name, start);
  try {
    let { store, reg, def } = open();
    for (let i = 0; i < 350; i++) await reg.create(def, 'default', event(`e${i}`));
    await store.committed();
    store.close();
    ({ store, reg, def } = open());
    const expiry = new EventTtl(reg, clock, ttl);
    try {
      expiry.start();
      await turn();
      assert.equal(expiry.stats().queued, 350);
      // 300 of them written six times more: 1,800 entries behind the 350 stored ones, stale but the last of each; the
      // other 50 have only their entry from start-up.
      for (let round = 0; round < 6; round++) {
        for (let i = 0; i < 300; i++) {
          const cur = store.get('core/events', 'default', `e${i}`)!;
          store.update('core/events', { ...cur, count: round + 2 } as KObject);
        }
      }
      await store.committed();
      assert.ok(expiry.stats().queued < 650, `stale entries compacted away, stored ones included: ${expiry.stats().queued} left`);
      clock.advance(ttl + 1000);
      for (let i = 0; i < 20 && store.count('core/events') > 0; i++) await turn();
      assert.equal(store.count('core/events'), 0, 'every Event expired a TTL after its last write');
      assert.equal(expiry.stats().expired, 350);
    } finally {
      expiry.stop();
      store.close();
    }
  } finally {
    db.done();
  }
});
