// Local APIServices follow what the registry serves (kube-apiserver's autoregister), and the status subresource.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertStatus, useBonsai } from './http.js';
import { syncLocalAPIServices } from '../../src/registry/resources/apiservices.js';

const AS = '/apis/apiregistration.k8s.io/v1/apiservices';

describe('APIServices', () => {
  const { env, req } = useBonsai();

  it('restores managed specs and removes managed APIServices of group versions no longer served', async () => {
    const stale = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.gone.example.com', labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } }, spec: { group: 'gone.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 } };
    assert.equal((await req('POST', AS, stale)).status, 201);
    const mine = { ...stale, metadata: { name: 'v1.mine.example.com' }, spec: { ...stale.spec, group: 'mine.example.com' } };
    assert.equal((await req('POST', AS, mine)).status, 201);
    const gone = await req('GET', `${AS}/v1.gone.example.com`);
    assert.deepEqual(gone.body.status.conditions.map((c: Record<string, string>) => [c.status, c.reason]), [['False', 'Local']]);
    const p = await req('PATCH', `${AS}/v1.apps`, { spec: { versionPriority: 1 } }, { contentType: 'application/merge-patch+json' });
    assert.equal(p.body.spec.versionPriority, 1);
    syncLocalAPIServices(env.b.registry);
    assert.equal((await req('GET', `${AS}/v1.gone.example.com`)).status, 404);
    assert.equal((await req('GET', `${AS}/v1.mine.example.com`)).status, 200, 'an APIService nobody manages stays');
    assert.equal((await req('GET', `${AS}/v1.apps`)).body.spec.versionPriority, 15);
  });

  it('writes status through the status subresource, validating condition statuses', async () => {
    const s = await req('PATCH', `${AS}/v1.batch/status`, { status: { conditions: [{ type: 'Available', status: 'Maybe' }] } }, { contentType: 'application/merge-patch+json' });
    assertStatus(s, 422, 'Invalid', /status\.conditions\[0\]\.status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"/);
    const ok = await req('PATCH', `${AS}/v1.batch/status`, { status: { conditions: [{ type: 'Available', status: 'False', reason: 'Testing' }] } }, { contentType: 'application/merge-patch+json' });
    assert.equal(ok.status, 200, ok.text);
    const t = await req('GET', `${AS}/v1.batch`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.deepEqual(t.body.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Service', 'Available', 'Age']);
    assert.deepEqual(t.body.rows[0].cells.slice(0, 3), ['v1.batch', 'Local', 'False (Testing)']);
  });

  it('defaults a service port to 443 and refuses a local one with a caBundle', async () => {
    const base = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.svc.example.com' }, spec: { group: 'svc.example.com', version: 'v1', groupPriorityMinimum: 10, versionPriority: 10 } };
    const r = await req('POST', AS, { ...base, spec: { ...base.spec, service: { namespace: 'default', name: 'kubernetes' } } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.spec.service.port, 443);
    assert.equal(r.body.status.conditions[0].reason, 'FailedDiscoveryCheck');
    const bad = await req('POST', AS, { ...base, metadata: { name: 'v2.svc.example.com' }, spec: { ...base.spec, version: 'v2', caBundle: 'AAAA' } });
    assertStatus(bad, 422, 'Invalid', /spec\.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle/);
  });
  it('lists an APIService nothing answers for as stale in discovery, and answers its paths 503', async () => {
    const visibility = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1beta1.visibility.example.com' }, spec: { group: 'visibility.example.com', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, insecureSkipTLSVerify: true, service: { namespace: 'default', name: 'kubernetes' } } };
    assert.equal((await req('POST', AS, visibility)).status, 201);
    const got = await req('GET', `${AS}/v1beta1.visibility.example.com`);
    assert.deepEqual(got.body.status.conditions.map((c: Record<string, string>) => [c.status, c.reason]), [['False', 'FailedDiscoveryCheck']]);
    const groups = await req('GET', '/apis');
    const listed = groups.body.groups.find((g: { name: string }) => g.name === 'visibility.example.com');
    assert.deepEqual(listed?.preferredVersion, { groupVersion: 'visibility.example.com/v1beta1', version: 'v1beta1' });
    const agg = await req('GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    const item = agg.body.items.find((g: { metadata: { name: string } }) => g.metadata.name === 'visibility.example.com');
    assert.deepEqual(item?.versions, [{ version: 'v1beta1', freshness: 'Stale' }]);
    for (const path of ['/apis/visibility.example.com/v1beta1', '/apis/visibility.example.com/v1beta1/namespaces/default/localqueues/q/pendingworkloads']) {
      const r = await req('GET', path);
      assert.equal(r.status, 503, path);
      assert.equal(r.text, 'service unavailable\n');
      assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
    }
    // Gone with its APIService.
    assert.equal((await req('DELETE', `${AS}/v1beta1.visibility.example.com`)).status, 200);
    assert.equal((await req('GET', '/apis/visibility.example.com/v1beta1')).status, 404);
    assert.equal((await req('GET', '/apis')).body.groups.some((g: { name: string }) => g.name === 'visibility.example.com'), false);
  });
});
