// Structural schemas for CRDs: every fixture CRD passes CRD validation's schema checks and compiles; JobSet and
// LeaderWorkerSet objects prune, default and validate as kube-apiserver does them; error texts match upstream's.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { checkStructural, compileStructural, loadSchemaMachinery, type RawSchema } from '../../src/apiextensions/schema/index.js';

const crdDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'fixtures', 'crds');
type Crd = { metadata: { name: string }; spec: { versions: { name: string; schema: { openAPIV3Schema: RawSchema } }[] } };

function loadCrds(): Crd[] {
  const out: Crd[] = [];
  for (const f of readdirSync(crdDir).filter((x) => x.endsWith('.yaml'))) {
    for (const d of parseAllDocuments(readFileSync(join(crdDir, f), 'utf8'))) {
      const crd = d.toJSON() as { kind?: string } & Crd;
      if (crd?.kind === 'CustomResourceDefinition') out.push(crd);
    }
  }
  return out;
}
const crds = loadCrds();
const schemaOf = (name: string) => crds.find((c) => c.metadata.name === name)!.spec.versions[0].schema.openAPIV3Schema;
const lines = (errs: { field: string; message: string }[]) => errs.map((e) => `${e.field}: ${e.message}`);

before(async () => {
  await loadSchemaMachinery();
});

test('every fixture CRD version passes the structural check and compiles', async () => {
  assert.ok(crds.length >= 13);
  for (const crd of crds) {
    for (const [i, v] of crd.spec.versions.entries()) {
      const errs = await checkStructural(v.schema.openAPIV3Schema, `spec.versions[${i}].schema.openAPIV3Schema`);
      assert.deepEqual(lines(errs), [], `${crd.metadata.name} ${v.name}`);
      const c = await compileStructural(v.schema.openAPIV3Schema);
      assert.equal(typeof c.validate, 'function');
    }
  }
});

test('a JobSet prunes, defaults and validates', async () => {
  const c = await compileStructural(schemaOf('jobsets.jobset.x-k8s.io'));
  const js = {
    apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'js', namespace: 'default', foo: 1 },
    spec: {
      bogus: true,
      failurePolicy: { maxRestarts: 2 },
      replicatedJobs: [{
        name: 'workers',
        template: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', extra: 1, ports: [{ containerPort: 80 }] }] } } } },
      }],
    },
  };
  assert.deepEqual(c.prune(js), ['metadata.foo', 'spec.bogus', 'spec.replicatedJobs[0].template.spec.template.spec.containers[0].extra']);
  c.default(js);
  const rj = js.spec.replicatedJobs[0] as Record<string, unknown>;
  assert.equal(rj.replicas, 1);
  assert.equal(rj.groupName, 'default');
  assert.equal((js.spec.failurePolicy as Record<string, unknown>).restartStrategy, 'Recreate');
  assert.equal((js.spec.replicatedJobs[0].template.spec.template.spec.containers[0].ports[0] as Record<string, unknown>).protocol, 'TCP');
  assert.deepEqual(lines(c.validate(js)), []);
  (rj as { replicas: unknown }).replicas = 'two';
  assert.deepEqual(lines(c.validate(js)), [
    'spec.replicatedJobs[0].replicas: Invalid value: "string": spec.replicatedJobs[0].replicas in body must be of type integer: "string"',
  ]);
});

test('a LeaderWorkerSet defaults its template and keeps the embedded pod template', async () => {
  const c = await compileStructural(schemaOf('leaderworkersets.leaderworkerset.x-k8s.io'));
  const lws = {
    apiVersion: 'leaderworkerset.x-k8s.io/v1', kind: 'LeaderWorkerSet', metadata: { name: 'l' },
    spec: { leaderWorkerTemplate: { workerTemplate: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'w', image: 'nginx' }] } } } },
  };
  assert.deepEqual(c.prune(lws), []);
  c.default(lws);
  const t = lws.spec.leaderWorkerTemplate as Record<string, unknown>;
  assert.equal(t.size, 1);
  assert.equal(t.restartPolicy, 'RecreateGroupOnPodRestart');
  assert.deepEqual((lws.spec.leaderWorkerTemplate.workerTemplate.metadata as Record<string, unknown>).labels, { a: 'b' });
  assert.deepEqual(lines(c.validate(lws)), []);
});

