// The pieces that make deep and hostile request bodies safe, one by one: every patch engine at the JSON
// decoder's 10,000 levels, the trampoline's own bound, decoders' limits, Go-style quoting, linear quantity
// parsing, and keys named like Object members kept as ordinary keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/machinery/errors.js';
import { applyJsonPatch, applyMergePatch, applyServerSideApply, applyStrategicMergePatch } from '../../src/api/patch/index.js';
import { goString } from '../../src/api/patch/util.js';
import { FieldSet } from '../../src/api/patch/fieldset.js';
import { decodeJson, DecodeError } from '../../src/api/json-body.js';
import { decodeYaml } from '../../src/api/yaml-body.js';
import { cloneJson, jsonDepth, jsonEqual } from '../../src/util/json-tree.js';
import { recurse, runRecursion, type Step } from '../../src/util/trampoline.js';
import { goQuote } from '../../src/machinery/go-quote.js';
import { parseQuantity } from '../../src/machinery/quantity.js';
import type { KObject } from '../../src/machinery/types.js';

const CM = { group: '', version: 'v1', kind: 'ConfigMap' };
const deep = (n: number): Record<string, unknown> => JSON.parse(`${'{"a":'.repeat(n - 1)}{}${'}'.repeat(n - 1)}`) as Record<string, unknown>;
const base = (): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v' } });

test('patch engines apply documents 9,999 levels deep', () => {
  const d = deep(9_999);
  assert.equal(jsonDepth(applyMergePatch(base(), { x: d })), 10_000);
  assert.equal(jsonDepth(applyStrategicMergePatch(base(), { x: d }, CM)), 10_000);
  assert.equal(jsonDepth(applyJsonPatch(base(), [{ op: 'add', path: '/x', value: d }])), 10_000);
  assert.ok(jsonEqual(cloneJson(d), d));
  assert.equal(goString(d).length, 'map[a:'.length * 9_998 + 'map[]'.length + 9_998);
});

test('server-side apply and field sets walk deep configurations without recursing, up to the stored depth', () => {
  const applied = { ...base(), x: deep(900) } as KObject;
  const out = applyServerSideApply(undefined, applied, CM, { fieldManager: 'm', force: false, now: '2026-01-01T00:00:00Z' });
  assert.equal(jsonDepth(out.x), 900);
  const again = applyServerSideApply(out, { ...applied, x: deep(950) } as KObject, CM, { fieldManager: 'm', force: false, now: '2026-01-01T00:00:01Z' });
  assert.equal(jsonDepth(again.x), 950);
  const set = FieldSet.fromFieldsV1(JSON.parse(`${'{"f:a":'.repeat(5_000)}{}${'}'.repeat(5_000)}`));
  assert.equal(set.paths().length, 1);
  assert.throws(() => applyServerSideApply(undefined, { ...base(), x: deep(1_100) } as KObject, { group: 'apps', version: 'v1', kind: 'Deployment' }, { fieldManager: 'm', force: false, now: '' }),
    (e) => e instanceof ApiError && e.code === 400);
});

test('the trampoline bounds depth and propagates exceptions through suspended calls', () => {
  function* down(n: number): Step<number> {
    if (n === 0) return 0;
    return 1 + (yield* recurse(down, n - 1));
  }
  assert.equal(runRecursion(down(100_000), 200_000, () => new Error('deep')), 100_000);
  assert.throws(() => runRecursion(down(50), 10, () => new Error('too deep')), /too deep/);
  function* catching(n: number): Step<string> {
    if (n === 0) throw new Error('bottom');
    try {
      return yield* recurse(catching, n - 1);
    } catch (e) {
      if (n === 3) return `caught ${(e as Error).message} at 3`;
      throw e;
    }
  }
  assert.equal(runRecursion(catching(10), 100, () => new Error('deep')), 'caught bottom at 3');
});

test('decoders refuse what upstream refuses, with its words', () => {
  assert.equal(jsonDepth(decodeJson(`${'['.repeat(10_000)}${']'.repeat(10_000)}`)), 10_000);
  assert.throws(() => decodeJson(`${'['.repeat(10_001)}${']'.repeat(10_001)}`), (e) => e instanceof DecodeError && e.message === "invalid character '[' exceeded max depth");
  assert.throws(() => decodeJson('{"a":[1,-2e400]}'), /json: cannot unmarshal number -2e400 into Go value of type float64/);
  assert.throws(() => decodeYaml(`x: ${'['.repeat(301)}${']'.repeat(301)}`), /yaml: line 1: exceeded max depth of 300/);
  assert.throws(() => decodeYaml('a: &a [*a]'), /anchor value contains itself/);
  assert.throws(() => decodeYaml('a: .nan'), /json: unsupported value: NaN/);
  const v = decodeYaml('__proto__: {x: 1}\nconstructor: 2\n') as Record<string, unknown>;
  assert.deepEqual(Object.keys(v), ['__proto__', 'constructor']);
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

test('keys named like Object members stay ordinary keys in every engine', () => {
  const evil = JSON.parse('{"__proto__":{"finalizers":["pwned"]},"constructor":{"prototype":{"finalizers":["pwned"]}}}') as Record<string, unknown>;
  for (const out of [applyMergePatch(base(), evil), applyStrategicMergePatch(base(), evil, CM), cloneJson(evil)] as Record<string, unknown>[]) {
    assert.equal(Object.prototype.hasOwnProperty.call(out, '__proto__'), true);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
  }
  assert.throws(() => applyJsonPatch(base(), [{ op: 'add', path: '/__proto__/finalizers', value: ['pwned'] }]), (e) => e instanceof ApiError && e.code === 422);
  const added = applyJsonPatch(base(), [{ op: 'add', path: '/metadata/__proto__', value: { finalizers: ['pwned'] } }]) as KObject;
  assert.equal(added.metadata.finalizers, undefined);
  assert.equal(({} as Record<string, unknown>).finalizers, undefined);
});

test('Go quoting and linear-time quantities', () => {
  assert.equal(goQuote('a\u0000b\n"é\u00a0'), '"a\\x00b\\n\\"é\\u00a0"');
  // 200,000 characters: a pattern that backtracked would not finish (the test's timeout says so); no clock read.
  assert.deepEqual(parseQuantity(`${'1'.repeat(200_000)}x`), { error: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'" });
  assert.deepEqual(parseQuantity('1e400'), { error: "unable to parse quantity's numeric part" });
  assert.deepEqual(parseQuantity('0e400'), { value: 0 });
});
