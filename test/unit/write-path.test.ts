// The write path without redundant copies: JSON copies and comparisons (depth-bounded, hostile keys kept as own
// keys), and the update pipeline's guarantees: a caller's object is never changed, a stored object is never
// changed, no-op updates do not write, status writes carry the stored spec over by reference and still validate
// the status and the metadata.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ManualClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { copyJson, jsonEqual, jsonEqualExcept, JsonTooDeep } from '../../src/util/json-tree.js';
import { ApiError } from '../../src/machinery/errors.js';
import type { KObject } from '../../src/machinery/types.js';

function nest(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
}

test('copyJson copies deeply, keeps __proto__ as an own key and refuses what nests too deep', () => {
  const src = JSON.parse('{"a":{"b":[1,{"c":null}]},"__proto__":{"polluted":true},"d":"x"}') as Record<string, unknown>;
  const c = copyJson(src, 10);
  assert.deepEqual(JSON.stringify(c), JSON.stringify(src));
  assert.notEqual(c.a, src.a);
  assert.equal(Object.getPrototypeOf(c), Object.prototype);
  assert.ok(Object.hasOwn(c, '__proto__'));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(JSON.stringify(copyJson({ t: new Date(Date.UTC(2026, 0, 1)) }, 5)), '{"t":"2026-01-01T00:00:00.000Z"}');
  assert.doesNotThrow(() => copyJson(nest(10), 10));
  assert.throws(() => copyJson(nest(11), 10), JsonTooDeep);
  assert.doesNotThrow(() => copyJson(nest(1000), 1000));
});

test('jsonEqual compares as JSON does, up to key order, and stops at its depth limit', () => {
  assert.ok(jsonEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }, 10));
  assert.ok(jsonEqual({ a: 1, u: undefined }, { a: 1 }, 10));
  assert.ok(jsonEqual([undefined], [null], 10));
  assert.ok(!jsonEqual({ a: 1 }, { a: 2 }, 10));
  assert.ok(!jsonEqual({ a: [] }, { a: {} }, 10));
  assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: null }, 10));
  assert.ok(!jsonEqual({ a: '1' }, { a: 1 }, 10));
  const deep = nest(50);
  assert.ok(jsonEqual(deep, deep, 10), 'a shared subtree is equal at once');
  assert.ok(!jsonEqual(nest(50), nest(50), 10), 'past the limit counts as different');
  assert.ok(jsonEqual(nest(50), nest(50), 100));
  assert.ok(jsonEqualExcept({ spec: 1, metadata: { a: 1 }, status: 2 }, { spec: 1, metadata: { a: 2 } }, new Set(['metadata', 'status']), 10));
  assert.ok(!jsonEqualExcept({ spec: 1 }, { spec: 2 }, new Set(['metadata', 'status']), 10));
});

function setup(): { reg: Registry; close: () => void } {
  const store = new SqliteStore({ path: ':memory:' });
  const reg = new Registry(store, allResources, new ManualClock(Date.UTC(2026, 0, 1)), createLogger('silent'));
  bootstrap(reg);
  return { reg, close: () => store.close() };
}

const pod = (name: string): KObject => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'x' } },
  spec: { schedulerName: 'none', containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m' } } }] },
});

test('a status write keeps the stored spec by reference, copies the status it is given and changes nothing it was given', async () => {
  const { reg, close } = setup();
  try {
    const def = reg.find('', 'v1', 'pods')!;
    const created = await reg.create(def, 'default', pod('a'));
    const storedText = JSON.stringify(created);
    const status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    const statusText = JSON.stringify(status);
    const written = await reg.update(def, 'default', 'a', (cur) => ({ ...cur, status }), { subresource: 'status' });
    assert.equal(written.spec, created.spec, 'the spec is carried over, not copied');
    assert.notEqual(written.status, status, 'the status is a copy');
    assert.equal(JSON.stringify(status), statusText, 'the caller\'s status is unchanged');
    assert.equal(JSON.stringify(created), storedText, 'the previous stored object is unchanged');
    assert.equal(Number(written.metadata.resourceVersion), Number(created.metadata.resourceVersion) + 1);
    // A change to the spec through the status is dropped, and the stored spec is not touched by the mutation.
    const again = await reg.update(def, 'default', 'a', (cur) => {
      (cur.spec as { containers: { image: string }[] }).containers[0].image = 'changed';
      return cur;
    }, { subresource: 'status' });
    assert.equal(again, written, 'nothing changed: the current object, no write');
    assert.equal((written.spec as { containers: { image: string }[] }).containers[0].image, 'nginx');
    // The status and the metadata are still validated.
    await assert.rejects(async () => reg.update(def, 'default', 'a', (cur) => ({ ...cur, status: { conditions: [{ type: 'not a/valid/type', status: 'True' }] } }), { subresource: 'status' }),
      (e: unknown) => e instanceof ApiError && e.code === 422 && /status\.conditions\[0\]\.type/.test(e.message));
    await assert.rejects(async () => reg.update(def, 'default', 'a', (cur) => ({ ...cur, status: nest(1200) as Record<string, unknown> }), { subresource: 'status' }),
      (e: unknown) => e instanceof ApiError && e.code === 400);
  } finally {
    close();
  }
});

