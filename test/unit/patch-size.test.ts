// What patch engines let objects grow into (issue 22): the JSON patch copy budget (evanphx/json-patch's
// AccumulatedCopySizeLimit as kube-apiserver sets it, 3 MiB), copies that share their value yet behave as copies,
// the encoded size the budget counts, and long lists in strategic merge patches and server-side apply.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/machinery/errors.js';
import type { KObject } from '../../src/machinery/types.js';
import { applyJsonPatch, applyServerSideApply, applyStrategicMergePatch } from '../../src/api/patch/index.js';
import { maxCopyBytes } from '../../src/api/patch/json-patch.js';
import { jsonSizeUpTo } from '../../src/api/patch/size.js';
import { builtValueCopies, doublingCopies } from '../helpers/hostile-patch-size.js';

const POD = { group: '', version: 'v1', kind: 'Pod' };
const CM = { group: '', version: 'v1', kind: 'ConfigMap' };
const refused = (e: unknown) => e instanceof ApiError && e.code === 422 && e.reason === 'Invalid' && e.message === 'the server rejected our request due to an error in our request';

test('the copy budget is 3 MiB, kube-apiserver\'s JSONPatchMaxCopyBytes', () => {
  assert.equal(maxCopyBytes, 3 * 1024 * 1024);
});

test('copies that double a value are refused once they add more than the budget', () => {
  assert.throws(() => applyJsonPatch({ metadata: {} }, doublingCopies()), refused);
  assert.throws(() => applyJsonPatch({ metadata: {} }, builtValueCopies()), refused);
  // Ten doublings stay far below the budget.
  const out = applyJsonPatch({ metadata: {} }, doublingCopies(10)) as { x: Record<string, unknown> };
  assert.equal(Object.keys(out.x).length, 11);
});

test('the budget counts the encoded size of each copy, as encoding/json writes it', () => {
  const half = maxCopyBytes / 2;
  // Two copies of a string that encodes to exactly half the budget fit; one byte more does not.
  const exact = 'a'.repeat(half - 2);
  const twice = (s: string) => [{ op: 'add', path: '/s', value: s }, { op: 'copy', from: '/s', path: '/a' }, { op: 'copy', from: '/s', path: '/b' }];
  assert.doesNotThrow(() => applyJsonPatch({}, twice(exact)));
  assert.throws(() => applyJsonPatch({}, twice(`${exact}a`)), refused);
  // `<` is six bytes to Go (\u003c): a third as many of them already fill the budget.
  assert.throws(() => applyJsonPatch({}, twice('<'.repeat(Math.ceil(half / 6)))), refused);
  assert.equal(jsonSizeUpTo({ a: [1, 'x<', null, true] }, 100), '{"a":[1,"x\\u003c",null,true]}'.length);
  assert.equal(jsonSizeUpTo({ a: [1, 'x<', null, true] }, 100, 'js'), JSON.stringify({ a: [1, 'x<', null, true] }).length);
  assert.equal(jsonSizeUpTo('é\n', 100), 6);
  // Counting stops past the bound.
  assert.ok(jsonSizeUpTo(Array(1_000_000).fill(0), 10) > 10);
});

test('copied values are shared inside the patch but behave as independent copies', () => {
  const doc = { a: { b: { c: 1 } }, l: [1, 2] };
  const out = applyJsonPatch(doc, [
    { op: 'copy', from: '/a', path: '/x' },
    { op: 'add', path: '/x/b/d', value: 2 },
    { op: 'copy', from: '/a', path: '/a/self' },
    { op: 'replace', path: '/a/self/b/c', value: 9 },
    { op: 'copy', from: '/l', path: '/l/-' },
    { op: 'add', path: '/l/2/0', value: 0 },
    { op: 'move', from: '/x', path: '/y' },
    { op: 'remove', path: '/y/b/c' },
  ]) as Record<string, unknown>;
  assert.deepEqual(out, { a: { b: { c: 1 }, self: { b: { c: 9 } } }, l: [1, 2, [0, 1, 2]], y: { b: { d: 2 } } });
  // The input is untouched and the result shares nothing with it or with itself.
  assert.deepEqual(doc, { a: { b: { c: 1 } }, l: [1, 2] });
  const a = out.a as { b: unknown; self: { b: unknown } };
  assert.notEqual(a.b, a.self.b);
  assert.notEqual(a.b, doc.a.b);
});

test('strategic merge patches with long lists merge, order and delete items in one pass', () => {
  const n = 20_000;
  const env = Array.from({ length: n }, (_, i) => ({ name: `E${i}`, value: `${i}` }));
  const pod = (e: unknown[]): KObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', env: e }] } });
  const envOf = (o: KObject) => ((o.spec as { containers: { env: { name: string; value: string }[] }[] }).containers[0].env);
  // The second half merges into the first (duplicates in the patch merge into one item); order follows the patch.
  const merged = applyStrategicMergePatch(pod(env.slice(0, n / 2)), { spec: { containers: [{ name: 'c', env: [...env.slice(n / 2), ...env.map((e) => ({ ...e, value: 'w' }))] }] } }, POD);
  assert.equal(envOf(merged).length, n);
  assert.ok(envOf(merged).every((e) => e.value === 'w'));
  const reordered = applyStrategicMergePatch(pod(env), { spec: { containers: [{ name: 'c', '$setElementOrder/env': [...env].reverse().map((e) => ({ name: e.name })) }] } }, POD);
  assert.equal(envOf(reordered)[0].name, `E${n - 1}`);
  const deleted = applyStrategicMergePatch(pod(env), { spec: { containers: [{ name: 'c', env: env.slice(1).map((e) => ({ name: e.name, $patch: 'delete' })) }] } }, POD);
  assert.deepEqual(envOf(deleted), [env[0]]);
  const names = Array.from({ length: n }, (_, i) => `example.com/f${i}`);
  const fin = applyStrategicMergePatch({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', finalizers: names.slice(0, 10) } }, { metadata: { finalizers: names.slice(5) } }, CM);
  assert.deepEqual(fin.metadata.finalizers, names);
});

test('server-side apply prunes many items of a long list at once, keeping the others in order', () => {
  const n = 4_000;
  const env = Array.from({ length: n }, (_, i) => ({ name: `E${i}`, value: 'v' }));
  const cfg = (e: unknown[]): KObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', env: e }] } });
  const opts = (fieldManager: string, force = false) => ({ fieldManager, force, now: '2026-01-01T00:00:00Z' });
  const live = applyServerSideApply(undefined, cfg(env), POD, opts('a'));
  // Another manager takes every other item; then `a` drops all items but the first: only b's items are kept.
  const b = env.filter((_, i) => i % 2 === 1).map((e) => ({ ...e, value: 'w' }));
  const shared = applyServerSideApply(live, cfg(b), POD, opts('b', true));
  const pruned = applyServerSideApply(shared, cfg(env.slice(0, 1)), POD, opts('a'));
  const names = ((pruned.spec as { containers: { env: { name: string }[] }[] }).containers[0].env).map((e) => e.name);
  assert.deepEqual(names, ['E0', ...b.map((e) => e.name)]);
});
