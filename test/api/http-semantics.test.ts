// HTTP semantics of writes: errors as Status objects, dryRun, fieldValidation, generateName, finalizers and
// unsupported streaming subresources. kube-apiserver is the reference.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertPageNotFound, assertStatus, useBonsai } from './http.js';
import { eventually } from '../helpers/kubectl.js';

const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { k: 'v' } });
const deploy = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels: { app: name } },
  spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, ...spec },
});
const CMS = '/api/v1/namespaces/default/configmaps';
const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';

describe('HTTP semantics: errors, dryRun, fieldValidation, finalizers', () => {
  const { env, req } = useBonsai();

  describe('request bodies', () => {
    it('rejects malformed JSON with 400 BadRequest', async () => {
      const r = await req('POST', CMS, undefined, { raw: '{"apiVersion":"v1","kind":"ConfigMap",' });
      assertStatus(r, 400, 'BadRequest', /json parse error/);
    });

    it('accepts a YAML body (application/yaml)', async () => {
      const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  a: "1"\n';
      const r = await req('POST', CMS, undefined, { raw: yaml, contentType: 'application/yaml' });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.metadata.name, 'from-yaml');
      assert.deepEqual(r.body.data, { a: '1' });
    });

    it('rejects a JSON array body with 400', async () => {
      const r = await req('POST', CMS, [cm('arr')]);
      assertStatus(r, 400, 'BadRequest', /cannot unmarshal array/);
    });

    it('rejects an empty body with 400', async () => {
      const r = await req('POST', CMS, undefined, { raw: '' , contentType: 'application/json' });
      assertStatus(r, 400, 'BadRequest');
    });

    it('rejects the wrong kind for the URL with 400', async () => {
      const r = await req('POST', CMS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'wrong' } });
      assertStatus(r, 400, 'BadRequest', /^Secret in version "v1" cannot be handled as a ConfigMap/);
      // apps/v1 has no ConfigMap; a served kind of another version is refused after decoding.
      const r2 = await req('POST', CMS, { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'wrong' } });
      assertStatus(r2, 400, 'BadRequest', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"');
      const r3 = await req('POST', '/apis/events.k8s.io/v1/namespaces/default/events', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'wrong' } });
      assertStatus(r3, 400, 'BadRequest', 'the API version in the data (v1) does not match the expected API version (events.k8s.io/v1)');
      assert.equal((await req('GET', `${CMS}/wrong`)).status, 404);
    });

    it('rejects a body namespace that differs from the URL namespace with 400', async () => {
      const r = await req('POST', CMS, cm('ns-mismatch', { namespace: 'kube-system' }));
      assertStatus(r, 400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
      const ok = await req('POST', CMS, cm('ns-match', { namespace: 'default' }));
      assert.equal(ok.status, 201);
      const put = await req('PUT', `${CMS}/ns-match`, { ...ok.body, metadata: { ...ok.body.metadata, namespace: 'kube-system' } });
      assertStatus(put, 400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
    });

    it('rejects a body name that differs from the URL name on update with 400', async () => {
      const r = await req('PUT', `${CMS}/ns-match`, cm('other-name'));
      assertStatus(r, 400, 'BadRequest', 'the name of the object (other-name) does not match the name on the URL (ns-match)');
    });

    it('rejects too long and invalid names with 422 Invalid and causes', async () => {
      const long = 'a'.repeat(254);
      const r = await req('POST', CMS, cm(long));
      const s = assertStatus(r, 422, 'Invalid', new RegExp(`^ConfigMap "${long}" is invalid: metadata.name: Invalid value: "${long}": must be no more than 253 characters`));
      assert.equal(s.details.kind, 'ConfigMap');
      assert.equal(s.details.name, long);
      assert.ok(s.details.causes.some((c: { field: string; reason: string }) => c.field === 'metadata.name' && c.reason === 'FieldValueInvalid'));

      const bad = await req('POST', CMS, cm('Bad_Name'));
      const s2 = assertStatus(bad, 422, 'Invalid', /^ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
      assert.deepEqual(s2.details.causes.map((c: { field: string }) => c.field), ['metadata.name']);

      const missing = await req('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} });
      const s3 = assertStatus(missing, 422, 'Invalid', /metadata\.name: Required value: name or generateName is required/);
      assert.equal(s3.details.causes[0].field, 'metadata.name');
      assert.equal(s3.details.causes[0].reason, 'FieldValueRequired');
    });

    it('rejects a body over 3 MiB with 413 RequestEntityTooLarge', async () => {
      const big = JSON.stringify(cm('big', {}) as object).replace('"v"', JSON.stringify('x'.repeat(3 * 1024 * 1024 + 10)));
      const r = await req('POST', CMS, undefined, { raw: big });
      assertStatus(r, 413, 'RequestEntityTooLarge', /Request entity too large: limit is 3145728/);
      assert.equal((await req('GET', `${CMS}/big`)).status, 404);
    });

    it('rejects an unsupported Content-Type with 415', async () => {
      const r = await req('POST', CMS, undefined, { raw: '<ConfigMap/>', contentType: 'application/xml' });
      assertStatus(r, 415, 'UnsupportedMediaType', /the body of the request was in an unknown format - accepted media types include: application\/json, application\/yaml, application\/vnd\.kubernetes\.protobuf/);
      const p = await req('PATCH', `${CMS}/ns-match`, { data: { a: 'b' } }, { contentType: 'application/xml' });
      assertStatus(p, 415, 'UnsupportedMediaType');
    });
  });

  describe('paths and methods', () => {
    it('answers an unknown resource or version of a served group with a 404 Status, other paths with 404 page not found', async () => {
      // Within a served group, upstream's router answers a Status with empty details.
      for (const p of ['/api/v1/foos', '/api/v1/namespaces/default/foos/x', '/apis/apps/v9/deployments', '/api/v2/pods', '/api/v1/namespaces/default/nodes', '/apis/apps/v2']) {
        const s = assertStatus(await req('GET', p), 404, 'NotFound', 'the server could not find the requested resource');
        assert.deepEqual(s.details, {});
      }
      assertStatus(await req('POST', '/api/v1/foos', {}), 404, 'NotFound');
      // Outside them, Go's not-found handler answers text (client-go turns it into a NotFound Status itself).
      for (const p of ['/apis/nope.example.com/v1/things', '/apis/nope.example.com/v1', '/apis/nope.example.com', '/nope', '/api-x']) {
        assertPageNotFound(await req('GET', p));
      }
    });

    it('answers a malformed path escape with a 400 Status', async () => {
      assertStatus(await req('GET', '/api/v1/namespaces/%ZZ/configmaps'), 400, 'BadRequest');
    });

    it('routes namespaces/<name>/status and /finalize to the namespace, not to a resource', async () => {
      const s = await req('GET', '/api/v1/namespaces/default/status');
      assert.equal(s.status, 200, s.text);
      assert.equal(s.body.kind, 'Namespace');
      assert.equal(s.body.metadata.name, 'default');
      assert.equal(s.body.status.phase, 'Active');
      await req('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fin' } });
      const f = await req('PUT', '/api/v1/namespaces/fin/finalize', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fin' }, spec: { finalizers: [] } });
      assert.equal(f.status, 200, f.text);
      assert.deepEqual(f.body.spec.finalizers, []);
      assertStatus(await req('GET', '/api/v1/namespaces/fin/finalize'), 405, 'MethodNotAllowed');
    });

    it('answers an unknown subresource with 404', async () => {
      assertStatus(await req('GET', `${CMS}/ns-match/status`), 404, 'NotFound');
    });

    it('answers an unsupported method with 405 MethodNotAllowed', async () => {
      assertStatus(await req('PUT', CMS, cm('x')), 405, 'MethodNotAllowed');
      assertStatus(await req('POST', `${CMS}/ns-match`, cm('ns-match')), 405, 'MethodNotAllowed');
      assertStatus(await req('POST', '/api/v1/configmaps', cm('x')), 405, 'MethodNotAllowed');
      // namespaces do not support deletecollection
      assertStatus(await req('DELETE', '/api/v1/namespaces'), 405, 'MethodNotAllowed');
    });

    it('answers exec, attach and portforward without an upgrade with a 400 Status explaining why', async () => {
      await req('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
      for (const sub of ['exec?command=ls&stdout=true', 'attach?stdout=true', 'portforward?ports=80']) {
        for (const method of ['GET', 'POST']) {
          const r = await req(method, `/api/v1/namespaces/default/pods/p/${sub}`);
          assertStatus(r, 400, 'BadRequest', /does not have a host assigned|Upgrade request required/);
        }
      }
    });
  });

  describe('query parameters', () => {
    it('rejects a bad labelSelector with 400', async () => {
      const r = await req('GET', `${CMS}?labelSelector=${encodeURIComponent('a in (b')}`);
      assertStatus(r, 400, 'BadRequest');
      const r2 = await req('GET', `${CMS}?labelSelector=${encodeURIComponent('a=b=c')}`);
      assertStatus(r2, 400, 'BadRequest');
    });

    it('rejects a bad or unsupported fieldSelector with 400', async () => {
      // Upstream says `"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"` for
      // configmaps and `field label not supported: spec.foo` for kinds with their own field labels.
      const r = await req('GET', `${CMS}?fieldSelector=spec.foo%3Dbar`);
      assertStatus(r, 400, 'BadRequest', '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"');
      const rp = await req('GET', '/api/v1/pods?fieldSelector=spec.foo%3Dbar');
      assertStatus(rp, 400, 'BadRequest', /field label not supported: spec\.foo/);
      const r2 = await req('GET', `${CMS}?fieldSelector=metadata.name`);
      assertStatus(r2, 400, 'BadRequest');
      // A watch with a bad selector fails before the stream starts: a plain 400, not an ERROR event.
      const w = await req('GET', `${CMS}?watch=true&fieldSelector=spec.foo%3Dbar`);
      assertStatus(w, 400, 'BadRequest', /spec\.foo/);
      assertStatus(await req('GET', `${CMS}?watch=1&labelSelector=${encodeURIComponent('a in (b')}`), 400, 'BadRequest');
    });

    it('rejects a bad continue token with 400', async () => {
      const r = await req('GET', `${CMS}?limit=1&continue=not-a-token`);
      assertStatus(r, 400, 'BadRequest', /continue key is not valid/);
    });

    it('rejects non-integer limit and timeoutSeconds with 400', async () => {
      assertStatus(await req('GET', `${CMS}?limit=abc`), 400, 'BadRequest', /limit/);
      assertStatus(await req('GET', `${CMS}?watch=true&timeoutSeconds=soon`), 400, 'BadRequest', 'strconv.ParseInt: parsing "soon": invalid syntax');
      assertStatus(await req('GET', `${CMS}?resourceVersion=abc`), 400, 'BadRequest', /resourceVersion/);
    });

    it('rejects an unknown dryRun value', async () => {
      const r = await req('POST', `${CMS}?dryRun=Yes`, cm('dry-bad'));
      const s = assertStatus(r, 422, 'Invalid', 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Yes"}: supported values: "All"');
      assert.deepEqual(s.details.causes, [{ reason: 'FieldValueNotSupported', message: 'Unsupported value: []string{"Yes"}: supported values: "All"', field: 'dryRun' }]);
      assert.equal((await req('GET', `${CMS}/dry-bad`)).status, 404);
      const u = await req('PUT', `${CMS}/ns-match?dryRun=All&dryRun=all`, cm('ns-match'));
      assertStatus(u, 422, 'Invalid', /^UpdateOptions\.meta\.k8s\.io "" is invalid: dryRun: Unsupported value: \[\]string\{"All", "all"\}/);
      const p = await req('PATCH', `${CMS}/ns-match?dryRun=1`, {}, { contentType: 'application/merge-patch+json' });
      assertStatus(p, 422, 'Invalid', /^PatchOptions\.meta\.k8s\.io "" is invalid: dryRun/);
      assertStatus(await req('DELETE', `${CMS}/ns-match?dryRun=true`), 422, 'Invalid', /^DeleteOptions\.meta\.k8s\.io "" is invalid: dryRun/);
      assert.equal((await req('GET', `${CMS}/ns-match`)).status, 200);
    });
  });

  describe('object lifecycle errors', () => {
    it('answers DELETE of a missing object with 404', async () => {
      const s = assertStatus(await req('DELETE', `${CMS}/missing`), 404, 'NotFound', 'configmaps "missing" not found');
      assert.deepEqual({ name: s.details.name, kind: s.details.kind }, { name: 'missing', kind: 'configmaps' });
      assertStatus(await req('DELETE', `${DEPLOYS}/missing`), 404, 'NotFound', 'deployments.apps "missing" not found');
      const d = (await req('DELETE', `${DEPLOYS}/missing`)).body;
      assert.equal(d.details.group, 'apps');
    });

    it('rejects a DELETE body that is not DeleteOptions, and keeps the object', async () => {
      assert.equal((await req('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'del-body' } })).status, 201);
      assertStatus(await req('DELETE', `${CMS}/del-body`, [1]), 400, 'BadRequest');
      assert.equal((await req('GET', `${CMS}/del-body`)).status, 200);
    });

    it('answers an unknown subresource with a plain 404', async () => {
      assertStatus(await req('GET', `${CMS}/del-body/status`), 404, 'NotFound', 'the server could not find the requested resource');
    });

    it('answers an update with a stale resourceVersion with 409 Conflict', async () => {
      const c = await req('POST', CMS, cm('stale'));
      const stale = c.body;
      const u = await req('PUT', `${CMS}/stale`, { ...stale, data: { k: 'v2' } });
      assert.equal(u.status, 200);
      const r = await req('PUT', `${CMS}/stale`, { ...stale, data: { k: 'v3' } });
      assertStatus(r, 409, 'Conflict', 'Operation cannot be fulfilled on configmaps "stale": the object has been modified; please apply your changes to the latest version and try again');
      assert.equal((await req('GET', `${CMS}/stale`)).body.data.k, 'v2');
      // A delete precondition on an old resourceVersion conflicts too.
      const d = await req('DELETE', `${CMS}/stale`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: stale.metadata.resourceVersion } });
      assertStatus(d, 409, 'Conflict', /Precondition failed: ResourceVersion in precondition/);
    });

    it('answers a create of an existing object with 409 AlreadyExists', async () => {
      const r = await req('POST', CMS, cm('stale'));
      const s = assertStatus(r, 409, 'AlreadyExists', 'configmaps "stale" already exists');
      assert.equal(s.details.name, 'stale');
      assert.equal(s.details.kind, 'configmaps');
    });

    it('answers a create in a missing namespace with 404', async () => {
      const r = await req('POST', '/api/v1/namespaces/no-such-ns/configmaps', cm('x'));
      assertStatus(r, 404, 'NotFound', 'namespaces "no-such-ns" not found');
    });

    it('answers a create in a terminating namespace with 403 and a NamespaceTerminating cause', async () => {
      const ns = await req('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'going', finalizers: ['example.com/hold'] } });
      assert.equal(ns.status, 201, ns.text);
      const d = await req('DELETE', '/api/v1/namespaces/going');
      assert.equal(d.status, 200, d.text);
      const got = await req('GET', '/api/v1/namespaces/going');
      assert.equal(got.body.status.phase, 'Terminating');
      assert.ok(got.body.metadata.deletionTimestamp);
      const r = await req('POST', '/api/v1/namespaces/going/configmaps', cm('late'));
      const s = assertStatus(r, 403, 'Forbidden', 'configmaps is forbidden: unable to create new content in namespace going because it is being terminated');
      assert.deepEqual(s.details.causes, [{ reason: 'NamespaceTerminating', message: 'unable to create new content in namespace going because it is being terminated', field: 'metadata.namespace' }]);
      const rd = await req('POST', '/apis/apps/v1/namespaces/going/deployments', deploy('late'));
      assertStatus(rd, 403, 'Forbidden', /^deployments\.apps is forbidden: unable to create new content in namespace going/);
    });
  });

  describe('dryRun=All', () => {
    it('writes nothing on create, update, patch and delete', async () => {
      const base = await req('POST', CMS, cm('dry'));
      assert.equal(base.status, 201);
      const rv0 = env.b.store.revision();

      const c = await req('POST', `${CMS}?dryRun=All`, cm('dry-new'));
      assert.equal(c.status, 201, c.text);
      assert.equal(c.body.metadata.name, 'dry-new');
      assert.ok(c.body.metadata.uid);
      assertStatus(await req('GET', `${CMS}/dry-new`), 404, 'NotFound');
      // A dry-run create of an existing object still conflicts.
      assertStatus(await req('POST', `${CMS}?dryRun=All`, cm('dry')), 409, 'AlreadyExists');

      const u = await req('PUT', `${CMS}/dry?dryRun=All`, { ...base.body, data: { k: 'changed' } });
      assert.equal(u.status, 200, u.text);
      assert.equal(u.body.data.k, 'changed');

      const p = await req('PATCH', `${CMS}/dry?dryRun=All`, { data: { k: 'patched' } }, { contentType: 'application/merge-patch+json' });
      assert.equal(p.status, 200, p.text);
      assert.equal(p.body.data.k, 'patched');

      const d = await req('DELETE', `${CMS}/dry?dryRun=All`);
      assert.equal(d.status, 200, d.text);
      const dBody = await req('DELETE', `${CMS}/dry`, { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] });
      assert.equal(dBody.status, 200, dBody.text);

      const after = await req('GET', `${CMS}/dry`);
      assert.equal(after.status, 200);
      assert.deepEqual(after.body, base.body);
      // Nothing among the ConfigMaps was written since (the store's revision itself moves with the cluster's own
      // writes, e.g. node leases).
      const written = (await req('GET', CMS)).body.items.filter((o: { metadata: { resourceVersion: string } }) => Number(o.metadata.resourceVersion) > rv0);
      assert.deepEqual(written, []);
    });
  });

  describe('fieldValidation', () => {
    const withFoo = (name: string) => deploy(name, { foo: 1 });

    it('Strict rejects unknown fields with 400', async () => {
      const r = await req('POST', `${DEPLOYS}?fieldValidation=Strict`, withFoo('fv-strict'));
      assertStatus(r, 400, 'BadRequest', 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"');
      assert.equal((await req('GET', `${DEPLOYS}/fv-strict`)).status, 404);
    });

    it('Warn (and the default) accept with a Warning header', async () => {
      for (const [name, q] of [['fv-warn', '?fieldValidation=Warn'], ['fv-default', '']]) {
        const r = await req('POST', `${DEPLOYS}${q}`, withFoo(name));
        assert.equal(r.status, 201, r.text);
        assert.equal(r.headers.get('warning'), '299 - "unknown field \\"spec.foo\\""');
        // Unknown fields are dropped, as decoding into the typed object drops them upstream.
        assert.equal(r.body.spec.foo, undefined);
        assert.equal((await req('GET', `${DEPLOYS}/${name}`)).body.spec.foo, undefined);
      }
    });

    it('Ignore accepts without a warning', async () => {
      const r = await req('POST', `${DEPLOYS}?fieldValidation=Ignore`, withFoo('fv-ignore'));
      assert.equal(r.status, 201, r.text);
      assert.equal(r.headers.get('warning'), null);
      assert.equal(r.body.spec.foo, undefined);
    });

    it('applies to updates and patches too', async () => {
      const cur = (await req('GET', `${DEPLOYS}/fv-ignore`)).body;
      const u = await req('PUT', `${DEPLOYS}/fv-ignore?fieldValidation=Strict`, { ...cur, spec: { ...cur.spec, foo: 2 } });
      assertStatus(u, 400, 'BadRequest', 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"');
      // A patch's result is refused as an invalid `patch` (422), showing what the patch produced.
      const p = await req('PATCH', `${DEPLOYS}/fv-ignore?fieldValidation=Strict`, { spec: { foo: 3 } }, { contentType: 'application/merge-patch+json' });
      const s = assertStatus(p, 422, 'Invalid', /^ "" is invalid: patch: Invalid value: "\{.*\\"foo\\":3.*\}": strict decoding error: unknown field "spec\.foo"$/);
      assert.equal(s.details.causes[0].field, 'patch');
      const w = await req('PATCH', `${DEPLOYS}/fv-ignore`, { spec: { foo: 3 } }, { contentType: 'application/merge-patch+json' });
      assert.equal(w.status, 200);
      assert.equal(w.headers.get('warning'), '299 - "unknown field \\"spec.foo\\""');
      assert.equal(w.body.spec.foo, undefined);
      const two = await req('POST', DEPLOYS, { ...withFoo('fv-two'), metadata: { name: 'fv-two', bar: true } });
      assert.equal(two.headers.get('warning'), '299 - "unknown field \\"metadata.bar\\"", 299 - "unknown field \\"spec.foo\\""');
    });

    it('rejects an unknown mode with 422 on the request options', async () => {
      const c = await req('POST', `${DEPLOYS}?fieldValidation=Loose`, withFoo('fv-loose'));
      assertStatus(c, 422, 'Invalid', 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "Ignore", "Strict", "Warn"');
      const p = await req('PATCH', `${DEPLOYS}/fv-ignore?fieldValidation=Loose`, { spec: {} }, { contentType: 'application/merge-patch+json' });
      assertStatus(p, 422, 'Invalid', /^PatchOptions\.meta\.k8s\.io "" is invalid: fieldValidation/);
    });
  });

  describe('generateName', () => {
    it('appends 5 random characters to the prefix', async () => {
      const names = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const r = await req('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } });
        assert.equal(r.status, 201, r.text);
        assert.match(r.body.metadata.name, /^gen-[a-z0-9]{5}$/);
        assert.equal(r.body.metadata.generateName, 'gen-');
        names.add(r.body.metadata.name);
      }
      assert.equal(names.size, 3);
    });
  });

  describe('finalizers', () => {
    it('keeps an object with a finalizer until an update removes it', async () => {
      const c = await req('POST', CMS, cm('held', { finalizers: ['example.com/hold'] }));
      assert.equal(c.status, 201);
      const d = await req('DELETE', `${CMS}/held`);
      assert.equal(d.status, 200, d.text);
      assert.ok(d.body.metadata.deletionTimestamp, 'DELETE returns the object with deletionTimestamp');
      const g = await req('GET', `${CMS}/held`);
      assert.equal(g.status, 200);
      assert.ok(g.body.metadata.deletionTimestamp);
      assert.deepEqual(g.body.metadata.finalizers, ['example.com/hold']);
      // A second DELETE changes nothing and still answers with the object.
      const d2 = await req('DELETE', `${CMS}/held`);
      assert.equal(d2.status, 200);
      assert.equal(d2.body.metadata.resourceVersion, g.body.metadata.resourceVersion);
      // Updates other than finalizer removal leave it in place.
      const u = await req('PATCH', `${CMS}/held`, { metadata: { labels: { a: 'b' } } }, { contentType: 'application/merge-patch+json' });
      assert.equal(u.status, 200);
      assert.equal((await req('GET', `${CMS}/held`)).status, 200);
      const rm = await req('PATCH', `${CMS}/held`, [{ op: 'remove', path: '/metadata/finalizers' }], { contentType: 'application/json-patch+json' });
      assert.equal(rm.status, 200, rm.text);
      assertStatus(await req('GET', `${CMS}/held`), 404, 'NotFound');
    });

    it('deletes through a PUT that empties the finalizers', async () => {
      await req('POST', CMS, cm('held2', { finalizers: ['example.com/a', 'example.com/b'] }));
      await req('DELETE', `${CMS}/held2`);
      let cur = (await req('GET', `${CMS}/held2`)).body;
      const u1 = await req('PUT', `${CMS}/held2`, { ...cur, metadata: { ...cur.metadata, finalizers: ['example.com/b'] } });
      assert.equal(u1.status, 200);
      assert.equal((await req('GET', `${CMS}/held2`)).status, 200);
      cur = u1.body;
      const u2 = await req('PUT', `${CMS}/held2`, { ...cur, metadata: { ...cur.metadata, finalizers: [] } });
      assert.equal(u2.status, 200, u2.text);
      assertStatus(await req('GET', `${CMS}/held2`), 404, 'NotFound');
    });
  });

  describe('updates that change nothing', () => {
    it('are validated and admitted before the store notices the no-op, as upstream', async () => {
      const made = await req('POST', CMS, cm('frozen'));
      assert.equal(made.status, 201, made.text);
      const policy = {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'freeze' },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] },
          validations: [{ expression: "!object.metadata.name.startsWith('frozen')", message: 'frozen' }],
        },
      };
      const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'freeze' }, spec: { policyName: 'freeze', validationActions: ['Deny'] } };
      assert.equal((await req('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', policy)).status, 201);
      assert.equal((await req('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', binding)).status, 201);
      try {
        // The policy is in force once a create it matches is refused.
        await eventually(async () => (await req('POST', CMS, cm('frozen-probe'))).status === 422, 20_000, 'the policy refuses creates');
        const unchanged = await req('PUT', `${CMS}/frozen`, made.body);
        assertStatus(unchanged, 422, 'Invalid', /ValidatingAdmissionPolicy 'freeze' with binding 'freeze' denied request: frozen/);
        const emptyPatch = await req('PATCH', `${CMS}/frozen`, {}, { contentType: 'application/merge-patch+json' });
        assertStatus(emptyPatch, 422, 'Invalid', /denied request: frozen/);
      } finally {
        await req('DELETE', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/freeze');
        await req('DELETE', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/freeze');
      }
    });
  });
});
