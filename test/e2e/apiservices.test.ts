// apiregistration.k8s.io APIServices through kubectl: the local group versions and metrics-server's as on a
// cluster with metrics-server, create/conflict/validation/delete like any kind; and the apiserver's /metrics.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer } from '../helpers/cluster.js';

const apiService = (name: string, spec: string) => `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: ${name}
spec:
${spec}`;

describe('APIServices and /metrics with kubectl', () => {
  const env = useKubectlServer({ args: ['--nodes', '0'] });

  it('lists one Local APIService per served group version, and metrics-server for metrics.k8s.io', async () => {
    const out = await env.k.ok(['get', 'apiservices']);
    assert.match(out, /^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/m);
    for (const name of ['v1\\.', 'v1\\.apps', 'v1\\.autoscaling', 'v2\\.autoscaling', 'v1\\.batch', 'v1\\.rbac\\.authorization\\.k8s\\.io', 'v1\\.coordination\\.k8s\\.io']) {
      assert.match(out, new RegExp(`^${name}\\s+Local\\s+True\\s+\\d+s$`, 'm'));
    }
    assert.match(out, /^v1beta1\.metrics\.k8s\.io\s+kube-system\/metrics-server\s+True\s+\d+s$/m);
    assert.doesNotMatch(out, /apiregistration/);
    const core = JSON.parse(await env.k.ok(['get', 'apiservice', 'v1.', '-o', 'json'])) as { spec: Record<string, unknown>; status: { conditions: Array<Record<string, string>> }; metadata: { labels: Record<string, string> } };
    assert.deepEqual(core.spec, { group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
    assert.equal(core.metadata.labels['kube-aggregator.kubernetes.io/automanaged'], 'onstart');
    const c = core.status.conditions[0];
    assert.deepEqual([c.type, c.status, c.reason, c.message], ['Available', 'True', 'Local', 'Local APIServices are always available']);
    const apps = JSON.parse(await env.k.ok(['get', 'apiservice', 'v2.autoscaling', '-o', 'json'])) as { spec: Record<string, unknown> };
    assert.deepEqual([apps.spec.groupPriorityMinimum, apps.spec.versionPriority], [17500, 30]);
    assert.match(await env.k.ok(['api-resources', '--api-group=apiregistration.k8s.io']), /^apiservices\s+apiregistration\.k8s\.io\/v1\s+false\s+APIService$/m);
  });

  it('creates, refuses a duplicate and an invalid one, reports availability, and deletes', async () => {
    const spec = '  group: example.com\n  version: v1alpha1\n  groupPriorityMinimum: 1000\n  versionPriority: 15\n  service:\n    namespace: default\n    name: example-api\n';
    assert.match(await env.k.ok(['create', '-f', '-'], { input: apiService('v1alpha1.example.com', spec) }), /apiservice.apiregistration.k8s.io\/v1alpha1.example.com created/);
    assert.match(await env.k.fails(['create', '-f', '-'], { input: apiService('v1alpha1.example.com', spec) }), /AlreadyExists.*apiservices.apiregistration.k8s.io "v1alpha1.example.com" already exists/);
    assert.match(await env.k.ok(['get', 'apiservice', 'v1alpha1.example.com']), /^v1alpha1\.example\.com\s+default\/example-api\s+False \(ServiceNotFound\)\s+\d+s$/m);
    const bad = await env.k.fails(['create', '-f', '-'], { input: apiService('wrong', spec.replace('1000', '0')) });
    assert.match(bad, /The APIService "wrong" is invalid:/);
    assert.match(bad, /metadata\.name: Invalid value: "wrong": must be `spec\.version\+"\."\+spec\.group`: "v1alpha1\.example\.com"/);
    assert.match(bad, /spec\.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000/);
    assert.match(await env.k.ok(['delete', 'apiservice', 'v1alpha1.example.com']), /deleted/);
    assert.match(await env.k.fails(['get', 'apiservice', 'v1alpha1.example.com']), /NotFound.*"v1alpha1.example.com" not found/);
  });

  it('serves the apiserver metrics to kubectl get --raw /metrics, and 404s as kube-apiserver', async () => {
    await env.k.ok(['get', 'pods']);
    const m = await env.k.ok(['get', '--raw', '/metrics']);
    assert.match(m, /^# TYPE apiserver_request_total counter$/m);
    assert.match(m, /^apiserver_request_total\{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"\} \d+$/m);
    assert.match(m, /^apiserver_storage_objects\{resource="apiservices\.apiregistration\.k8s\.io"\} \d+$/m);
    for (const path of ['/foo', '/apis/nope.example.com/v1', '/api/v1/foos']) {
      assert.match(await env.k.fails(['get', '--raw', path]), /Error from server \(NotFound\): the server could not find the requested resource/);
    }
  });
});
