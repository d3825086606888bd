// /openapi/v2 as gnostic protobuf: kubectl 1.27/1.28 download it for --validate=strict and explain.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { useKubectlServer } from '../helpers/cluster.js';
import { Kubectl } from '../helpers/kubectl.js';

const PB_ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const PB_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const versions = ['1.27', '1.28'];
const binary = (v: string) => `/usr/lib/google-cloud-sdk/bin/kubectl.${v}`;

describe('/openapi/v2 protobuf for older kubectl', () => {
  const env = useKubectlServer();

  it('serves JSON to JSON clients and the protobuf Document to protobuf clients, with one ETag', async () => {
    const json = await fetch(`${env.server.url}/openapi/v2`, { headers: { Accept: 'application/json' } });
    assert.equal(json.status, 200);
    assert.match(json.headers.get('content-type') ?? '', /^application\/json/);
    const doc = (await json.json()) as { swagger: string; definitions: Record<string, unknown>; paths: Record<string, unknown> };
    assert.equal(doc.swagger, '2.0');
    assert.ok(doc.definitions['io.k8s.api.core.v1.ConfigMap']);
    assert.ok(doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}']);
    const etag = json.headers.get('etag');
    assert.match(etag ?? '', /^"[0-9A-F]{128}"$/);

    const noAccept = await fetch(`${env.server.url}/openapi/v2`, { headers: { Accept: '' } });
    assert.match(noAccept.headers.get('content-type') ?? '', /^application\/json/);
    await noAccept.arrayBuffer();

    for (const accept of [PB_ACCEPT, PB_TYPE]) {
      const pb = await fetch(`${env.server.url}/openapi/v2`, { headers: { Accept: accept } });
      assert.equal(pb.status, 200);
      assert.equal(pb.headers.get('content-type'), PB_TYPE);
      assert.equal(pb.headers.get('etag'), etag);
      const bytes = Buffer.from(await pb.arrayBuffer());
      // Document.swagger = 1 ("2.0") comes first; the definitions and extensions are in there.
      assert.deepEqual([...bytes.subarray(0, 5)], [0x0a, 0x03, 0x32, 0x2e, 0x30]);
      assert.ok(bytes.includes('io.k8s.api.core.v1.ConfigMap'));
      assert.ok(bytes.includes('x-kubernetes-group-version-kind'));
      assert.ok(bytes.includes('fieldValidation'));
    }
    const notModified = await fetch(`${env.server.url}/openapi/v2`, { headers: { Accept: PB_ACCEPT, 'If-None-Match': etag! } });
    assert.equal(notModified.status, 304);
    const refused = await fetch(`${env.server.url}/openapi/v2`, { headers: { Accept: 'text/html' } });
    assert.equal(refused.status, 406);
    await refused.arrayBuffer();
  });

  for (const v of versions) {
    it(`kubectl ${v}: apply, re-apply, strict create with an unknown field, explain`, { skip: !existsSync(binary(v)) && `kubectl.${v} not installed` }, async () => {
      const k = new Kubectl(env.server.kubeconfig, binary(v));
      const ns = `ov2-${v.replace('.', '-')}`;
      await k.ok(['create', 'namespace', ns]);

      const first = await k.run(['apply', '-n', ns, '-f', '-', '-v=6'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: "1"\n' });
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /configmap\/cfg created/);
      assert.match(first.stderr, /GET http:\/\/[^ ]+\/openapi\/v2\S* 200 OK/);
      assert.doesNotMatch(first.stderr, /swagger-2\.0\.0\.pb-v1|failed to download openapi/);

      const second = await k.ok(['apply', '-n', ns, '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  b: "2"\n' });
      assert.match(second, /configmap\/cfg configured/);
      assert.equal(await k.ok(['get', 'cm', 'cfg', '-n', ns, '-o', 'jsonpath={.data}']), '{"b":"2"}');

      const err = await k.fails(['create', '-n', ns, '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  a: "1"\nnotAField: 1\n' });
      assert.match(err, /unknown field "?notAField"?/);
      assert.match(await k.fails(['get', 'cm', 'bad', '-n', ns]), /NotFound/);

      const explained = await k.ok(['explain', 'pod.spec']);
      assert.match(explained, /KIND:\s+Pod/);
      assert.match(explained, /containers\s+<\[\]Container> -required-|containers\s+<\[\]Object> -required-/);
      const viaV2 = await k.ok(['explain', 'deployment.spec.strategy', '--output=plaintext-openapiv2']);
      assert.match(viaV2, /KIND:\s+Deployment/);
      assert.match(viaV2, /rollingUpdate\s+<Object>/);
      await k.ok(['delete', 'namespace', ns, '--wait=false']);
    });
  }
});
