// Pods held back for Secrets and ConfigMaps, on a manual clock: FailedMount retries back off from 500 ms, a Secret
// written in the namespace wakes the pod at once, projected sources aggregate their errors, and env references fail
// init and main containers with CreateContainerConfigError until they resolve.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { type Harness, podSpec, withHarness } from './kubelet-harness.js';
import type { KObject } from '../../src/machinery/types.js';

const waiting = (p: Pod | undefined, init = false) => (init ? p?.status?.initContainerStatuses : p?.status?.containerStatuses)?.[0]?.state?.waiting;
const failedMounts = (h: Harness, name: string) => h.events(name).filter((e) => e.reason === 'FailedMount');

async function put(h: Harness, resource: 'secrets' | 'configmaps', name: string, data: Record<string, string>): Promise<void> {
  const def = h.reg.find('', 'v1', resource)!;
  await h.reg.create(def, 'default', { apiVersion: 'v1', kind: resource === 'secrets' ? 'Secret' : 'ConfigMap', metadata: { name }, data } as KObject);
}

test('a missing Secret volume retries with back-off and starts once the Secret is created', () => withHarness(async (h) => {
  await h.create(podSpec('web', { containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'creds', secret: { secretName: 'db' } }] }));
  await h.run(100);
  const first = failedMounts(h, 'web');
  assert.equal(first.length, 1);
  assert.equal(first[0].message, 'MountVolume.SetUp failed for volume "creds" : secret "db" not found');
  assert.equal(first[0].type, 'Warning');
  const p = h.pod('web');
  assert.equal(p?.status?.phase, 'Pending');
  assert.equal(waiting(p)?.reason, 'ContainerCreating');
  assert.equal(p?.status?.podIP, undefined);
  // Attempts at 0, 0.5, 1.5, 3.5 and 7.5 s: one event each (aggregated into counts by the recorder).
  await h.run(7500);
  const count = failedMounts(h, 'web').reduce((n, e) => n + (e.count ?? 1), 0);
  assert.equal(count, 5);
  await put(h, 'secrets', 'db', { password: 'eA==' });
  await h.run(400);
  assert.equal(h.pod('web')?.status?.phase, 'Running');
}));

test('projected sources aggregate their errors; a missing item key is named', () => withHarness(async (h) => {
  await put(h, 'configmaps', 'conf', { present: '1' });
  // What the root-ca-certificate-publisher puts in every namespace (this harness runs no controllers).
  await put(h, 'configmaps', 'kube-root-ca.crt', { 'ca.crt': '-----BEGIN CERTIFICATE-----\n' });
  await h.create(podSpec('proj', {
    containers: [{ name: 'c', image: 'nginx' }],
    volumes: [
      { name: 'all', projected: { sources: [{ secret: { name: 's1' } }, { configMap: { name: 'conf', items: [{ key: 'absent', path: 'a' }] } }, { downwardAPI: { items: [] } }] } },
      { name: 'sec', secret: { secretName: 's2', items: [{ key: 'k', path: 'k' }], optional: true } },
      { name: 'root', projected: { sources: [{ configMap: { name: 'kube-root-ca.crt' } }, { serviceAccountToken: { path: 'token' } }] } },
    ],
  }));
  await h.run(100);
  assert.deepEqual(failedMounts(h, 'proj').map((e) => e.message), [
    'MountVolume.SetUp failed for volume "all" : [secret "s1" not found, configmap references non-existent config key: absent]',
  ]);
  await put(h, 'secrets', 's1', {});
  await h.run(100);
  assert.equal(waiting(h.pod('proj'))?.reason, 'ContainerCreating');
}));

test('env references: CreateContainerConfigError with Failed events until they resolve, init containers too', () => withHarness(async (h) => {
  await h.create(podSpec('envs', {
    initContainers: [{ name: 'setup', image: 'busybox', command: ['true'], envFrom: [{ secretRef: { name: 'bundle' } }] }],
    containers: [{ name: 'c', image: 'nginx', env: [{ name: 'P', valueFrom: { secretKeyRef: { name: 'bundle', key: 'pw' } } }] }],
  }));
  await h.run(1000);
  assert.deepEqual(waiting(h.pod('envs'), true), { reason: 'CreateContainerConfigError', message: 'secret "bundle" not found' });
  const failed = h.events('envs').filter((e) => e.reason === 'Failed');
  assert.deepEqual(failed.map((e) => [e.type, e.message, e.involvedObject.fieldPath]), [['Warning', 'Error: secret "bundle" not found', 'spec.initContainers{setup}']]);
  await put(h, 'secrets', 'bundle', { user: 'dQ==' });
  await h.run(1000);
  assert.deepEqual(waiting(h.pod('envs')), { reason: 'CreateContainerConfigError', message: 'couldn\'t find key pw in Secret default/bundle' });
  const def = h.reg.find('', 'v1', 'secrets')!;
  await h.reg.update(def, 'default', 'bundle', () => ({ ...(h.store.get('core/secrets', 'default', 'bundle') as KObject), data: { user: 'dQ==', pw: 'cA==' } }));
  await h.run(1000);
  assert.equal(h.pod('envs')?.status?.phase, 'Running');
}));
