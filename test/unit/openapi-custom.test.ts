// Publishing custom resources to the OpenAPI documents: the per group-version v3 document, the merged v2
// document (JSON and protobuf), hashes and ETags following changes, unpublishing, schema lookups for
// server-side apply, and hostile schemas.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { CustomOpenApiStore } from '../../src/openapi/custom-store.js';
import type { CustomResourceSpec } from '../../src/openapi/custom-types.js';
import { listCustomV3Paths, schemaForKind, v2DocumentBytes, v3DocumentBytes, v3DocumentHash } from '../../src/openapi/documents.js';
import { v2ETag, v2ProtobufBytes } from '../../src/openapi/v2-protobuf.js';
import { fieldNode, rootNode, structKind } from '../../src/api/patch/schema.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'fixtures', 'crds');

/** The publication spec of a CRD file (its versions' schemas as they are: the converters are tested elsewhere). */
function specOfCrd(file: string): CustomResourceSpec {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const crd = parse(readFileSync(join(fixtures, file), 'utf8')) as any;
  const s = crd.spec;
  return {
    group: s.group, kind: s.names.kind, listKind: s.names.listKind, plural: s.names.plural, singular: s.names.singular,
    namespaced: s.scope === 'Namespaced', shortNames: s.names.shortNames,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    versions: s.versions.map((v: any) => ({ name: v.name, served: v.served, schema: v.schema?.openAPIV3Schema })),
    subresources: s.versions[0].subresources ?? {},
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const json = (b: Buffer | undefined): Json => JSON.parse(b!.toString('utf8'));
const JOBSET_GV = 'apis/jobset.x-k8s.io/v1alpha2';
const JOBSET = 'io.x-k8s.jobset.v1alpha2.JobSet';

/** Every `$ref` in `v` (iteratively). */
function refs(v: unknown): string[] {
  const out: string[] = [];
  const stack = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x !== 'object' || x === null) continue;
    for (const [k, y] of Object.entries(x)) {
      if (k === '$ref' && typeof y === 'string') out.push(y);
      else stack.push(y);
    }
  }
  return out;
}

/** kubectl's field-validation verifier: the GVK's PATCH operation must list `fieldValidation` as a query parameter. */
function patchSupports(doc: Json, gvk: { group: string; version: string; kind: string }, param: string): boolean {
  for (const item of Object.values(doc.paths) as Json[]) {
    const op = item.patch;
    const g = op?.['x-kubernetes-group-version-kind'];
    if (!g || g.group !== gvk.group || g.version !== gvk.version || g.kind !== gvk.kind) continue;
    return (op.parameters ?? []).some((p: Json) => p.name === param && p.in === 'query');
  }
  return false;
}

/** Minimal protobuf reader: the length-delimited fields `no` of a message. */
function fields(buf: Buffer, no: number): Buffer[] {
  const out: Buffer[] = [];
  let i = 0;
  const varint = () => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = buf[i++];
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 128;
    }
  };
  while (i < buf.length) {
    const key = varint();
    const wire = key & 7;
    const f = Math.floor(key / 8);
    if (wire === 0) varint();
    else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else if (wire === 2) {
      const len = varint();
      if (f === no) out.push(buf.subarray(i, i + len));
      i += len;
    } else throw new Error(`wire type ${wire}`);
  }
  return out;
}
/** Names of the NamedX entries of a gnostic map message (`repeated NamedX additional_properties = 1`, name = 1). */
const names = (m: Buffer | undefined): string[] => (m ? fields(m, 1).map((e) => fields(e, 1)[0].toString('utf8')) : []);

