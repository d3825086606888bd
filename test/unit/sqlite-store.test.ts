// The store's representation: cold resources (Events) read back from the change log, hot ones parsed once (lazily
// after a restart) with their short strings interned, the written text dropped once published, and the file kept
// compact by incremental vacuum.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { StringInterner } from '../../src/storage/intern.js';
import type { KObject } from '../../src/machinery/types.js';

function tmpDb(): { path: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'bonsai-store-'));
  return { path: join(dir, 'bonsai.db'), done: () => rmSync(dir, { recursive: true, force: true }) };
}

const pod = (name: string, node = 'node-1'): KObject => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: 'web', tier: 'front' } },
  spec: { nodeName: node, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
});
const event = (name: string, n = 1): KObject => ({
  apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'default' }, reason: 'Scheduled', message: `assigned ${n}`, count: n,
});

test('cold objects (Events) are read back from the change log, a fresh copy with its text on every read', () => {
  const s = new SqliteStore({ path: ':memory:' });
  try {
    const written = s.create('core/events', event('e1'));
    // Before the commit the text is in memory; after it, in the change log only.
    assert.equal(s.get('core/events', 'default', 'e1')?.message, 'assigned 1');
    s.flush();
    const a = s.get('core/events', 'default', 'e1')!;
    const b = s.get('core/events', 'default', 'e1')!;
    assert.notEqual(a, b, 'each read parses anew');
    assert.deepEqual(a, written);
    assert.equal(s.pendingText(a), JSON.stringify(written));
    s.update('core/events', { ...a, count: 2 }, Number(a.metadata.resourceVersion));
    assert.equal(s.get('core/events', 'default', 'e1')?.count, 2);
    s.flush();
    assert.equal(s.get('core/events', 'default', 'e1')?.count, 2);
    s.create('core/events', event('e0'));
    assert.deepEqual(s.list('core/events').map((e) => e.metadata.name), ['e0', 'e1']);
    const scanned: string[] = [];
    s.scan('core/events', 'default', '', (e) => (scanned.push(e.metadata.name ?? ''), true));
    assert.deepEqual(scanned, ['e0', 'e1']);
    assert.deepEqual(s.list('core/events', 'other'), []);
    const gone = s.delete('core/events', 'default', 'e1');
    assert.equal(gone.count, 2);
    assert.equal(s.get('core/events', 'default', 'e1'), undefined);
    s.compact(0);
    assert.equal(s.get('core/events', 'default', 'e0')?.message, 'assigned 1', 'compaction keeps current objects');
  } finally {
    s.close();
  }
});

test('hot objects keep one parsed copy; their written text is dropped once watchers were told', () => {
  const s = new SqliteStore({ path: ':memory:' });
  try {
    let seenText: string | undefined;
    s.hub.subscribe('core/pods', (c) => (seenText = s.pendingText(c.object)));
    const p = s.create('core/pods', pod('p1'));
    assert.equal(s.pendingText(p), JSON.stringify(p), 'the write and its watchers encode from the text');
    assert.equal(s.get('core/pods', 'default', 'p1'), p, 'the stored object itself');
    s.flush();
    assert.equal(seenText, JSON.stringify(p));
    assert.equal(s.pendingText(p), undefined, 'no second copy once published');
    assert.equal(s.get('core/pods', 'default', 'p1'), p);
  } finally {
    s.close();
  }
});

test('a restart loads keys only: objects are parsed on first read or by warm(), lists complete all along', async () => {
  const db = tmpDb();
  try {
    const s = new SqliteStore({ path: db.path });
    for (let i = 0; i < 2500; i++) s.create('core/pods', pod(`p${String(i).padStart(4, '0')}`, `node-${i % 7}`));
    for (let i = 0; i < 300; i++) s.create('core/events', event(`e${i}`, i));
    s.create('core/pods', { ...pod('x'), metadata: { name: 'x', namespace: 'kube-system' } });
    s.close();

    const r = new SqliteStore({ path: db.path });
    try {
      assert.equal(r.unparsedCount(), 2501);
      assert.equal(r.count('core/pods'), 2501);
      assert.equal((r.get('core/pods', 'default', 'p0042') as { spec?: { nodeName?: string } } | undefined)?.spec?.nodeName, 'node-0');
      assert.equal(r.unparsedCount(), 2500, 'one read parses one object');
      assert.deepEqual(r.list('core/pods', 'kube-system').map((p) => p.metadata.name), ['x']);
      const warming = r.warm();
      assert.ok(r.unparsedCount() > 0, 'warm() runs in the background');
      const all = r.list('core/pods');
      assert.equal(all.length, 2501, 'a list is complete while warming');
      assert.equal(r.unparsedCount(), 0);
      await warming;
      assert.equal(r.list('core/events').length, 300);
      assert.equal(r.get('core/events', 'default', 'e7')?.count, 7);
      // Cold keys load in the background (warm) or at once for the first reader.
      const again = new SqliteStore({ path: db.path });
      try {
        const events = again.warm();
        assert.equal(again.get('core/events', 'default', 'e299')?.count, 299);
        assert.equal(again.count('core/events'), 300);
        await events;
        assert.equal(again.list('core/events', 'default').length, 300);
      } finally {
        again.close();
      }
      // Writes after a restart go on from the stored revision.
      const before = r.revision();
      const u = r.update('core/pods', { ...all[0], metadata: { ...all[0].metadata, labels: { app: 'db' } } });
      assert.equal(Number(u.metadata.resourceVersion), before + 1);
    } finally {
      r.close();
    }
  } finally {
    db.done();
  }
});

