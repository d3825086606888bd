import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyScale, scaleForUpdate, scaleOf, unsetReplicas, validateScaleFields } from '../../src/apiextensions/scale.js';
import { crdFieldSelectors } from '../../src/apiextensions/selectable-fields.js';
import { ApiError } from '../../src/machinery/errors.js';
import type { KObject } from '../../src/machinery/types.js';

const paths = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.hpaPodSelector' };
const obj = (o: Record<string, unknown>): KObject => ({ metadata: { name: 'w', namespace: 'ns', uid: 'u1', resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z' }, ...o }) as KObject;

test('scaleOf reads the three paths', () => {
  const s = scaleOf(obj({ spec: { replicas: 3 }, status: { replicas: 2, hpaPodSelector: 'app=w' } }), paths);
  assert.deepEqual(s, {
    kind: 'Scale', apiVersion: 'autoscaling/v1',
    metadata: { name: 'w', namespace: 'ns', uid: 'u1', resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: { replicas: 3 }, status: { replicas: 2, selector: 'app=w' },
  });
  assert.deepEqual(scaleOf(obj({ spec: { replicas: 1 } }), paths).status, { replicas: 0 });
});

test('scale errors carry upstream texts', () => {
  const err = (f: () => unknown): ApiError => {
    try {
      f();
    } catch (e) {
      if (e instanceof ApiError) return e;
      throw e;
    }
    throw new Error('no error');
  };
  const missing = err(() => scaleOf(obj({ spec: {} }), paths));
  assert.equal(missing.code, 500);
  assert.equal(missing.message, 'Internal error occurred: the spec replicas field ".spec.replicas" does not exist');
  assert.equal(err(() => scaleOf(obj({ spec: { replicas: 'x' } }), paths)).message, 'Internal error occurred: .spec.replicas accessor error: x is of the type string, expected int64');
  assert.equal(err(() => scaleOf(obj({ spec: 'flat' }), paths)).message, 'Internal error occurred: .spec.replicas accessor error: flat is of the type string, expected map[string]interface{}');
  const empty = err(() => applyScale(obj({ spec: {} }), unsetReplicas, paths));
  assert.equal(empty.code, 400);
  assert.equal(empty.message, 'the spec replicas field ".spec.replicas" cannot be empty');
  assert.equal(err(() => applyScale(obj({ spec: 3 }), 1, paths)).message, 'Internal error occurred: value cannot be set because .spec is not a map[string]interface{}');
});

test('applyScale writes a copy, creating maps; scaleForUpdate marks missing replicas', () => {
  const o = obj({});
  const next = applyScale(o, 4, paths);
  assert.deepEqual(next.spec, { replicas: 4 });
  assert.equal(o.spec, undefined);
  assert.deepEqual(scaleForUpdate(o, paths).spec, { replicas: unsetReplicas });
  const hostile = applyScale(obj({}), 2, { ...paths, specReplicasPath: '.__proto__.replicas' });
  assert.ok(Object.prototype.hasOwnProperty.call(hostile, '__proto__'));
  assert.equal(({} as Record<string, unknown>).replicas, undefined);
});

test('validateScaleFields', () => {
  assert.deepEqual(validateScaleFields(obj({ spec: { replicas: 1 }, status: { replicas: 1, hpaPodSelector: 's' } }), paths), []);
  assert.deepEqual(validateScaleFields(obj({ spec: { replicas: -1 }, status: { replicas: 2 ** 31, hpaPodSelector: 5 } }), paths).map((e) => `${e.field}: ${e.message}`), [
    '.spec.replicas: Invalid value: -1: should be a non-negative integer',
    '.status.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647',
    '.status.hpaPodSelector: Invalid value: "": .status.hpaPodSelector accessor error: 5 is of the type int64, expected string',
  ]);
});

test('field selectors: metadata and selectable fields', () => {
  const crd = { spec: { versions: [{ name: 'v1', selectableFields: [{ jsonPath: '.spec.color' }, { jsonPath: '.spec.size' }, { jsonPath: '.status.on' }] }] } };
  const g = crdFieldSelectors(crd, 'v1', true);
  assert.deepEqual(Object.keys(g).sort(), ['metadata.name', 'metadata.namespace', 'spec.color', 'spec.size', 'status.on']);
  const o = obj({ spec: { color: 'red', size: 3 }, status: { on: true } });
  assert.equal(g['spec.color'](o), 'red');
  assert.equal(g['spec.size'](o), '3');
  assert.equal(g['status.on'](o), 'true');
  assert.equal(g['spec.color'](obj({})), '');
  assert.equal(g['metadata.namespace'](o), 'ns');
  const cluster = crdFieldSelectors(crd, 'v1', false);
  assert.equal(Object.prototype.hasOwnProperty.call(cluster, 'metadata.namespace'), false);
  assert.equal('toString' in cluster, false);
});
