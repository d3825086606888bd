// CustomResourceDefinitions and custom objects over HTTP: CRD validation messages, name conflicts, watch, field
// selectors, deletecollection, patch types, status and scale subresources, finalizers, size limits, Table output and
// discovery, each answered as kube-apiserver answers it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertStatus, openWatch, useBonsai, type Resp } from './http.js';
import { waitDeadline } from '../helpers/wait.js';

type Json = Record<string, any>;

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

const schema = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { color: { type: 'string' }, replicas: { type: 'integer' }, size: { type: 'integer' } } },
    status: { type: 'object', properties: { replicas: { type: 'integer' }, phase: { type: 'string' } } },
  },
};

interface CrdOptions {
  group?: string;
  plural?: string;
  kind?: string;
  names?: Json;
  versions?: Json[];
  version?: Json;
}

function crd(o: CrdOptions = {}): Json {
  const group = o.group ?? 'api.example.com';
  const plural = o.plural ?? 'widgets';
  const kind = o.kind ?? 'Widget';
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${plural}.${group}` },
    spec: {
      group, scope: 'Namespaced',
      names: { plural, singular: plural.replace(/s$/, ''), kind, listKind: `${kind}List`, ...(o.names ?? {}) },
      versions: o.versions ?? [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, ...(o.version ?? {}) }],
    },
  };
}

describe('custom resources over HTTP', () => {
  const { env, req } = useBonsai();

  async function eventually<T>(what: string, f: () => Promise<T | undefined | false>, ms = 5_000): Promise<T> {
    const end = Date.now() + waitDeadline(ms);
    for (;;) {
      const v = await f();
      if (v) return v;
      if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  const condition = (c: Json | undefined, type: string): Json | undefined => c?.status?.conditions?.find((x: Json) => x.type === type);

  /** Creates the CRD and waits until its resource is served. */
  async function established(body: Json): Promise<Json> {
    const r = await req('POST', CRDS, body);
    assert.equal(r.status, 201, r.text.slice(0, 500));
    const { group, names, versions } = body.spec;
    const version = (versions as Json[]).find((v) => v.served)?.name;
    await eventually(`${body.metadata.name} served`, async () => (await req('GET', `/apis/${group}/${version}/namespaces/default/${names.plural}`)).status === 200);
    return (await req('GET', `${CRDS}/${body.metadata.name}`)).body;
  }

  async function deleteCrdAndWait(name: string): Promise<void> {
    const r = await req('DELETE', `${CRDS}/${name}`);
    assert.ok(r.status === 200 || r.status === 404, r.text.slice(0, 300));
    await eventually(`${name} gone`, async () => (await req('GET', `${CRDS}/${name}`)).status === 404);
  }

  const causes = (r: Resp) => (r.body?.details?.causes ?? []).map((c: Json) => `${c.field}: ${c.message}`);

  it('refuses CRDs whose name is not plural.group, or without exactly one storage version', async () => {
    const wrong = crd({ group: 'v.example.com' });
    wrong.metadata.name = 'other.v.example.com';
    let r = await req('POST', CRDS, wrong);
    assertStatus(r, 422, 'Invalid', 'CustomResourceDefinition.apiextensions.k8s.io "other.v.example.com" is invalid: metadata.name: Invalid value: "other.v.example.com": must be spec.names.plural+"."+spec.group');

    const none = crd({ group: 'v.example.com', version: { storage: false } });
    r = await req('POST', CRDS, none);
    assertStatus(r, 422, 'Invalid');
    assert.ok(causes(r).some((c: string) => /^spec\.versions: Invalid value: .*: must have exactly one version marked as storage version$/.test(c)), causes(r).join('\n'));

    const two = crd({ group: 'v.example.com', versions: ['v1', 'v2'].map((name) => ({ name, served: true, storage: true, schema: { openAPIV3Schema: schema } })) });
    r = await req('POST', CRDS, two);
    assertStatus(r, 422, 'Invalid');
    assert.ok(causes(r).some((c: string) => /^spec\.versions: Invalid value: .*: must have exactly one version marked as storage version$/.test(c)), causes(r).join('\n'));

    const scope = crd({ group: 'v.example.com' });
    scope.spec.scope = 'Galactic';
    r = await req('POST', CRDS, scope);
    assertStatus(r, 422, 'Invalid', /spec\.scope: Unsupported value: "Galactic": supported values: "Cluster", "Namespaced"/);
    assert.equal((await req('GET', `${CRDS}/widgets.v.example.com`)).status, 404);
  });

  it('checks a CRD\'s schemas in turns of the event loop of their own, with the errors of the whole check', async () => {
    const def = env.b.registry.find('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
    const group = 'turns.example.com';
    const ruled = { ...schema, 'x-kubernetes-validations': [{ rule: 'has(self.spec)' }] };
    const versions = [
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: ruled } },
      { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { ...ruled, properties: { ...schema.properties, extra: { type: 'string' } } } } },
    ];
    // A ticker that counts the turns of the event loop while the in-process create is pending.
    const turnsDuring = async (write: () => unknown): Promise<number> => {
      let turns = 0;
      let on = true;
      const tick = (): void => { if (on) { turns++; setImmediate(tick); } };
      setImmediate(tick);
      try {
        await write();
      } finally {
        on = false;
      }
      return turns;
    };
    // Which checks there are, then each version's structure and rules: five turns at least before it is stored.
    const turns = await turnsDuring(() => env.b.registry.create(def, '', crd({ group, versions }) as never));
    assert.ok(turns >= 5, `the create took ${turns} turns`);
    // A wrong rule in v1 and a schema without a type in v2: both reported, at upstream's paths, through the same turns.
    const bad = crd({ group, plural: 'gadgets', kind: 'Gadget', versions: [
      { ...versions[0], schema: { openAPIV3Schema: { ...schema, 'x-kubernetes-validations': [{ rule: 'self.spec.' }] } } },
      { ...versions[1], schema: { openAPIV3Schema: { properties: { spec: { type: 'object' } } } } },
    ] });
    const r = await req('POST', CRDS, bad);
    assertStatus(r, 422, 'Invalid');
    const got = causes(r).join('\n');
    assert.match(got, /spec\.versions\[0\]\.schema\.openAPIV3Schema\.x-kubernetes-validations\[0\]\.rule: Invalid value: .*compilation failed/);
    assert.match(got, /spec\.versions\[1\]\.schema\.openAPIV3Schema\.type: Required value: must not be empty at the root/);
    await deleteCrdAndWait(`widgets.${group}`);
  });

  it('refuses names a CRD of the same group holds (NamesAccepted=False), and accepts them once it goes', async () => {
    const group = 'names.example.com';
    await established(crd({ group }));
    const second = crd({ group, plural: 'gadgets', kind: 'Widget' });
    assert.equal((await req('POST', CRDS, second)).status, 201);
    const refused = await eventually('NamesAccepted on the second CRD', async () => {
      const c = (await req('GET', `${CRDS}/gadgets.${group}`)).body;
      return condition(c, 'NamesAccepted') ? c : undefined;
    });
    assert.deepEqual(pick(condition(refused, 'NamesAccepted')), { status: 'False', reason: 'KindConflict', message: '"Widget" is already in use' });
    assert.deepEqual(pick(condition(refused, 'Established')), { status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' });
    assert.equal((await req('GET', `/apis/${group}/v1/namespaces/default/gadgets`)).status, 404);

    await deleteCrdAndWait(`widgets.${group}`);
    const accepted = await eventually('the second CRD accepted', async () => {
      const c = (await req('GET', `${CRDS}/gadgets.${group}`)).body;
      return condition(c, 'Established')?.status === 'True' ? c : undefined;
    }, 3_000);
    assert.deepEqual(pick(condition(accepted, 'NamesAccepted')), { status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
    assert.equal(accepted.status.acceptedNames.kind, 'Widget');
    await eventually('gadgets served', async () => (await req('GET', `/apis/${group}/v1/namespaces/default/gadgets`)).status === 200);
    await deleteCrdAndWait(`gadgets.${group}`);
  });

  it('watches custom objects in the served version: ADDED, MODIFIED, DELETED', async () => {
    const group = 'watch.example.com';
    await established(crd({ group, versions: [
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } },
      { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: schema } },
    ] }));
    const path = `/apis/${group}/v1beta1/namespaces/default/widgets`;
    const list = await req('GET', path);
    const w = await openWatch(`${env.b.url}${path}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`, { authorization: `Bearer ${env.b.credentials.token}` });
    try {
      assert.equal(w.status, 200);
      assert.equal((await req('POST', `/apis/${group}/v1/namespaces/default/widgets`, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { color: 'red' } })).status, 201);
      assert.equal((await req('PATCH', `${path}/w`, { spec: { color: 'blue' } }, { contentType: 'application/merge-patch+json' })).status, 200);
      assert.equal((await req('DELETE', `${path}/w`)).status, 200);
      const evs = await w.waitFor((e) => e.some((x) => x.type === 'DELETED'), 5_000, 'DELETED');
      assert.deepEqual(evs.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
      for (const e of evs) {
        assert.equal(e.object.apiVersion, `${group}/v1beta1`);
        assert.equal(e.object.kind, 'Widget');
      }
      assert.equal(evs[1].object.spec.color, 'blue');
    } finally {
      w.close();
    }
    await deleteCrdAndWait(`widgets.${group}`);
  });

  it('selects by spec.selectableFields, refuses other field labels, and deletes collections', async () => {
    const group = 'select.example.com';
    await established(crd({ group, version: { selectableFields: [{ jsonPath: '.spec.color' }] } }));
    const path = `/apis/${group}/v1/namespaces/default/widgets`;
    for (const [name, color] of [['a', 'red'], ['b', 'blue'], ['c', 'red']]) {
      assert.equal((await req('POST', path, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name, labels: { color } }, spec: { color } })).status, 201);
    }
    const red = await req('GET', `${path}?fieldSelector=spec.color%3Dred`);
    assert.equal(red.status, 200, red.text);
    assert.deepEqual(red.body.items.map((i: Json) => i.metadata.name), ['a', 'c']);
    const notRed = await req('GET', `${path}?fieldSelector=spec.color!%3Dred,metadata.name!%3Dx`);
    assert.deepEqual(notRed.body.items.map((i: Json) => i.metadata.name), ['b']);
    assertStatus(await req('GET', `${path}?fieldSelector=spec.size%3D1`), 400, 'BadRequest', 'field label not supported: spec.size');
    assertStatus(await req('GET', `${path}?watch=1&fieldSelector=status.phase%3DX`), 400, 'BadRequest', 'field label not supported: status.phase');

    const dc = await req('DELETE', `${path}?labelSelector=color%3Dred`);
    assert.equal(dc.status, 200, dc.text);
    assert.equal(dc.body.kind, 'WidgetList');
    assert.deepEqual(dc.body.items.map((i: Json) => i.metadata.name).sort(), ['a', 'c']);
    assert.deepEqual((await req('GET', path)).body.items.map((i: Json) => i.metadata.name), ['b']);
    assert.equal((await req('DELETE', path)).status, 200);
    assert.deepEqual((await req('GET', path)).body.items, []);
    await deleteCrdAndWait(`widgets.${group}`);
  });

  it('refuses strategic merge patches (415), takes the other patch types, and refuses objects over 1.5 MiB (413)', async () => {
    const group = 'patch.example.com';
    await established(crd({ group, version: { subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } } } }));
    const path = `/apis/${group}/v1/namespaces/default/widgets`;
    assert.equal((await req('POST', path, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'p' }, spec: { color: 'red', replicas: 1 } })).status, 201);
    const smp = 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';
    for (const sub of ['', '/status', '/scale']) {
      assertStatus(await req('PATCH', `${path}/p${sub}`, { spec: { color: 'x' } }, { contentType: 'application/strategic-merge-patch+json' }), 415, 'UnsupportedMediaType', smp);
    }
    assertStatus(await req('PATCH', `${path}/missing`, { spec: {} }, { contentType: 'application/strategic-merge-patch+json' }), 415, 'UnsupportedMediaType', smp);
    let r = await req('PATCH', `${path}/p`, [{ op: 'replace', path: '/spec/color', value: 'green' }], { contentType: 'application/json-patch+json' });
    assert.equal(r.body?.spec?.color, 'green', r.text);
    r = await req('PATCH', `${path}/p?fieldManager=t`, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'p' }, spec: { size: 3 } }, { contentType: 'application/apply-patch+yaml' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.spec.size, 3);

    const big = { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'big' }, spec: { color: 'x'.repeat(1_600_000) } };
    assertStatus(await req('POST', path, big), 413, 'RequestEntityTooLarge');
    assertStatus(await req('PUT', `${path}/p`, { ...big, metadata: { name: 'p' } }), 413, 'RequestEntityTooLarge');
    assertStatus(await req('PATCH', `${path}/p`, { spec: { color: 'x'.repeat(1_600_000) } }, { contentType: 'application/merge-patch+json' }), 413, 'RequestEntityTooLarge');
    assert.equal((await req('GET', `${path}/big`)).status, 404);
    await deleteCrdAndWait(`widgets.${group}`);
  });

  it('keeps spec and status apart through the status subresource; generation follows spec', async () => {
    const group = 'status.example.com';
    await established(crd({ group, version: { subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } } } }));
    const path = `/apis/${group}/v1/namespaces/default/widgets`;
    let r = await req('POST', path, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 's' }, spec: { color: 'red' }, status: { phase: 'Made' } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.status, undefined, 'status is dropped on create');
    assert.equal(r.body.metadata.generation, 1);

    r = await req('PUT', `${path}/s/status`, { ...r.body, spec: { color: 'blue' }, status: { phase: 'Ready', replicas: 2 } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.spec, { color: 'red' }, 'spec is ignored by the status subresource');
    assert.deepEqual(r.body.status, { phase: 'Ready', replicas: 2 });
    assert.equal(r.body.metadata.generation, 1);

    r = await req('PUT', `${path}/s`, { ...r.body, spec: { color: 'blue' }, status: { phase: 'Gone' } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.status, { phase: 'Ready', replicas: 2 }, 'status is ignored by the main resource');
    assert.equal(r.body.metadata.generation, 2);

    r = await req('PATCH', `${path}/s`, { metadata: { labels: { a: 'b' } } }, { contentType: 'application/merge-patch+json' });
    assert.equal(r.body.metadata.generation, 2, 'metadata changes keep the generation');

    // Scale: spec replicas missing is upstream's 500; then scale reads and writes .spec.replicas.
    assertStatus(await req('GET', `${path}/s/scale`), 500, 'InternalError', 'Internal error occurred: the spec replicas field ".spec.replicas" does not exist');
    r = await req('PATCH', `${path}/s`, { spec: { replicas: 2 } }, { contentType: 'application/merge-patch+json' });
    assert.equal(r.body.metadata.generation, 3);
    r = await req('GET', `${path}/s/scale`);
    assert.deepEqual({ kind: r.body.kind, apiVersion: r.body.apiVersion, spec: r.body.spec, status: r.body.status }, { kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 2 }, status: { replicas: 2 } });
    r = await req('PATCH', `${path}/s/scale`, { spec: { replicas: 5 } }, { contentType: 'application/merge-patch+json' });
    assert.equal(r.status, 200, r.text);
    assert.equal((await req('GET', `${path}/s`)).body.spec.replicas, 5);
    await deleteCrdAndWait(`widgets.${group}`);
  });

  it("checks a CRD's status write as upstream's status strategy does: the accepted names, not the stored versions", async () => {
    const name = 'widgets.crdstatus.example.com';
    await established(crd({ group: 'crdstatus.example.com' }));
    const status = `${CRDS}/${name}/status`;
    const merge = { contentType: 'application/merge-patch+json' };
    let r = await req('PATCH', status, { status: { acceptedNames: { plural: 'Bad_Plural' } } }, merge);
    assertStatus(r, 422, 'Invalid');
    assert.ok(causes(r).some((c: string) => c.startsWith('status.acceptedNames.plural: Invalid value: "Bad_Plural"')), causes(r).join('\n'));
    // A storage migration rewrites status.storedVersions through the status subresource, which checks them against
    // nothing (ValidateUpdateCustomResourceDefinitionStatus); the main resource's rules are not run there.
    r = await req('PATCH', status, { status: { storedVersions: ['v1', 'v0'] } }, merge);
    assert.equal(r.status, 200, r.text.slice(0, 500));
    assert.deepEqual(r.body.status.storedVersions, ['v1', 'v0']);
    // A main-resource write checks them again, as upstream's update validation does.
    r = await req('PATCH', `${CRDS}/${name}`, { metadata: { labels: { a: 'b' } } }, merge);
    assertStatus(r, 422, 'Invalid');
    assert.ok(causes(r).some((c: string) => c.startsWith('status.storedVersions[1]: Invalid value: "v0": missing from spec.versions')), causes(r).join('\n'));
    assert.equal((await req('PATCH', status, { status: { storedVersions: ['v1'] } }, merge)).status, 200);
    await deleteCrdAndWait(name);
  });

  it('prints Name and Age for a CRD without printer columns', async () => {
    const group = 'table.example.com';
    await established(crd({ group }));
    const path = `/apis/${group}/v1/namespaces/default/widgets`;
    assert.equal((await req('POST', path, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 't' } })).status, 201);
    for (const p of [path, `${path}/t`]) {
      const r = await req('GET', p, undefined, { accept: TABLE });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.kind, 'Table');
      assert.deepEqual(r.body.columnDefinitions.map((c: Json) => [c.name, c.type, c.format]), [['Name', 'string', 'name'], ['Age', 'date', '']]);
      assert.equal(r.body.rows.length, 1);
      assert.equal(r.body.rows[0].cells[0], 't');
      assert.match(r.body.rows[0].cells[1], /^\d+s$/);
    }
    await deleteCrdAndWait(`widgets.${group}`);
  });

  it('lists the resource in discovery with its short names and categories, until the CRD goes', async () => {
    const group = 'disco.example.com';
    await established(crd({ group, names: { shortNames: ['dw'], categories: ['all', 'gizmos'] } }));
    const legacy = await req('GET', `/apis/${group}/v1`);
    assert.equal(legacy.status, 200, legacy.text);
    assert.equal(legacy.body.kind, 'APIResourceList');
    const res = legacy.body.resources.find((x: Json) => x.name === 'widgets');
    assert.deepEqual({ kind: res.kind, namespaced: res.namespaced, singularName: res.singularName, shortNames: res.shortNames, categories: res.categories },
      { kind: 'Widget', namespaced: true, singularName: 'widget', shortNames: ['dw'], categories: ['all', 'gizmos'] });
    const groups = await req('GET', '/apis');
    assert.ok(groups.body.groups.some((g: Json) => g.name === group));

    const agg = await req('GET', '/apis', undefined, { accept: AGGREGATED });
    assert.equal(agg.status, 200, agg.text.slice(0, 300));
    assert.match(agg.headers.get('content-type') ?? '', /g=apidiscovery\.k8s\.io;v=v2;as=APIGroupDiscoveryList/);
    const item = agg.body.items.find((g: Json) => g.metadata.name === group);
    assert.ok(item, 'the group is in the aggregated discovery');
    const r = item.versions[0].resources.find((x: Json) => x.resource === 'widgets');
    assert.deepEqual({ scope: r.scope, singular: r.singularResource, shortNames: r.shortNames, categories: r.categories, kind: r.responseKind.kind },
      { scope: 'Namespaced', singular: 'widget', shortNames: ['dw'], categories: ['all', 'gizmos'], kind: 'Widget' });

    await deleteCrdAndWait(`widgets.${group}`);
    await eventually('discovery without the group', async () => (await req('GET', `/apis/${group}/v1`)).status === 404);
    assert.ok(!(await req('GET', '/apis')).body.groups.some((g: Json) => g.name === group));
    assert.ok(!(await req('GET', '/apis', undefined, { accept: AGGREGATED })).body.items.some((g: Json) => g.metadata.name === group));
  });

  it('finalizers hold custom objects; a deleted CRD terminates, refuses creates, and waits for them', async () => {
    const group = 'final.example.com';
    await established(crd({ group }));
    const path = `/apis/${group}/v1/namespaces/default/widgets`;
    assert.equal((await req('POST', path, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'held', finalizers: ['example.com/hold'] } })).status, 201);
    let r = await req('DELETE', `${path}/held`);
    assert.equal(r.status, 200, r.text);
    r = await req('GET', `${path}/held`);
    assert.equal(r.status, 200);
    assert.ok(r.body.metadata.deletionTimestamp, 'the object waits for its finalizer');

    assert.equal((await req('DELETE', `${CRDS}/widgets.${group}`)).status, 200);
    const terminating = await eventually('the CRD terminating', async () => {
      const c = (await req('GET', `${CRDS}/widgets.${group}`)).body;
      return condition(c, 'Terminating')?.status === 'True' ? c : undefined;
    });
    assert.deepEqual(pick(condition(terminating, 'Terminating')), { status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
    assert.ok(terminating.metadata.deletionTimestamp);
    assertStatus(await req('POST', path, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'late' } }), 405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating');
    assert.equal((await req('GET', `${path}/held`)).status, 200, 'reads still work while terminating');

    r = await req('PATCH', `${path}/held`, { metadata: { finalizers: null } }, { contentType: 'application/merge-patch+json' });
    assert.equal(r.status, 200, r.text);
    await eventually('the CRD gone', async () => (await req('GET', `${CRDS}/widgets.${group}`)).status === 404);
    assert.equal((await req('GET', `/apis/${group}/v1`)).status, 404);
  });
});

function pick(c: Json | undefined): Json | undefined {
  return c && { status: c.status, reason: c.reason, message: c.message };
}