describe('custom resources in the OpenAPI documents', () => {
  const store = new CustomOpenApiStore();
  it('serves a v3 document per group-version, as apiextensions-apiserver builds it', () => {
    const etag0 = v2ETag(store);
    assert.equal(store.publish('jobset.x-k8s.io/jobsets', specOfCrd('jobset.x-k8s.io_jobsets.yaml')), true);
    try {
      assert.ok(listCustomV3Paths(store).includes(JOBSET_GV));
      const doc = json(v3DocumentBytes(store, JOBSET_GV));
      assert.equal(doc.openapi, '3.0.0');
      const schemas = doc.components.schemas;
      const js = schemas[JOBSET];
      assert.deepEqual(js['x-kubernetes-group-version-kind'], [{ group: 'jobset.x-k8s.io', version: 'v1alpha2', kind: 'JobSet' }]);
      assert.equal(js.properties.metadata.$ref, '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
      assert.equal(js.properties.kind.type, 'string');
      assert.ok(js.properties.spec.properties.replicatedJobs);
      const list = schemas['io.x-k8s.jobset.v1alpha2.JobSetList'];
      assert.deepEqual(list['x-kubernetes-group-version-kind'], [{ group: 'jobset.x-k8s.io', version: 'v1alpha2', kind: 'JobSetList' }]);
      assert.equal(list.properties.items.items.$ref, `#/components/schemas/${JOBSET}`);
      for (const r of refs(doc)) assert.ok(schemas[r.replace('#/components/schemas/', '')], `unresolved ${r}`);
      assert.ok(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry']);

      const item = doc.paths['/apis/jobset.x-k8s.io/v1alpha2/namespaces/{namespace}/jobsets/{name}'];
      assert.equal(item.patch.operationId, 'patchJobsetXK8sIoV1alpha2NamespacedJobSet');
      assert.equal(item.patch['x-kubernetes-action'], 'patch');
      assert.deepEqual(item.patch.tags, ['jobsetXK8sIo_v1alpha2']);
      assert.deepEqual(item.parameters.map((p: Json) => p.name), ['name', 'namespace', 'pretty']);
      assert.deepEqual(item.patch.parameters.map((p: Json) => p.name), ['dryRun', 'fieldManager', 'fieldValidation']);
      assert.deepEqual(Object.keys(item.patch.requestBody.content), ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
      assert.equal(item.delete.operationId, 'deleteJobsetXK8sIoV1alpha2NamespacedJobSet');
      assert.equal(item.get.description, 'read the specified JobSet');
      const coll = doc.paths['/apis/jobset.x-k8s.io/v1alpha2/namespaces/{namespace}/jobsets'];
      assert.equal(coll.delete.operationId, 'deleteJobsetXK8sIoV1alpha2CollectionNamespacedJobSet');
      assert.equal(coll.post.description, 'create a JobSet');
      assert.ok(coll.post.parameters.some((p: Json) => p.name === 'fieldValidation'));
      assert.ok(coll.get.parameters.some((p: Json) => p.name === 'watch'));
      assert.equal(doc.paths['/apis/jobset.x-k8s.io/v1alpha2/jobsets'].get.operationId, 'listJobsetXK8sIoV1alpha2JobSetForAllNamespaces');
      const status = doc.paths['/apis/jobset.x-k8s.io/v1alpha2/namespaces/{namespace}/jobsets/{name}/status'];
      assert.equal(status.patch.operationId, 'patchJobsetXK8sIoV1alpha2NamespacedJobSetStatus');
      assert.equal(status.put.description, 'replace status of the specified JobSet');
      assert.equal(doc.paths['/apis/jobset.x-k8s.io/v1alpha2/namespaces/{namespace}/jobsets/{name}/scale'], undefined);
      assert.ok(patchSupports(doc, { group: 'jobset.x-k8s.io', version: 'v1alpha2', kind: 'JobSet' }, 'fieldValidation'));
      assert.ok(patchSupports(doc, { group: 'jobset.x-k8s.io', version: 'v1alpha2', kind: 'JobSet' }, 'dryRun'));

      // v2: the merged document gains the definitions and paths, without v3-only keywords.
      const v2 = json(v2DocumentBytes(store));
      assert.equal(v2.swagger, '2.0');
      assert.ok(v2.definitions['io.k8s.api.core.v1.ConfigMap']);
      const d2 = v2.definitions[JOBSET];
      assert.equal(d2.properties.metadata.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
      const text = JSON.stringify(d2);
      for (const k of ['"nullable"', '"x-kubernetes-validations"', '"anyOf"', '"oneOf"', '"allOf"']) assert.ok(!text.includes(k), k);
      const p2 = v2.paths['/apis/jobset.x-k8s.io/v1alpha2/namespaces/{namespace}/jobsets/{name}'];
      assert.equal(p2.patch.parameters[0].in, 'body');
      assert.ok(p2.patch.parameters.some((p: Json) => p.name === 'fieldValidation' && p.type === 'string'));
      assert.ok(v2.paths['/api/v1/namespaces/{namespace}/configmaps/{name}']);
      const etag1 = v2ETag(store);
      assert.notEqual(etag1, etag0);
      assert.match(etag1, /^"[0-9A-F]{128}"$/);

      const pb = v2ProtobufBytes(store);
      const defs = names(fields(pb, 9)[0]);
      assert.ok(defs.includes(JOBSET) && defs.includes('io.k8s.api.core.v1.ConfigMap'));
      assert.ok(fields(fields(pb, 8)[0], 2).map((e) => fields(e, 1)[0].toString('utf8')).includes('/apis/jobset.x-k8s.io/v1alpha2/namespaces/{namespace}/jobsets/{name}/status'));
    } finally {
      store.unpublish('jobset.x-k8s.io/jobsets');
    }
    assert.ok(!listCustomV3Paths(store).includes(JOBSET_GV));
    assert.equal(v3DocumentBytes(store, JOBSET_GV), undefined);
    assert.equal(v2ETag(store), etag0);
    const back = json(v2DocumentBytes(store));
    assert.equal(back.definitions[JOBSET], undefined);
    assert.ok(!names(fields(v2ProtobufBytes(store), 9)[0]).includes(JOBSET));
  });

  it('changes hashes with content, shares one document per group-version, and builds lazily', () => {
    const base = specOfCrd('keda.sh_scaledobjects.yaml');
    const gv = `apis/keda.sh/${base.versions[0].name}`;
    store.publish('keda.sh/scaledobjects', base);
    store.publish('keda.sh/scaledjobs', specOfCrd('keda.sh_scaledjobs.yaml'));
    try {
      const h1 = v3DocumentHash(store, gv);
      assert.match(h1 ?? '', /^[0-9A-F]{128}$/);
      const doc = json(v3DocumentBytes(store, gv));
      assert.ok(doc.components.schemas['sh.keda.v1alpha1.ScaledObject']);
      assert.ok(doc.components.schemas['sh.keda.v1alpha1.ScaledJob']);
      assert.equal(v3DocumentHash(store, gv), h1);
      const changed = structuredClone(base);
      (changed.versions[0].schema as Json).description = 'changed';
      store.publish('keda.sh/scaledobjects', changed);
      const h2 = v3DocumentHash(store, gv);
      assert.notEqual(h2, h1);
      assert.equal(json(v3DocumentBytes(store, gv)).components.schemas['sh.keda.v1alpha1.ScaledObject'].description, 'changed');
      // Mutating the caller's object after publishing changes nothing.
      (changed.versions[0].schema as Json).description = 'mutated later';
      assert.equal(v3DocumentHash(store, gv), h2);
    } finally {
      store.unpublish('keda.sh/scaledobjects');
      store.unpublish('keda.sh/scaledjobs');
    }
    assert.equal(v3DocumentHash(store, gv), undefined);
  });

  it('publishes cluster-scoped kinds, scale subresources and embedded resources', () => {
    store.publish('example.com/widgets', {
      group: 'example.com', kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget', namespaced: false,
      versions: [
        { name: 'v1', served: true, schema: { type: 'object', properties: { spec: { type: 'object', properties: {
          template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
          note: { type: 'string', nullable: true },
          items: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
        }, required: ['note'] } } } },
        { name: 'v2', served: false, schema: { type: 'object' } },
      ],
      subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
    });
    try {
      assert.ok(!listCustomV3Paths(store).includes('apis/example.com/v2'));
      const doc = json(v3DocumentBytes(store, 'apis/example.com/v1'));
      assert.equal(doc.paths['/apis/example.com/v1/widgets'].get.operationId, 'listExampleComV1Widget');
      const scale = doc.paths['/apis/example.com/v1/widgets/{name}/scale'];
      assert.equal(scale.get.operationId, 'readExampleComV1WidgetScale');
      assert.equal(scale.get.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/io.k8s.api.autoscaling.v1.Scale');
      assert.deepEqual(scale.patch['x-kubernetes-group-version-kind'], { group: 'example.com', version: 'v1', kind: 'Widget' });
      assert.ok(doc.components.schemas['io.k8s.api.autoscaling.v1.ScaleSpec']);
      assert.deepEqual(doc.paths['/apis/example.com/v1/widgets/{name}'].parameters.map((p: Json) => p.name), ['name', 'pretty']);
      const template = doc.components.schemas['com.example.v1.Widget'].properties.spec.properties.template;
      assert.deepEqual(Object.keys(template.properties).sort(), ['apiVersion', 'kind', 'metadata']);
      assert.deepEqual(template.required, ['kind', 'apiVersion']);
      // v2: nullable untypes the field and leaves `required`; preserve-unknown-fields keeps the embedded object bare.
      const v2 = json(v2DocumentBytes(store)).definitions['com.example.v1.Widget'];
      assert.equal(v2.properties.spec.properties.note.type, undefined);
      assert.equal(v2.properties.spec.required, undefined);
      assert.equal(v2.properties.spec.properties.template.properties, undefined);
      // Server-side apply sees the list type through the shared schema walker; built-in lookups do not see custom kinds.
      const gvk = { group: 'example.com', version: 'v1', kind: 'Widget' };
      assert.equal(schemaForKind(gvk), undefined);
      assert.ok(schemaForKind(gvk, { custom: store }));
      assert.ok(store.schemaForKind(gvk));
      const items = fieldNode(fieldNode(rootNode(gvk, store), 'spec'), 'items');
      assert.deepEqual(structKind(items), { kind: 'list', listType: 'map', keys: ['name'] });
    } finally {
      store.unpublish('example.com/widgets');
    }
    assert.equal(rootNode({ group: 'example.com', version: 'v1', kind: 'Widget' }, store), undefined);
  });

  it('survives hostile schemas and refuses impossible names', () => {
    let deep: Json = { type: 'string' };
    for (let i = 0; i < 20_000; i++) deep = { type: 'object', properties: { a: deep } };
    const props = JSON.parse('{"__proto__": {"type": "string", "nullable": true}, "constructor": {"type": "integer"}}');
    assert.equal(store.publish('evil.example.com/things', {
      group: 'evil.example.com', kind: 'Thing', listKind: 'ThingList', plural: 'things', singular: 'thing', namespaced: true,
      versions: [{ name: 'v1', served: true, schema: { type: 'object', properties: { ...props, deep, __proto__x: { type: 'string' } } } }],
      subresources: {},
    }), true);
    try {
      const doc = json(v3DocumentBytes(store, 'apis/evil.example.com/v1'));
      const thing = doc.components.schemas['com.example.evil.v1.Thing'];
      assert.ok(Object.prototype.hasOwnProperty.call(thing.properties, '__proto__'));
      assert.equal(thing.properties.constructor.type, 'integer');
      assert.equal(({} as Json).type, undefined);
      const v2 = json(v2DocumentBytes(store));
      assert.ok(v2.definitions['com.example.evil.v1.Thing']);
      assert.ok(v2ProtobufBytes(store).length > 0);
    } finally {
      store.unpublish('evil.example.com/things');
    }
    const ok = { group: 'x.example.com', kind: 'X', listKind: 'XList', plural: 'xs', singular: 'x', namespaced: true, versions: [{ name: 'v1', served: true }], subresources: {} };
    assert.equal(store.publish('bad', { ...ok, group: 'a/../b' }), false);
    assert.equal(store.publish('bad', { ...ok, kind: 'X"Y' }), false);
    assert.equal(store.publish('bad', { ...ok, versions: [{ name: 'v1/x', served: true }] }), false);
    assert.ok(!listCustomV3Paths(store).some((p) => p.includes('..') || p.includes('x.example.com')));
    // No schema: an open object, with the operations.
    assert.equal(store.publish('x.example.com/xs', ok), true);
    try {
      const doc = json(v3DocumentBytes(store, 'apis/x.example.com/v1'));
      assert.deepEqual(doc.components.schemas['com.example.x.v1.X'], { type: 'object', 'x-kubernetes-group-version-kind': [{ group: 'x.example.com', version: 'v1', kind: 'X' }] });
    } finally {
      store.unpublish('x.example.com/xs');
    }
  });
});