test('updates copy the caller\'s object, skip no-op writes and still refuse spec changes a pod does not allow', async () => {
  const { reg, close } = setup();
  try {
    const def = reg.find('', 'v1', 'pods')!;
    const created = await reg.create(def, 'default', pod('b'));
    const storedText = JSON.stringify(created);
    assert.equal(await reg.update(def, 'default', 'b', (cur) => cur), created, 'a no-op update returns the current object');
    // Key order alone is no change.
    assert.equal(await reg.update(def, 'default', 'b', (cur) => ({ spec: cur.spec, metadata: cur.metadata, kind: cur.kind, apiVersion: cur.apiVersion, status: cur.status })), created);
    const mine = structuredClone(created);
    (mine.metadata.labels as Record<string, string>).app = 'y';
    const mineText = JSON.stringify(mine);
    const updated = await reg.update(def, 'default', 'b', () => mine);
    assert.equal(updated.metadata.labels?.app, 'y');
    assert.equal(JSON.stringify(mine), mineText, 'the caller\'s object is unchanged');
    assert.notEqual(updated.metadata.labels, mine.metadata.labels);
    assert.equal(JSON.stringify(created), storedText, 'the previous stored object is unchanged');
    // An image change is allowed; any other container field is not.
    const imaged = await reg.update(def, 'default', 'b', (cur) => {
      (cur.spec as { containers: { image: string }[] }).containers[0].image = 'nginx:2';
      return cur;
    });
    assert.equal((imaged.spec as { containers: { image: string }[] }).containers[0].image, 'nginx:2');
    await assert.rejects(async () => reg.update(def, 'default', 'b', (cur) => {
      (cur.spec as { containers: { name: string }[] }).containers[0].name = 'other';
      return cur;
    }), (e: unknown) => e instanceof ApiError && e.code === 422 && /pod updates may not change fields other than/.test(e.message));
  } finally {
    close();
  }
});

test('a Deployment\'s generation counts spec changes only', async () => {
  const { reg, close } = setup();
  try {
    const def = reg.find('apps', 'v1', 'deployments')!;
    const d = await reg.create(def, 'default', {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' },
      spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    assert.equal(d.metadata.generation, 1);
    const labelled = await reg.update(def, 'default', 'd', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { x: 'y' } } }));
    assert.equal(labelled.metadata.generation, 1);
    const scaled = await reg.update(def, 'default', 'd', (cur) => ({ ...cur, spec: { ...(cur.spec as object), replicas: 3 } }));
    assert.equal(scaled.metadata.generation, 2);
    const status = await reg.update(def, 'default', 'd', (cur) => ({ ...cur, status: { observedGeneration: 2 } }), { subresource: 'status' });
    assert.equal(status.metadata.generation, 2);
    assert.equal(status.spec, scaled.spec);
  } finally {
    close();
  }
});

test('an update whose mutation gives its object away (owned) stores it without a copy', async () => {
  const { reg, close } = setup();
  try {
    const def = reg.find('', 'v1', 'configmaps')!;
    await reg.create(def, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } });
    const data = { a: '2' };
    const written = await reg.update(def, 'default', 'c', (cur) => ({ ...cur, data }), { owned: true });
    assert.equal(written.data, data, 'not copied');
    const copied = await reg.update(def, 'default', 'c', (cur) => ({ ...cur, data: { a: '3' } }));
    assert.equal((copied.data as Record<string, string>).a, '3');
    await assert.rejects(async () => reg.update(def, 'default', 'c', (cur) => ({ ...cur, data: nest(1200) as Record<string, string> }), { owned: true }),
      (e: unknown) => e instanceof ApiError && e.code === 400);
  } finally {
    close();
  }
});

test('a pure mutation is passed the stored object itself, and the stored objects stay unchanged', async () => {
  const { reg, close } = setup();
  try {
    const def = reg.find('', 'v1', 'pods')!;
    const created = await reg.create(def, 'default', pod('p'));
    const createdText = JSON.stringify(created);
    let seen: KObject | undefined;
    const status = { phase: 'Running' };
    const written = await reg.update(def, 'default', 'p', (cur) => {
      seen = cur;
      return { ...cur, status };
    }, { subresource: 'status', pure: true });
    assert.equal(seen, created, 'no copy of the stored object');
    assert.equal((written.status as { phase: string }).phase, 'Running');
    assert.notEqual(written.status, status, 'the status is still a copy');
    assert.notEqual(written.metadata, created.metadata);
    assert.equal(JSON.stringify(created), createdText, 'the previous stored object is unchanged');
    // A pure non-status update, even one claiming to give its object away, does not write into the stored object.
    const writtenText = JSON.stringify(written);
    const labelled = await reg.update(def, 'default', 'p', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { app: 'y' } } }), { pure: true, owned: true });
    assert.equal(labelled.metadata.labels?.app, 'y');
    assert.equal(JSON.stringify(written), writtenText, 'the stored object is unchanged');
    assert.notEqual(labelled.spec, written.spec, 'a non-status result is a copy');
  } finally {
    close();
  }
});
