// Official client libraries against a real server: @kubernetes/client-node (typed API + list/watch informer)
// and the Python `kubernetes` package (list, create, watch.stream).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ApiException, AppsV1Api, CoreV1Api, KubeConfig, ListWatch, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { projectRoot, startServer, type ServerHandle } from '../helpers/server.js';
import { noAddons } from '../helpers/cluster.js';
import { eventually } from '../helpers/kubectl.js';

const python = '/usr/bin/python3';
const pythonScript = join(projectRoot, 'test', 'fixtures', 'python', 'watch_configmaps.py');
const pythonWorkloads = join(projectRoot, 'test', 'fixtures', 'python', 'workloads.py');
const pythonProbe = spawnSync(python, ['-c', 'import kubernetes'], { encoding: 'utf8' });
const pythonSkip = pythonProbe.status === 0 ? false : `${python} cannot import kubernetes (install python3-kubernetes; .ci/run does): ${(pythonProbe.stderr ?? String(pythonProbe.error)).trim().split('\n').pop()}`;

const cm = (name: string, data: Record<string, string>, extra: Partial<V1ConfigMap['metadata']> = {}): V1ConfigMap => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data,
});

describe('client libraries', () => {
  let server: ServerHandle;
  let kc: KubeConfig;
  let core: CoreV1Api;
  before(async () => {
    server = await startServer({ args: [...noAddons] });
    kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    core = kc.makeApiClient(CoreV1Api);
  });
  after(async () => {
    await server.stop();
    server.cleanup();
  });

  it('client-node: typed CRUD, conflicts and errors', async () => {
    assert.equal(kc.getCurrentCluster()?.server, server.url);
    const ns = await core.createNamespace({ body: { metadata: { name: 'node-crud' } } });
    assert.equal(ns.metadata?.name, 'node-crud');
    const created = await core.createNamespacedConfigMap({ namespace: 'node-crud', body: cm('one', { a: '1' }, { labels: { tier: 'x' } }) });
    assert.equal(created.metadata?.namespace, 'node-crud');
    assert.match(created.metadata?.resourceVersion ?? '', /^\d+$/);
    assert.ok(created.metadata?.uid);
    const read = await core.readNamespacedConfigMap({ name: 'one', namespace: 'node-crud' });
    assert.deepEqual(read.data, { a: '1' });
    assert.equal(read.metadata?.resourceVersion, created.metadata?.resourceVersion);

    const replaced = await core.replaceNamespacedConfigMap({ name: 'one', namespace: 'node-crud', body: { ...read, data: { a: '2' } } });
    assert.ok(Number(replaced.metadata!.resourceVersion) > Number(read.metadata!.resourceVersion));
    // A replace carrying the old resourceVersion is a conflict.
    await assert.rejects(core.replaceNamespacedConfigMap({ name: 'one', namespace: 'node-crud', body: { ...read, data: { a: '3' } } }),
      (e: unknown) => e instanceof ApiException && e.code === 409);
    await assert.rejects(core.readNamespacedConfigMap({ name: 'missing', namespace: 'node-crud' }),
      (e: unknown) => e instanceof ApiException && e.code === 404);
    await assert.rejects(core.createNamespacedConfigMap({ namespace: 'node-crud', body: cm('one', {}) }),
      (e: unknown) => e instanceof ApiException && e.code === 409);

    const list = await core.listNamespacedConfigMap({ namespace: 'node-crud', labelSelector: 'tier=x' });
    assert.deepEqual(list.items.map((i) => i.metadata?.name), ['one']);
    assert.match(list.metadata?.resourceVersion ?? '', /^\d+$/);
  });

  it('client-node: a delete answers a Status, a just-created workload carries its status', async () => {
    await core.createNamespace({ body: { metadata: { name: 'node-delete' } } });
    const made = await core.createNamespacedConfigMap({ namespace: 'node-delete', body: cm('doomed', { a: '1' }) });
    const status = await core.deleteNamespacedConfigMap({ name: 'doomed', namespace: 'node-delete' });
    assert.equal(status.kind, 'Status');
    assert.equal(status.status, 'Success');
    assert.deepEqual({ ...status.details }, { name: 'doomed', kind: 'configmaps', uid: made.metadata?.uid });
    const apps = kc.makeApiClient(AppsV1Api);
    const labels = { app: 'node-web' };
    const d = await apps.createNamespacedDeployment({ namespace: 'node-delete', body: {
      metadata: { name: 'node-web' }, spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
    } });
    assert.deepEqual({ ...d.status }, {});
    const del = await apps.deleteNamespacedDeployment({ name: 'node-web', namespace: 'node-delete' });
    assert.equal(del.status, 'Success');
    assert.equal(del.details?.group, 'apps');
  });

  it('python client: reads the status of workloads it has just created, and gets a Status from a delete', { skip: pythonSkip }, async () => {
    await core.createNamespace({ body: { metadata: { name: 'py-apps' } } });
    const r = spawnSync(python, [pythonWorkloads, server.kubeconfig, 'py-apps'], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, `python failed: ${r.stderr}`);
    assert.deepEqual(JSON.parse(r.stdout), {
      deployment: { available_replicas: null, replicas: null },
      statefulset: { replicas: 0, available_replicas: 0 },
      daemonset: { desired: 0, ready: 0 },
      delete: { type: 'V1Status', status: 'Success', kind: 'configmaps', name: 'py-gone' },
    });
  });

  it('client-node: an informer sees every add, update and delete in order', async () => {
    const namespace = 'informer';
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    // The namespace's kube-root-ca.crt, which kube-controller-manager publishes in every namespace, is there too.
    await eventually(async () => (await core.listNamespacedConfigMap({ namespace })).items.length === 1, 10_000, 'kube-root-ca.crt');
    // Two ConfigMaps exist before the informer starts: they arrive through its initial list.
    for (const n of ['pre-0', 'pre-1']) await core.createNamespacedConfigMap({ namespace, body: cm(n, { v: '0' }) });
    // Something in another namespace must not show up.
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('elsewhere', { v: '0' }) });

    // makeInformer returns a ListWatch, which is also the cache (list/get).
    const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => core.listNamespacedConfigMap({ namespace })) as ListWatch<V1ConfigMap>;
    const seen: Array<{ verb: string; name: string; v?: string; rv: number }> = [];
    const errors: unknown[] = [];
    const record = (verb: string) => (o: V1ConfigMap) => seen.push({ verb, name: o.metadata!.name!, v: o.data?.v, rv: Number(o.metadata!.resourceVersion) });
    informer.on('add', record('add'));
    informer.on('update', record('update'));
    informer.on('delete', record('delete'));
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    try {
      await eventually(() => seen.length >= 3, 10_000, 'initial list');
      assert.deepEqual(seen.map((s) => `${s.verb}:${s.name}:${s.v}`).sort(), ['add:kube-root-ca.crt:undefined', 'add:pre-0:0', 'add:pre-1:0']);

      // Each write and the event the informer should report for it, with the resourceVersion the server returned.
      const expected: Array<{ verb: string; name: string; v?: string; rv: number }> = [];
      const rvOf = (o: V1ConfigMap) => Number(o.metadata!.resourceVersion);
      const create = async (name: string, v: string) => {
        const o = await core.createNamespacedConfigMap({ namespace, body: cm(name, { v }) });
        expected.push({ verb: 'add', name, v, rv: rvOf(o) });
      };
      const update = async (name: string, v: string) => {
        const cur = await core.readNamespacedConfigMap({ name, namespace });
        const o = await core.replaceNamespacedConfigMap({ name, namespace, body: { ...cur, data: { v } } });
        expected.push({ verb: 'update', name, v, rv: rvOf(o) });
      };
      const remove = async (name: string, v: string) => {
        await core.deleteNamespacedConfigMap({ name, namespace });
        expected.push({ verb: 'delete', name, v, rv: NaN });
      };
      await create('a', '1');
      await create('b', '1');
      await update('a', '2');
      await update('pre-0', '1');
      await remove('b', '1');
      await create('c', '1');
      await update('a', '3');
      await remove('pre-1', '0');
      await create('b', '2'); // re-created after its deletion
      await update('c', '2');
      await remove('a', '3');
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('elsewhere-2', { v: '0' }) });
      await create('z-last', '1'); // arrives last: nothing unexpected came before it

      const events = await eventually(() => (seen.length >= 3 + expected.length ? seen.slice(3) : undefined), 10_000, `${expected.length} informer events (saw ${seen.length - 3})`);
      assert.deepEqual(events.map((e) => `${e.verb}:${e.name}:${e.v}`), expected.map((e) => `${e.verb}:${e.name}:${e.v}`));
      for (const [i, e] of expected.entries()) if (!Number.isNaN(e.rv)) assert.equal(events[i].rv, e.rv, `event ${i} (${e.verb} ${e.name}) carries the written resourceVersion`);
      for (let i = 1; i < events.length; i++) assert.ok(events[i].rv > events[i - 1].rv, `resourceVersions increase: ${events.map((e) => e.rv).join(',')}`);

      // The cache equals the server's list.
      const list = await core.listNamespacedConfigMap({ namespace });
      assert.equal(informer.latestResourceVersion(), String(events[events.length - 1].rv));
      const summary = (items: readonly V1ConfigMap[]) => items.map((o) => `${o.metadata!.namespace}/${o.metadata!.name}@${o.metadata!.resourceVersion}=${o.data?.v}`).sort();
      assert.deepEqual(summary(informer.list()), summary(list.items));
      assert.deepEqual(summary(informer.list()).map((s) => s.replace(/@\d+/, '')), ['informer/b=2', 'informer/c=2', 'informer/kube-root-ca.crt=undefined', 'informer/pre-0=1', 'informer/z-last=1']);
      assert.equal(informer.get('c', namespace)?.data?.v, '2');
      assert.equal(informer.get('a', namespace), undefined);
      assert.deepEqual(errors, []);
    } finally {
      await informer.stop();
    }
  });

  it('python client: lists, creates and watches configmaps', { skip: pythonSkip }, async () => {
    const namespace = 'py';
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await core.createNamespacedPod({ namespace, body: { metadata: { name: 'py-pod' }, spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] } } });
    await core.createNamespacedConfigMap({ namespace, body: cm('py-before', { v: '0' }) });

    const proc = spawn(python, [pythonScript, server.kubeconfig, namespace, '20'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
    const killer = setTimeout(() => proc.kill('SIGKILL'), 40_000);
    const lines = () => stdout.split('\n').slice(0, -1).filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
    try {
      await eventually(() => lines().some((l) => l.kind === 'watching') || proc.exitCode !== null, 20_000, 'the python script to start watching');
      assert.equal(proc.exitCode, null, `python exited early: ${stdout}\n${stderr}`);

      // Writes from this side, as the script watches (it watches from its own ConfigMap's resourceVersion, so none are missed).
      await core.createNamespacedConfigMap({ namespace, body: cm('py-a', { v: '1' }) });
      const a = await core.readNamespacedConfigMap({ name: 'py-a', namespace });
      await core.replaceNamespacedConfigMap({ name: 'py-a', namespace, body: { ...a, data: { v: '2' } } });
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('py-other-namespace', { v: '1' }) });
      await core.deleteNamespacedConfigMap({ name: 'py-a', namespace });
      await core.deleteNamespacedConfigMap({ name: 'py-before', namespace });
      await core.createNamespacedConfigMap({ namespace, body: cm('py-done', { v: '1' }) });

      const code = await exited;
      assert.equal(code, 0, `python failed: ${stderr}`);
      const out = lines();
      const nsLine = out.find((l) => l.kind === 'namespaces')!;
      for (const n of ['default', 'kube-system', namespace]) assert.ok(nsLine.names.includes(n), `namespaces ${nsLine.names} include ${n}`);
      assert.match(nsLine.resourceVersion, /^\d+$/);
      const podLine = out.find((l) => l.kind === 'pods')!;
      assert.deepEqual(podLine.pods.filter((p: any) => p.namespace === namespace), [{ namespace, name: 'py-pod', images: ['busybox:1.36'] }]);
      const created = out.find((l) => l.kind === 'created')!;
      assert.equal(created.name, 'py-created');
      assert.deepEqual(created.data, { greeting: 'hello from python' });

      const events = out.filter((l) => l.kind === 'event');
      assert.deepEqual(events.map((e) => `${e.type} ${e.name} ${e.data?.v}`), [
        'ADDED py-a 1',
        'MODIFIED py-a 2',
        'DELETED py-a 2',
        'DELETED py-before 0',
        'ADDED py-done 1',
      ]);
      for (const e of events) assert.ok(Number(e.resourceVersion) > Number(created.resourceVersion), `event ${e.type} ${e.name} is after the script's own write`);
      for (let i = 1; i < events.length; i++) assert.ok(Number(events[i].resourceVersion) > Number(events[i - 1].resourceVersion));
      assert.equal(out[out.length - 1].kind, 'end');

      // What Python created is really there, as Python described it.
      const fromPython = await core.readNamespacedConfigMap({ name: 'py-created', namespace });
      assert.equal(fromPython.metadata?.uid, created.uid);
      assert.deepEqual(fromPython.metadata?.labels, { 'made-by': 'python' });
      assert.deepEqual(fromPython.data, { greeting: 'hello from python' });
    } finally {
      clearTimeout(killer);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
  });
});