const small: RawSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['x'],
      properties: {
        x: { type: 'string' },
        y: { type: 'string', enum: ['a', 'b'] },
        replicas: { type: 'integer' },
        n: { type: 'integer', maximum: 10, minimum: 1 },
        name: { type: 'string', pattern: '^[a-z]+$', maxLength: 5 },
        list: { type: 'array', maxItems: 5, items: { type: 'string' } },
        nullableList: { type: 'array', items: { type: 'string', nullable: true } },
        when: { type: 'string', format: 'date-time' },
        id: { type: 'string', format: 'uuid' },
        port: { 'x-kubernetes-int-or-string': true },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { a: { type: 'string' } } } } },
        size: { type: 'integer', format: 'int32' },
        maybe: { type: 'string', nullable: true },
        withDefault: { type: 'string', default: 'dflt' },
        nullDefault: { type: 'string', default: 'dflt2' },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        byName: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  },
};

test('validation errors read as upstream renders them', async () => {
  const c = await compileStructural(small);
  const errs = lines(c.validate({ spec: { replicas: 'two', y: 'z', n: 12, name: 'ABC', list: [1, 2, 3, 4, 5, 6].map(String), nullableList: ['a', null], when: 'yesterday', id: 'nope' } }));
  assert.deepEqual(new Set(errs), new Set([
    'spec.x: Required value',
    'spec.y: Unsupported value: "z": supported values: "a", "b"',
    'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    'spec.n: Invalid value: 12: spec.n in body should be less than or equal to 10',
    'spec.name: Invalid value: "ABC": spec.name in body should match \'^[a-z]+$\'',
    'spec.list: Too many: 6: must have at most 5 items',
    'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
    'spec.id: Invalid value: "nope": spec.id in body must be of type uuid: "nope"',
  ]));
  assert.equal(errs.length, 8);
  assert.deepEqual(lines(c.validate({ spec: { x: 'a', name: 'abcdefgh' } })), ['spec.name: Too long: may not be more than 5 bytes']);
  assert.deepEqual(lines(c.validate({ spec: { x: 'a', list: ['a', null] } })), [
    'spec.list[1]: Invalid value: "null": spec.list[1] in body must be of type string: "null"',
  ]);
  assert.deepEqual(lines(c.validate({ spec: { x: 'a', size: 1.5 } })), [
    'spec.size: Invalid value: "float64": spec.size in body must be of type int32: "float64"',
  ]);
  assert.deepEqual(lines(c.validate({ spec: { x: 'a', when: '2024-01-02T03:04:05Z', id: '123e4567-e89b-12d3-a456-426614174000' } })), []);
});

test('nullable, int-or-string, preserve-unknown and defaults of nulls', async () => {
  const c = await compileStructural(small);
  assert.deepEqual(lines(c.validate({ spec: { x: 'a', maybe: null, nullableList: ['a', null] } })), []);
  assert.deepEqual(lines(c.validate({ spec: { x: 'a', port: 80 } })), []);
  assert.deepEqual(lines(c.validate({ spec: { x: 'a', port: 'http' } })), []);
  assert.deepEqual(lines(c.validate({ spec: { x: 'a', port: true } })), [
    'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
  ]);
  const obj = { spec: { x: null as unknown, nullDefault: null, maybe: null, free: { anything: { deep: 1 }, known: { a: 'x', b: 'pruned' } }, unknown: 1 } };
  assert.deepEqual(c.prune(obj), ['spec.free.known.b', 'spec.unknown']);
  c.default(obj);
  assert.deepEqual(obj.spec, { nullDefault: 'dflt2', maybe: null, withDefault: 'dflt', free: { anything: { deep: 1 }, known: { a: 'x' } } });
});

