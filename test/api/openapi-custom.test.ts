// /openapi/v3 and /openapi/v2 follow custom resources published in process, and a real kubectl explains them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { useBonsai } from './http.js';
import { customOpenApiOf } from '../../src/openapi/custom-store.js';
import type { CustomResourceSpec } from '../../src/openapi/custom-types.js';
import { Kubectl, kubectlBinary } from '../helpers/kubectl.js';
import type { ResourceDef } from '../../src/registry/resource.js';

const crdFile = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'fixtures', 'crds', 'jobset.x-k8s.io_jobsets.yaml');

function jobsetSpec(): CustomResourceSpec {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const s = (parse(readFileSync(crdFile, 'utf8')) as any).spec;
  return {
    group: s.group, kind: s.names.kind, listKind: s.names.listKind, plural: s.names.plural, singular: s.names.singular, namespaced: true,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    versions: s.versions.map((v: any) => ({ name: v.name, served: v.served, schema: v.schema.openAPIV3Schema })),
    subresources: { status: {} },
  };
}

const GV = 'apis/jobset.x-k8s.io/v1alpha2';
const KEY = 'jobset.x-k8s.io/jobsets';

describe('OpenAPI documents of custom resources over HTTP', () => {
  const { env, req } = useBonsai();
  const openapi = () => customOpenApiOf(env.b.registry);

  it('lists, serves and drops the group-version document; v2 follows with a new ETag', async () => {
    const before = await req('GET', '/openapi/v3');
    assert.equal(before.status, 200);
    assert.equal(before.body.paths[GV], undefined);
    assert.ok(before.body.paths['apis/batch/v1']);
    const v2Before = await req('GET', '/openapi/v2', undefined, { accept: 'application/json' });
    const etag0 = v2Before.headers.get('etag');

    assert.equal(openapi().publish(KEY, jobsetSpec()), true);
    try {
      const listed = await req('GET', '/openapi/v3');
      const url: string = listed.body.paths[GV]?.serverRelativeURL;
      assert.match(url, /^\/openapi\/v3\/apis\/jobset\.x-k8s\.io\/v1alpha2\?hash=[0-9A-F]{128}$/);
      const doc = await req('GET', url);
      assert.equal(doc.status, 200);
      assert.equal(doc.headers.get('cache-control'), 'public, immutable');
      assert.equal(doc.headers.get('etag'), `"${url.split('hash=')[1]}"`);
      assert.ok(doc.body.components.schemas['io.x-k8s.jobset.v1alpha2.JobSet']);

      const v2 = await req('GET', '/openapi/v2', undefined, { accept: 'application/json' });
      assert.ok(v2.body.definitions['io.x-k8s.jobset.v1alpha2.JobSet']);
      const etag1 = v2.headers.get('etag');
      assert.notEqual(etag1, etag0);
      const pb = await fetch(`${env.b.url}/openapi/v2`, { headers: { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'If-None-Match': etag1! } });
      assert.equal(pb.status, 304);
      await pb.arrayBuffer();
    } finally {
      openapi().unpublish(KEY);
    }
    const after = await req('GET', '/openapi/v3');
    assert.equal(after.body.paths[GV], undefined);
    assert.equal((await req('GET', `/openapi/v3/${GV}`)).status, 404);
    assert.equal((await req('GET', '/openapi/v2', undefined, { accept: 'application/json' })).headers.get('etag'), etag0);
  });

  it('kubectl explain reads the published schema (v3, and v2 with plaintext-openapiv2)', { skip: !existsSync(kubectlBinary) && 'kubectl not installed' }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bonsai-openapi-'));
    const def: ResourceDef = { group: 'jobset.x-k8s.io', version: 'v1alpha2', kind: 'JobSet', plural: 'jobsets', singular: 'jobset', namespaced: true, subresources: ['status'] };
    env.b.registry.add(def);
    openapi().publish(KEY, jobsetSpec());
    try {
      const kubeconfig = join(dir, 'kubeconfig');
      writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters:\n- name: b\n  cluster:\n    server: ${env.b.url}\ncontexts:\n- name: b\n  context:\n    cluster: b\n    user: u\nusers:\n- name: u\n  user:\n    token: ${env.b.credentials.token}\ncurrent-context: b\n`);
      const k = new Kubectl(kubeconfig);
      const v3 = await k.ok(['explain', 'jobsets.spec.replicatedJobs']);
      assert.match(v3, /GROUP:\s+jobset\.x-k8s\.io/);
      assert.match(v3, /KIND:\s+JobSet/);
      assert.match(v3, /FIELD:\s+replicatedJobs/);
      assert.match(v3, /template\s+<Object> -required-/);
      const top = await k.ok(['explain', 'jobset']);
      assert.match(top, /metadata\s+<ObjectMeta>/);
      const v2 = await k.ok(['explain', 'jobsets.spec', '--output=plaintext-openapiv2']);
      assert.match(v2, /KIND:\s+JobSet/);
      assert.match(v2, /replicatedJobs\s+<\[\]Object>/);
    } finally {
      openapi().unpublish(KEY);
      env.b.registry.remove('jobset.x-k8s.io/jobsets');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
