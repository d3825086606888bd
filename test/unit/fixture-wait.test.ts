// The fixture helpers on a Bonsai handle, in process: kubeConfig() for @kubernetes/client-node, kubeconfigPath,
// and the waits (resolved by the change feed, rejected on timeout, abort and close).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startBonsai, WaitError, type Bonsai } from '../../src/index.js';
import { findResource } from '../../src/fixture/wait.js';

describe('fixture helpers', () => {
  let b: Bonsai;
  let core: CoreV1Api;
  before(async () => {
    b = await startBonsai({ port: 0, data: ':memory:', addons: [] });
    core = (await b.kubeConfig()).makeApiClient(CoreV1Api);
  });
  after(() => b?.close());

  const cm = (name: string, data: Record<string, string> = {}) => core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name }, data } });

  it('kubeConfig() talks to the server with the admin credentials; a class passed in is used instead', async () => {
    const ns = await core.listNamespace();
    assert.deepEqual(ns.items.map((n) => n.metadata?.name).sort(), ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    const own = await b.kubeConfig(KubeConfig);
    assert.ok(own instanceof KubeConfig);
    assert.equal(own.getCurrentCluster()?.server, b.url);
    assert.equal(own.getCurrentUser()?.token, b.credentials.token);
  });

  it('kubeconfigPath is an absolute file for the server in a private temp folder', () => {
    const p = b.kubeconfigPath;
    assert.ok(isAbsolute(p), p);
    assert.equal(b.kubeconfigPath, p, 'written once, same path');
    const text = readFileSync(p, 'utf8');
    assert.match(text, new RegExp(`server: "${b.url}"`));
    assert.match(text, /current-context: bonsai/);
  });

  it('waitFor resolves when a later change satisfies the predicate, with the object', async () => {
    const w = b.waitFor('configmaps', 'default', 'later', (o) => o.data?.phase === 'two', { timeoutMs: 5000 });
    await cm('later', { phase: 'one' });
    await core.patchNamespacedConfigMap({ name: 'later', namespace: 'default', body: [{ op: 'replace', path: '/data/phase', value: 'two' }] });
    const o = await w;
    assert.equal(o.metadata.name, 'later');
    assert.equal(o.data.phase, 'two');
  });

  it('waitFor resolves at once when the object already matches; kubectl names and references resolve', async () => {
    await cm('now', { k: 'v' });
    for (const name of ['configmaps', 'configmap', 'cm', 'ConfigMap', 'v1/configmaps']) {
      const o = await b.waitFor(name, 'default', 'now', () => true, { timeoutMs: 1000 });
      assert.equal(o.metadata.name, 'now', name);
    }
    assert.equal(findResource(b.registry, 'deploy')?.group, 'apps');
    assert.equal(findResource(b.registry, 'deployments.apps')?.kind, 'Deployment');
    assert.equal(findResource(b.registry, 'apps/v1/deployments')?.kind, 'Deployment');
    assert.equal(findResource(b.registry, 'events')?.group, '', 'the core group wins a tie');
    assert.equal(findResource(b.registry, 'nosuchthing'), undefined);
  });

  it('waitFor on a Deployment reaching readyReplicas 3 (the example in docs/testing-with-bonsai.md)', async () => {
    const apps = (await b.kubeConfig()).makeApiClient(AppsV1Api);
    const labels = { app: 'web' };
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: { metadata: { name: 'web' }, spec: { replicas: 3, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } } },
    });
    const d = await b.waitFor('deployments', 'default', 'web', (o) => o.status?.readyReplicas === 3, { timeoutMs: 20_000 });
    assert.equal(d.status.readyReplicas, 3);
    const avail = await b.waitForCondition('deploy', 'default', 'web', 'Available', { timeoutMs: 20_000 });
    assert.equal(avail.metadata.name, 'web');
  });

  it('waitForCondition on a cluster-scoped kind; waitForDeleted', async () => {
    const node = (await core.listNode()).items[0].metadata!.name!;
    await b.waitForCondition('nodes', '', node, 'Ready', { timeoutMs: 10_000 });
    await cm('doomed');
    const gone = b.waitForDeleted('configmaps', 'default', 'doomed', { timeoutMs: 5000 });
    await core.deleteNamespacedConfigMap({ name: 'doomed', namespace: 'default' });
    await gone;
    await b.waitForDeleted('configmaps', 'default', 'never-existed', { timeoutMs: 1000 });
  });

  it('a wait times out with a WaitError naming the object and what was last seen', async () => {
    await cm('stuck', { phase: 'one' });
    const w = b.waitFor('configmaps', 'default', 'stuck', (o) => o.data?.phase === 'two', { timeoutMs: 150 });
    await assert.rejects(w, (e: unknown) => {
      assert.ok(e instanceof WaitError);
      assert.match(e.message, /timed out after 150 ms waiting for configmaps default\/stuck \(resourceVersion \d+/);
      return true;
    });
  });

  it('an abort signal and a throwing predicate reject the wait', async () => {
    const ac = new AbortController();
    const w = b.waitFor('configmaps', 'default', 'absent', () => true, { signal: ac.signal });
    ac.abort();
    await assert.rejects(w, /aborted waiting for configmaps default\/absent/);
    await cm('throws');
    await assert.rejects(b.waitFor('configmaps', 'default', 'throws', () => { throw new Error('boom'); }), /boom/);
  });

  it('a wait for a resource not served yet resolves once it is (a CRD installed later)', async () => {
    const w = b.waitFor('widgets.example.com', 'default', 'w1', () => true, { timeoutMs: 15_000 });
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    };
    const post = (path: string, body: unknown) => fetch(`${b.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${b.credentials.token}` }, body: JSON.stringify(body) });
    assert.equal((await post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
    await b.waitForCondition('customresourcedefinitions', '', 'widgets.example.com', 'Established', { timeoutMs: 15_000 });
    const r = await post('/apis/example.com/v1/namespaces/default/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' } });
    assert.equal(r.status, 201);
    assert.equal((await w).kind, 'Widget');
  });

  it('close rejects pending waits and removes the temp folder; later waits reject at once', async () => {
    const other = await startBonsai({ port: 0, data: ':memory:', addons: [], controllers: [] });
    try {
      const dir = dirname(other.kubeconfigPath);
      assert.ok(existsSync(dir));
      // The wait's rejection is handled before close, which rejects it and then takes its time to shut down.
      const w = assert.rejects(other.waitFor('configmaps', 'default', 'never', () => true), (e: unknown) => e instanceof WaitError && /closed/.test(e.message));
      await other.close();
      await w;
      await assert.rejects(other.waitFor('configmaps', 'default', 'x', () => true), WaitError);
      assert.equal(existsSync(dir), false, 'temp folder removed');
    } finally {
      await other.close(); // a no-op once closed
    }
  });

  it('over TLS, kubeConfig() carries the CA and the admin client certificate; kubeconfigPath is <data>/kubeconfig', async () => {
    const data = mkdtempSync(join(tmpdir(), 'bonsai-fx-tls-'));
    const secure = await startBonsai({ port: 0, data, addons: [], controllers: [], tls: true });
    try {
      assert.match(secure.url, /^https:/);
      const ns = await (await secure.kubeConfig()).makeApiClient(CoreV1Api).listNamespace();
      assert.ok(ns.items.some((n) => n.metadata?.name === 'kube-system'));
      assert.equal(secure.kubeconfigPath, join(data, 'kubeconfig'));
      assert.match(readFileSync(secure.kubeconfigPath, 'utf8'), /client-certificate-data/);
    } finally {
      await secure.close();
      assert.ok(existsSync(join(data, 'kubeconfig')), 'a data folder\'s kubeconfig stays');
      rmSync(data, { recursive: true, force: true });
    }
  });
});