test('list types and embedded resources', async () => {
  const c = await compileStructural(small);
  assert.deepEqual(lines(c.validate({ spec: { x: 'a', byName: [{ name: 'a' }, { name: 'a' }], tags: ['t', 'u', 't'] } })), [
    'spec.byName[1]: Duplicate value: {"name":"a"}',
    'spec.tags[2]: Duplicate value: "t"',
  ]);
  assert.deepEqual(lines(c.validate({ spec: { x: 'a', embedded: { metadata: { name: 'Bad_Name/x' } } } })), [
    'spec.embedded.apiVersion: Required value',
    'spec.embedded.kind: Required value',
    "spec.embedded.metadata.name: Invalid value: \"Bad_Name/x\": may not contain '/'",
  ]);
  const obj = { spec: { x: 'a', embedded: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', junk: 1 }, data: { k: 'v' } } } };
  assert.deepEqual(c.prune(obj), ['spec.embedded.metadata.junk']);
  assert.deepEqual(obj.spec.embedded, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { k: 'v' } });
  assert.deepEqual(lines(c.validate(obj)), []);
});

test('structural check reports upstream texts', async () => {
  const p = 'spec.validation.openAPIV3Schema';
  const errs = lines(await checkStructural({
    type: 'object',
    properties: {
      spec: { properties: { a: { type: 'string' } } },
      metadata: { type: 'object', properties: { labels: { type: 'object' } } },
      list: { type: 'array', items: { type: 'object', properties: { k: { type: 'object' } } }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k', 'missing'] },
      e: { 'x-kubernetes-embedded-resource': true },
      ios: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true },
    },
  }, p));
  for (const want of [
    `${p}.properties[spec].type: Required value: must not be empty for specified object fields`,
    `${p}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    `${p}.properties[e].type: Required value: must be object if x-kubernetes-embedded-resource is true`,
    `${p}.properties[ios].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
    `${p}.properties[list].items.properties[k].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
    `${p}.properties[list].x-kubernetes-list-map-keys: Invalid value: ["k","missing"]: entries must all be names of item properties`,
  ]) assert.ok(errs.includes(want), `missing ${want}\n${errs.join('\n')}`);
  const defaults = lines(await checkStructural({
    type: 'object',
    properties: { spec: { type: 'object', properties: { replicas: { type: 'integer', default: 'one' }, o: { type: 'object', default: { zz: 1 }, properties: { a: { type: 'string' } } } } } },
  }, p));
  // The validator names the default's own root "", so upstream's text has two spaces before "in body".
  assert.deepEqual(defaults, [
    `${p}.properties[spec].properties[replicas].default: Invalid value: "string":  in body must be of type integer: "string"`,
    `${p}.properties[spec].properties[o].default: Invalid value: {"zz":1}: must not have unknown fields`,
  ]);
  // Plain scalar defaults (a type, at most an enum) are judged without a validator; a wrong one still gets its text.
  const plain = lines(await checkStructural({
    type: 'object',
    properties: { spec: { type: 'object', properties: {
      mode: { type: 'string', enum: ['A', 'B'], default: 'C' }, ok: { type: 'string', enum: ['A', 'B'], default: 'A', description: 'd' },
      n: { type: 'integer', default: 1.5 }, b: { type: 'boolean', default: true }, f: { type: 'number', default: 2.5 }, s: { type: 'string', default: 'x' },
    } } },
  }, p));
  assert.deepEqual(plain, [
    `${p}.properties[spec].properties[mode].default: Unsupported value: "C": supported values: "A", "B"`,
    `${p}.properties[spec].properties[n].default: Invalid value: "number":  in body must be of type integer: "number"`,
  ]);
  assert.deepEqual(lines(await checkStructural({ type: 'object', nullable: true, properties: { x: { type: 'string', uniqueItems: true, $ref: '#/x' } } }, p)), [
    `${p}.nullable: Forbidden: nullable cannot be true at the root`,
    `${p}.properties[x].$ref: Forbidden: $ref is not supported`,
    `${p}.properties[x].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
  ]);
});

test('deep and hostile schemas and objects do not crash', async () => {
  let deep: RawSchema = { type: 'string' };
  for (let i = 0; i < 400; i++) deep = { type: 'object', properties: { a: deep } };
  const errs = await checkStructural(deep, 'p');
  assert.ok(errs.some((e) => e.message.includes('must not be nested more than 300 levels deep')));
  const hostile = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string","default":"x"},"constructor":{"type":"integer"}}}') as RawSchema;
  assert.deepEqual(lines(await checkStructural(hostile, 'p')), []);
  const c = await compileStructural(hostile);
  const obj = JSON.parse('{"__proto__":"v","constructor":1,"toString":2}') as Record<string, unknown>;
  assert.deepEqual(c.prune(obj), ['toString']);
  assert.deepEqual(lines(c.validate(obj)), []);
  const empty: Record<string, unknown> = {};
  c.default(empty);
  assert.equal(Object.getPrototypeOf(empty), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(empty, '__proto__')?.value, 'x');
  let value: unknown = 'leaf';
  for (let i = 0; i < 5000; i++) value = { a: value };
  const cd = await compileStructural(deep);
  assert.doesNotThrow(() => cd.prune({ a: value }));
  assert.doesNotThrow(() => cd.validate({ a: value }));
});

