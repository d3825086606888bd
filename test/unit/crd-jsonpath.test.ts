import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileJsonPath, compileTemplate, JsonPathError } from '../../src/apiextensions/jsonpath.js';

const obj = {
  metadata: { name: 'a', labels: { app: 'web', 'x.y/z': 'q' } },
  spec: { replicas: 3, items: [{ name: 'one', n: 1 }, { name: 'two', n: 2 }, { name: 'three', n: 3 }] },
  status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Completed', status: 'False' }] },
};
const first = (path: string, data: unknown = obj) => compileJsonPath(path).find(data)[0];

test('fields, keys, indexes, wildcards and slices', () => {
  assert.deepEqual(first('.spec.replicas'), [3]);
  assert.deepEqual(first('.metadata.labels.app'), ['web']);
  // As upstream, a bracketed key is re-parsed as a dotted field: its dots must be escaped.
  assert.deepEqual(first(".metadata.labels['x.y/z']"), []);
  assert.deepEqual(first(".metadata.labels['x\\.y/z']"), ['q']);
  assert.deepEqual(first('.metadata.labels.x\\.y/z'), ['q']);
  assert.deepEqual(first('.spec.items[0].name'), ['one']);
  assert.deepEqual(first('.spec.items[-1].name'), ['three']);
  assert.deepEqual(first('.spec.items[*].name'), ['one', 'two', 'three']);
  assert.deepEqual(first('.spec.items[0:2].n'), [1, 2]);
  assert.deepEqual(first('.spec.items[0,2].name'), ['one', 'three']);
  assert.deepEqual(first('.spec.items[::2].n'), [1, 3]);
  assert.deepEqual(first('..name'), ['a', 'one', 'two', 'three']);
});

test('filters compare like Go templates', () => {
  assert.deepEqual(first('.status.conditions[?(@.type=="Ready")].status'), ['True']);
  assert.deepEqual(first(".status.conditions[?(@.type!='Ready')].type"), ['Completed']);
  assert.deepEqual(first('.spec.items[?(@.n>1)].name'), ['two', 'three']);
  assert.deepEqual(first('.spec.items[?(@.n)].name'), ['one', 'two', 'three']);
  assert.deepEqual(first('.status.conditions[?(@.missing=="x")].status'), []);
  assert.throws(() => first('.spec.items[?(@.n=="1")].name'), JsonPathError);
  assert.throws(() => first('.spec.items[?(@.n==1.0)].name'), JsonPathError);
});

test('missing keys give no result; wrong shapes and bad indexes are errors', () => {
  assert.deepEqual(first('.status.nothing.deeper'), []);
  assert.deepEqual(first('.spec.replicas.x'), []);
  assert.throws(() => first('.spec.items[7].name'), /array index out of bounds: index 7, length 3/);
  assert.throws(() => first('.spec.replicas[0]'), /is not array or slice/);
  assert.deepEqual(first('.spec.items[*].name', { spec: {} }), []);
});

test('parse errors', () => {
  assert.throws(() => compileJsonPath('.spec.items[0'), /unterminated array/);
  assert.throws(() => compileJsonPath('.spec.items[a]'), /invalid array index a/);
  assert.throws(() => compileTemplate('{.spec'), /unclosed action/);
  assert.throws(() => compileJsonPath('.a[?(@.x=="y"'), /unterminated filter/);
  assert.throws(() => compileTemplate('{.a %}'), /unrecognized character in action: U\+0025 '%'/);
});

test('only own properties are read; __proto__ is an ordinary key', () => {
  assert.deepEqual(first('.constructor'), []);
  assert.deepEqual(first('.spec.toString'), []);
  assert.deepEqual(first('.spec.items.length'), []);
  const hostile = JSON.parse('{"__proto__": {"polluted": "yes"}}') as unknown;
  assert.deepEqual(first('.__proto__.polluted', hostile), ['yes']);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('evaluation is bounded', () => {
  let deep: unknown = { leaf: 1 };
  for (let i = 0; i < 2000; i++) deep = { a: deep };
  assert.throws(() => first('..leaf', deep), JsonPathError);
  const wide = { xs: Array.from({ length: 20_000 }, (_, i) => i) };
  assert.throws(() => first('.xs[*]', wide), /more than 10000 results/);
  assert.throws(() => compileJsonPath('.a'.repeat(3000)), JsonPathError);
});
