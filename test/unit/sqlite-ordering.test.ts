// Ordering (issue 14 part 7): a watcher never sees a write that is not durable yet. Every change a hub listener
// or an HTTP watch receives must already be readable by a second, read-only connection on the database file
// (WAL mode: that connection sees committed transactions only), group commit included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { startBonsai, databasePath } from '../../src/main.js';
import { client, openWatch } from '../api/http.js';
import type { KObject } from '../../src/machinery/types.js';

function tmpDir(): { dir: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'bonsai-order-'));
  return { dir, done: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A second connection: does the change log hold revision `rv` of this key, committed? */
function durable(path: string): { has: (rv: number, name: string) => boolean; close: () => void } {
  const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  const stmt = db.prepare('SELECT name FROM changes WHERE rv = ?').pluck();
  return { has: (rv, name) => stmt.get(rv) === name, close: () => db.close() };
}

const cm = (name: string, v: string): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v } });

test('hub listeners see only committed writes, batch after batch', async () => {
  const { dir, done } = tmpDir();
  const path = join(dir, 'bonsai.db');
  const store = new SqliteStore({ path });
  const peek = durable(path);
  try {
    const seen: number[] = [];
    const early: string[] = [];
    const check = (c: { rv: number; object: KObject }) => {
      seen.push(c.rv);
      if (!peek.has(c.rv, c.object.metadata.name ?? '')) early.push(`${c.object.metadata.name}@${c.rv}`);
    };
    store.hub.subscribe('core/configmaps', check);
    store.hub.subscribe('*', check);
    store.hub.subscribe('core/events', check);
    for (let round = 0; round < 5; round++) {
      // Several writes to one group commit, the last one a delete.
      for (let i = 0; i < 20; i++) store.create('core/configmaps', cm(`c${round}-${i}`, 'a'));
      const cur = store.get('core/configmaps', 'default', `c${round}-3`)!;
      store.update('core/configmaps', { ...cur, data: { v: 'b' } });
      store.create('core/events', { apiVersion: 'v1', kind: 'Event', metadata: { name: `e${round}`, namespace: 'default' } });
      store.delete('core/configmaps', 'default', `c${round}-0`);
      assert.equal(seen.length, 0 + round * 2 * 23, 'nothing is published before the commit');
      await store.committed();
    }
    assert.equal(seen.length, 5 * 2 * 23);
    assert.deepEqual(early, []);
  } finally {
    peek.close();
    store.close();
    done();
  }
});

test('an HTTP watch and the registry\'s listeners see writes made over HTTP only once durable', async () => {
  const { dir, done } = tmpDir();
  const b = await startBonsai({ port: 0, data: dir, logLevel: 'silent', cluster: { nodes: 0 }, addons: [], controllers: [], compactEveryMs: 0 });
  const peek = durable(databasePath(dir));
  try {
    const req = client(() => b.url, () => b.credentials.token);
    const early: string[] = [];
    let heard = 0;
    const stop = b.store.hub.subscribe('core/configmaps', (c) => {
      heard++;
      if (!peek.has(c.rv, c.object.metadata.name ?? '')) early.push(`hub ${c.object.metadata.name}@${c.rv}`);
    });
    const w = await openWatch(`${b.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${b.store.revision()}`, { authorization: `Bearer ${b.credentials.token}` });
    const checked = new Set<number>();
    const onEvents = () => {
      for (const e of w.events) {
        const rv = Number(e.object?.metadata?.resourceVersion);
        if (checked.has(rv)) continue;
        checked.add(rv);
        if (!peek.has(rv, e.object.metadata.name)) early.push(`watch ${e.object.metadata.name}@${rv}`);
      }
      return false;
    };
    // 16 concurrent writers: their writes share group commits.
    const names = Array.from({ length: 48 }, (_, i) => `h${i}`);
    const writes = names.map(async (name) => {
      const r = await req('POST', '/api/v1/namespaces/default/configmaps', cm(name, 'x'));
      assert.equal(r.status, 201, r.text);
      onEvents();
    });
    await Promise.all(writes);
    await w.waitFor((evs) => (onEvents(), evs.length >= names.length), 10_000, 'every ADDED');
    const patched = await req('PATCH', '/api/v1/namespaces/default/configmaps/h1', { data: { v: 'y' } }, { contentType: 'application/merge-patch+json' });
    assert.equal(patched.status, 200, patched.text);
    await w.waitFor((evs) => (onEvents(), evs.length >= names.length + 1), 10_000, 'the MODIFIED');
    w.close();
    stop();
    assert.equal(heard, names.length + 1);
    assert.equal(checked.size, names.length + 1);
    assert.deepEqual(early, []);
  } finally {
    peek.close();
    await b.close();
    done();
  }
});