test('the database is incremental-vacuumed: an older file is converted on open, compaction gives pages back', () => {
  const db = tmpDb();
  try {
    // An older database: created without auto-vacuum.
    const old = new BetterSqlite3(db.path);
    old.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    old.close();
    const s = new SqliteStore({ path: db.path, retainChanges: 10 });
    const big = 'x'.repeat(4000);
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 100; i++) s.create('core/events', { ...event(`e${round}-${i}`), message: big });
      s.flush();
      for (let i = 0; i < 100; i++) s.delete('core/events', 'default', `e${round}-${i}`);
      s.flush();
    }
    const peek = new BetterSqlite3(db.path, { readonly: true });
    try {
      assert.equal(peek.pragma('auto_vacuum', { simple: true }), 2);
      const pages = () => peek.pragma('page_count', { simple: true }) as number;
      const before = pages();
      s.compact();
      const after = pages();
      assert.ok(after < before / 4, `pages ${before} -> ${after}`);
      assert.equal(peek.pragma('freelist_count', { simple: true }), 0);
    } finally {
      peek.close();
      s.close();
    }
    assert.ok(statSync(db.path).size < 1_000_000);
  } finally {
    db.done();
  }
});

test('the interner shares equal strings, leaves long ones alone and stays bounded', () => {
  const t = new StringInterner(4);
  const a = { x: ['alpha', { y: 'beta' }], z: 'alpha' };
  t.internValues(a);
  assert.deepEqual(a, { x: ['alpha', { y: 'beta' }], z: 'alpha' });
  for (let i = 0; i < 100; i++) t.intern(`s${i}`);
  assert.ok(t.size() <= 8);
  assert.equal(t.intern('q'.repeat(200)).length, 200);
  const hostile = JSON.parse('{"__proto__": "polluted", "a": {"__proto__": {"b": "c"}}}') as Record<string, unknown>;
  t.internValues(hostile);
  assert.equal(({} as Record<string, unknown>).b, undefined);
  assert.equal(Object.getPrototypeOf(hostile), Object.prototype);
  let deep: Record<string, unknown> = { v: 'leaf' };
  for (let i = 0; i < 5000; i++) deep = { d: deep };
  t.internValues(deep);
  // Values compared key by key with the copy the key got last: equal values stay equal, changed ones change, and
  // thousands of distinct property names (any client object's) are fine.
  const wide = new StringInterner();
  const objs = [0, 1, 2].map((n) => Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`key-${i}`, `a value long enough ${i % 7 === 0 ? n : ''}`])));
  const copies = objs.map((o) => ({ ...o }));
  for (const o of objs) wide.internValues(o);
  assert.deepEqual(objs, copies);
});

test('after a restart, Event reads and writes of single keys do not load every key; the load completes them correctly', async () => {
  const db = tmpDb();
  try {
    const s = new SqliteStore({ path: db.path });
    for (let i = 0; i < 500; i++) s.create('core/events', event(`e${String(i).padStart(3, '0')}`, i));
    s.close();
    for (const [j, complete] of (['read', 'writeTimes'] as const).entries()) {
      const gone = `e10${j}`;
      const added = `zzz${j}`;
      const r = new SqliteStore({ path: db.path });
      try {
        const loading = () => (r as unknown as { cache: { tables: Map<string, { loadFrom?: unknown; items: Map<string, unknown> }> } }).cache.tables.get('core/events')!;
        assert.equal(r.get('core/events', 'default', 'e250')?.count, 250);
        assert.equal(r.get('core/events', 'default', 'nope'), undefined);
        const e400 = r.get('core/events', 'default', 'e400')!;
        r.update('core/events', { ...e400, count: 401 });
        r.delete('core/events', 'default', gone);
        r.create('core/events', event(added, 9));
        await r.committed();
        assert.ok(loading().loadFrom, 'still loading');
        assert.ok(loading().items.size < 10, 'only the keys touched are in memory');
        await r.warm();
        assert.ok(loading().loadFrom, 'warm() leaves the Event keys to their readers');
        if (complete === 'writeTimes') {
          const wt = r.writeTimes('core/events');
          assert.equal(wt.revs.length, 500);
          assert.ok(wt.revs.every((rv, i) => i === 0 || wt.revs[i - 1] < rv), 'in revision order');
          assert.equal(r.keyAt('core/events', wt.revs[wt.revs.length - 1])?.name, added, 'the newest write is the event created last');
          assert.ok(loading().loadFrom, 'the write-time pass reads revisions only: the keys still load with their first reader');
        }
        const names = r.list('core/events').map((e) => e.metadata.name);
        assert.equal(names.length, 500);
        assert.ok(!names.includes(gone) && names.includes(added) && names.includes('e499'));
        assert.equal(r.get('core/events', 'default', 'e400')?.count, 401);
        assert.equal(r.get('core/events', 'default', gone), undefined);
        assert.equal(r.count('core/events'), 500);
      } finally {
        r.close();
      }
    }
  } finally {
    db.done();
  }
});
