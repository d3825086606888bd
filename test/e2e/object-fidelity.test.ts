// What kubectl shows of upstream's object semantics: deletions answered with a Status, namespaces that may not be
// deleted, Secret stringData, the v1 Endpoints deprecation warning, `kubectl debug` (ephemeral containers) and the
// words of decoding errors.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('kubectl: object fidelity', () => {
  const env = useKubectlServer({ args: [...noAddons] });

  it('deletes objects whatever DELETE answers (a Status, or the object)', async () => {
    await env.k.ok(['create', 'deployment', 'gone', '--image=nginx']);
    await env.k.ok(['create', 'configmap', 'gone-cfg', '--from-literal=a=1']);
    await env.k.ok(['create', 'service', 'clusterip', 'gone-svc', '--tcp=80:80']);
    assert.equal(await env.k.ok(['delete', 'deployment', 'gone']), 'deployment.apps "gone" deleted\n');
    assert.equal(await env.k.ok(['delete', 'configmap', 'gone-cfg']), 'configmap "gone-cfg" deleted\n');
    assert.equal(await env.k.ok(['delete', 'service', 'gone-svc']), 'service "gone-svc" deleted\n');
    const left = await env.k.run(['get', 'deployment/gone', 'configmap/gone-cfg', 'service/gone-svc']);
    assert.notEqual(left.code, 0);
    assert.match(left.stderr, /deployments.apps "gone" not found/);
  });

  it('refuses to delete the namespaces upstream keeps', async () => {
    for (const ns of ['default', 'kube-system', 'kube-public']) {
      const err = await env.k.fails(['delete', 'namespace', ns]);
      assert.equal(err, `Error from server (Forbidden): namespaces "${ns}" is forbidden: this namespace may not be deleted\n`);
    }
    assert.match(await env.k.ok(['get', 'namespace', 'default']), /default\s+Active/);
  });

  it('stores Secret stringData as data', async () => {
    await env.k.ok(['create', 'secret', 'generic', 'creds', '--from-literal=user=admin', '--from-literal=pass=s3cr3t']);
    assert.equal(await env.k.ok(['get', 'secret', 'creds', '-o', 'jsonpath={.data.user} {.data.pass}']), `${b64('admin')} ${b64('s3cr3t')}`);
    const manifest = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: mixed\ndata:\n  kept: a2VwdA==\n  over: b2xk\nstringData:\n  over: new\n  token: "t0k3n"\n';
    assert.match(await env.k.ok(['apply', '-f', '-'], { input: manifest }), /secret\/mixed created/);
    assert.equal(await env.k.ok(['get', 'secret', 'mixed', '-o', 'jsonpath={.data}']), JSON.stringify({ kept: b64('kept'), over: b64('new'), token: b64('t0k3n') }));
    assert.equal(await env.k.ok(['get', 'secret', 'mixed', '-o', 'jsonpath={.stringData}']), '');
    // Applying again (a three-way patch that carries stringData) changes nothing.
    assert.match(await env.k.ok(['apply', '-f', '-'], { input: manifest }), /secret\/mixed (unchanged|configured)/);
    assert.equal(await env.k.ok(['get', 'secret', 'mixed', '-o', 'jsonpath={.data.token}']), b64('t0k3n'));
  });

  it('prints the v1 Endpoints deprecation warning', async () => {
    const r = await env.k.run(['get', 'endpoints', 'kubernetes']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^kubernetes\s/m);
    assert.equal(r.stderr, 'Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n');
    const slices = await env.k.run(['get', 'endpointslices']);
    assert.equal(slices.stderr, '');
  });

  it('debugs a pod with an ephemeral container (kubectl debug)', async () => {
    await env.k.ok(['run', 'app', '--image=nginx']);
    await eventually(async () => (await env.k.ok(['get', 'pod', 'app', '-o', 'jsonpath={.status.phase}'])) === 'Running', 20_000, 'the pod to run');
    const r = await env.k.run(['debug', 'app', '--image=busybox', '--target=app']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Defaulting debug container name to debugger-\w+\./);
    const state = await eventually(async () => {
      const s = await env.k.ok(['get', 'pod', 'app', '-o', 'jsonpath={.status.ephemeralContainerStatuses[0].state}']);
      return s.includes('running') ? s : undefined;
    }, 20_000, 'the ephemeral container to run');
    assert.match(state, /^\{"running":\{"startedAt":"[^"]+"\}\}$/);
    const describe = await env.k.ok(['describe', 'pod', 'app']);
    assert.match(describe, /Ephemeral Containers:\n\s+debugger-\w+:\n\s+Container ID:\s+containerd:\/\//);
    assert.match(describe, /Normal\s+Started\s+\S+\s+kubelet\s+Container started/);
    // The pod's container runs the simulated shell (test/e2e/exec.test.ts has the rest).
    assert.match(await env.k.ok(['exec', 'app', '--', 'ls', '/']), /^etc$/m);
  });

  it('words decoding errors as kube-apiserver', async () => {
    const ns = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: raw\n';
    const raw = await env.k.run(['create', '--raw', '/api/v1/namespaces', '-f', '-'], { input: ns });
    assert.notEqual(raw.code, 0);
    assert.equal(raw.stderr, 'Error from server (BadRequest): the object provided is unrecognized (must be of type Namespace): couldn\'t get version/kind; '
      + 'json parse error: invalid character \'a\' looking for beginning of value (61706956657273696f6e3a2076310a6b696e643a204e616d657370616365 ...)\n');
    await env.k.ok(['create', 'configmap', 'typed', '--from-literal=a=1']);
    assert.equal(await env.k.fails(['patch', 'configmap', 'typed', '-p', '{"metadata":{"labels":"oops"}}']),
      'The request is invalid: patch: Invalid value: "map[metadata:map[labels:oops]]": cannot restore map from string\n');
    // An update carrying resourceVersion "0" is unconditional.
    const replaced = await env.k.ok(['replace', '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typed\n  resourceVersion: "0"\ndata:\n  a: "2"\n' });
    assert.match(replaced, /configmap\/typed replaced/);
  });
});
