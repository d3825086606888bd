// Publishing a CRD version's schema as kube-apiserver does in /openapi/v3 and /openapi/v2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toOpenApiV2, toOpenApiV3, type RawSchema } from '../../src/apiextensions/schema/index.js';

const schema: RawSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['opt', 'port'],
      properties: {
        port: { 'x-kubernetes-int-or-string': true },
        opt: { type: 'string', nullable: true },
        anyOfField: { type: 'string', anyOf: [{ pattern: '^a' }, { pattern: '^b' }] },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } },
        tpl: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
      },
      'x-kubernetes-validations': [{ rule: 'self.port != 0' }],
    },
  },
};
const gvk = { group: 'example.com', version: 'v1', kind: 'Foo' };
type S = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

test('v3 keeps the structural schema, unfolds int-or-string and references ObjectMeta', () => {
  const v3 = toOpenApiV3(schema, gvk) as S;
  assert.deepEqual(v3.properties.metadata.allOf, [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }]);
  assert.equal(v3.properties.apiVersion.type, 'string');
  assert.equal(v3.properties.kind.type, 'string');
  assert.deepEqual(v3['x-kubernetes-group-version-kind'], [{ group: 'example.com', kind: 'Foo', version: 'v1' }]);
  const spec = v3.properties.spec;
  assert.deepEqual(spec.properties.port.anyOf, [{ type: 'integer' }, { type: 'string' }]);
  assert.equal(spec.properties.opt.nullable, true);
  assert.equal(spec.properties.anyOfField.anyOf.length, 2);
  assert.deepEqual(spec['x-kubernetes-validations'], [{ rule: 'self.port != 0' }]);
  assert.deepEqual(spec.properties.tpl.required, ['kind', 'apiVersion']);
  assert.ok(spec.properties.tpl.properties.metadata.allOf);
  assert.equal((schema.properties as S).spec.properties.tpl.properties.metadata, undefined, 'the input is not modified');
});

test('v2 drops what swagger 2.0 cannot say', () => {
  const v2 = toOpenApiV2(schema, gvk) as S;
  assert.equal(v2.properties.metadata.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  const spec = v2.properties.spec;
  assert.equal(spec.properties.port.anyOf, undefined);
  assert.equal(spec.properties.port.type, undefined);
  assert.deepEqual(spec.properties.opt, {});
  assert.deepEqual(spec.required, ['port']);
  assert.equal(spec.properties.anyOfField.anyOf, undefined);
  assert.deepEqual(spec.properties.free, { 'x-kubernetes-preserve-unknown-fields': true });
  assert.deepEqual(toOpenApiV2({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, gvk), { type: 'object', 'x-kubernetes-group-version-kind': [gvk].map(({ group, kind, version }) => ({ group, kind, version })) });
});
