// Bodies and patches that do not decode, worded byte for byte as kube-apiserver words them: the create and update
// handlers' transformDecodeError, encoding/json for JSON and merge patches, the unstructured converter for strategic
// merge patches and structured-merge-diff for server-side apply.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertStatus, useBonsai } from './http.js';

const NSS = '/api/v1/namespaces';
const CM = '/api/v1/namespaces/default/configmaps';
const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';
const json = (raw: string) => ({ raw, contentType: 'application/json' });

describe('decoding errors', () => {
  const { req } = useBonsai({ controllers: [] });

  it('words bodies whose kind cannot be read as "the object provided is unrecognized"', async () => {
    const prefix = 'the object provided is unrecognized (must be of type Namespace): ';
    const yaml = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n';
    assertStatus(await req('POST', NSS, undefined, json(yaml)), 400, 'BadRequest',
      `${prefix}couldn't get version/kind; json parse error: invalid character 'a' looking for beginning of value (61706956657273696f6e3a2076310a6b696e643a204e616d657370616365 ...)`);
    assertStatus(await req('POST', NSS, undefined, json('{"apiVersion":"v1","kind":5}')), 400, 'BadRequest',
      `${prefix}couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({"apiVersion":"v1","kind":5})`);
    assertStatus(await req('POST', NSS, undefined, json('{"apiVersion":"v1","kind":"Namespace",')), 400, 'BadRequest',
      `${prefix}couldn't get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":"v1","kind":"Nam ...)`);
    assertStatus(await req('POST', NSS, undefined, json('{"metadata":{"name":"x"} "b"}')), 400, 'BadRequest',
      `${prefix}couldn't get version/kind; json parse error: invalid character '"' after object key:value pair ({"metadata":{"name":"x"} "b"})`);
    assertStatus(await req('POST', NSS, undefined, json('')), 400, 'BadRequest', `${prefix}couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)`);
    assertStatus(await req('POST', NSS, undefined, json('[1]')), 400, 'BadRequest',
      `${prefix}couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b315d)`);
    assertStatus(await req('POST', NSS, { apiVersion: 'a/b/c', kind: 'Namespace' }), 400, 'BadRequest', `${prefix}unexpected GroupVersion string: a/b/c ({"apiVersion":"a/b/c","kind":" ...)`);
  });

  it('words bodies of another kind, and type and strict errors, as "K in version v cannot be handled as T"', async () => {
    assertStatus(await req('POST', NSS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } }), 400, 'BadRequest',
      'Pod in version "v1" cannot be handled as a Namespace: converting (v1.Pod) to (core.Namespace): unknown conversion');
    assertStatus(await req('POST', NSS, { apiVersion: 'v1', kind: 'Namespac', metadata: { name: 'x' } }), 400, 'BadRequest',
      'Namespac in version "v1" cannot be handled as a Namespace: no kind "Namespac" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"');
    assertStatus(await req('POST', NSS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', labels: 'oops' } }), 400, 'BadRequest',
      'Namespace in version "v1" cannot be handled as a Namespace: json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string');
    assertStatus(await req('POST', CM, { metadata: 'x' }), 400, 'BadRequest',
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta');
    assertStatus(await req('POST', `${DEPLOYS}?fieldValidation=Strict`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { foo: 1, replicas: 1 } }), 400, 'BadRequest',
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"');
    const c = await req('POST', CM, { metadata: { name: 'c' }, data: { a: '1' } });
    assertStatus(await req('PUT', `${CM}/c`, { ...c.body, data: { a: 1 } }), 400, 'BadRequest',
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string');
  });

  it('words JSON and merge patch results as encoding/json, in a 422 on the patch', async () => {
    // encoding/json writes a map's keys sorted, the managedFields entries' too.
    const sortedKeys = (e: Record<string, unknown>) => Object.fromEntries(Object.entries(e).sort(([a], [b]) => (a < b ? -1 : 1)));
    const r = await req('PATCH', `${CM}/c`, { metadata: { labels: 'oops' } }, { contentType: 'application/merge-patch+json' });
    const s = assertStatus(r, 422, 'Invalid');
    const cur = (await req('GET', `${CM}/c`)).body;
    const patched = JSON.stringify({ apiVersion: 'v1', data: { a: '1' }, kind: 'ConfigMap', metadata: { creationTimestamp: cur.metadata.creationTimestamp, labels: 'oops', managedFields: (cur.metadata.managedFields as Record<string, unknown>[]).map(sortedKeys), name: 'c', namespace: 'default', resourceVersion: cur.metadata.resourceVersion, uid: cur.metadata.uid } });
    const why = `Invalid value: ${JSON.stringify(patched)}: json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string`;
    assert.equal(s.message, ` "" is invalid: patch: ${why}`);
    assert.deepEqual(s.details, { causes: [{ reason: 'FieldValueInvalid', message: why, field: 'patch' }] });
    const j = await req('PATCH', `${CM}/c`, [{ op: 'add', path: '/data/b', value: true }], { contentType: 'application/json-patch+json' });
    assertStatus(j, 422, 'Invalid', /: json: cannot unmarshal bool into Go struct field ConfigMap\.data of type string$/);
  });

  it('words strategic merge patch results as the unstructured converter', async () => {
    const smp = (patch: unknown, q = '') => req('PATCH', `${CM}/c${q}`, patch, { contentType: 'application/strategic-merge-patch+json' });
    assertStatus(await smp({ metadata: { labels: 'oops' } }), 422, 'Invalid', ' "" is invalid: patch: Invalid value: "map[metadata:map[labels:oops]]": cannot restore map from string');
    assertStatus(await smp({ metadata: ['x'] }), 422, 'Invalid', ' "" is invalid: patch: Invalid value: "map[metadata:[x]]": cannot restore struct from: slice');
    assertStatus(await smp({ data: { a: 5 } }), 422, 'Invalid', ' "" is invalid: patch: Invalid value: "map[data:map[a:5]]": cannot convert int64 to string');
    assertStatus(await smp({ data: { a: true } }), 422, 'Invalid', ' "" is invalid: patch: Invalid value: "map[data:map[a:true]]": unrecognized type: string');
    assertStatus(await smp({ zeta: 1, alpha: { x: 2 } }, '?fieldValidation=Strict'), 422, 'Invalid',
      ' "" is invalid: patch: Invalid value: "map[alpha:map[x:2] zeta:1]": strict decoding error: unknown field "alpha", unknown field "zeta"');
    await req('POST', DEPLOYS, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } });
    const d = await req('PATCH', `${DEPLOYS}/d`, { spec: { replicas: 1.5 } }, { contentType: 'application/strategic-merge-patch+json' });
    assertStatus(d, 422, 'Invalid', ' "" is invalid: patch: Invalid value: "map[spec:map[replicas:1.5]]": cannot convert float64 to int32');
  });

  it('words server-side apply configurations as structured-merge-diff (unknown fields included)', async () => {
    const apply = (body: string, path = `${CM}/c`) => req('PATCH', `${path}?fieldManager=test`, undefined, { raw: body, contentType: 'application/apply-patch+yaml' });
    assertStatus(await apply('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels: oops\n'), 400, 'BadRequest',
      'failed to create typed patch object (/c; /v1, Kind=ConfigMap): .metadata.labels: expected map, got &{oops}');
    assertStatus(await apply('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: 5\nfoo: bar\n'), 400, 'BadRequest',
      'failed to create typed patch object (/c; /v1, Kind=ConfigMap): errors:\n  .data.a: expected string, got &value.valueUnstructured{Value:5}\n  .foo: field not declared in schema');
    const deploy = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: default\nspec:\n  replicas: "2"\n  paused: 1\n  template:\n    spec:\n'
      + '      containers:\n      - name: c\n        ports:\n        - containerPort: 80\n          bogus: 1\n      - name: c\n';
    assertStatus(await apply(deploy, `${DEPLOYS}/d`), 400, 'BadRequest', [
      'failed to create typed patch object (default/d; apps/v1, Kind=Deployment): errors:',
      '.spec.replicas: expected numeric (int or float), got string',
      '.spec.paused: expected boolean, got &{1}',
      '.spec.template.spec.containers[name="c"].ports[containerPort=80,protocol="TCP"].bogus: field not declared in schema',
      '.spec.template.spec.containers: duplicate entries for key [name="c"]',
    ].join('\n  '));
    // A valid configuration still applies (forced: the creator's Update entry owns data.a, as upstream's would).
    const forced = await req('PATCH', `${CM}/c?fieldManager=test&force=true`, undefined, { raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "2"\n', contentType: 'application/apply-patch+yaml' });
    assert.equal(forced.status, 200);
  });
});
