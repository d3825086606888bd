import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InternQueue } from '../../src/storage/intern-queue.js';
import { SqliteStore } from '../../src/storage/sqlite-store.js';

test('intern queue: only objects still current are interned, later, in order', () => {
  const done: object[] = [];
  const q = new InternQueue((o) => done.push(o));
  const a = {}, b = {}, c = {};
  let bCurrent = true;
  q.add(a, () => true);
  q.add(b, () => bCurrent);
  q.add(c, () => true);
  assert.deepEqual(done, [], 'nothing is interned on the write itself');
  assert.equal(q.size(), 3);
  bCurrent = false; // replaced before its turn: skipped
  q.drainAll();
  assert.deepEqual(done, [a, c]);
  assert.equal(q.size(), 0);
  q.clear();
});

test('intern queue: bounded; a full queue interns the new object at once', () => {
  const done: object[] = [];
  const q = new InternQueue((o) => done.push(o), 2);
  const objs = [{}, {}, {}, {}];
  for (const o of objs) q.add(o, () => true);
  assert.equal(q.size(), 2);
  assert.deepEqual(done, [objs[2], objs[3]]);
  q.clear();
  assert.equal(q.size(), 0);
});

test('intern queue: slices run in spare time until the queue is empty', async () => {
  const done: object[] = [];
  const q = new InternQueue((o) => done.push(o));
  for (let i = 0; i < 5000; i++) q.add({ i }, () => true);
  const deadline = Date.now() + 10_000;
  while (q.size() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  assert.equal(q.size(), 0);
  assert.equal(done.length, 5000);
});

test('sqlite store: a written hot object is interned later and still reads the same', () => {
  const s = new SqliteStore({ path: ':memory:' });
  try {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    const created = s.create('core/pods', pod);
    assert.equal(s.interning.size(), 1);
    const replaced = s.update('core/pods', { ...created, metadata: { ...created.metadata, labels: { app: 'y' } } });
    assert.equal(s.interning.size(), 2);
    s.interning.drainAll();
    assert.equal(s.interning.size(), 0);
    assert.deepEqual(s.get('core/pods', 'default', 'p'), replaced);
    assert.equal(s.get('core/pods', 'default', 'p')?.metadata.labels?.app, 'y');
  } finally {
    s.close();
  }
});
