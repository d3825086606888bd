// Pods wait for the Secrets and ConfigMaps they need, through real kubectl: a volume of a missing Secret keeps the pod
// ContainerCreating with FailedMount events until the Secret is created; a missing configMapKeyRef is
// CreateContainerConfigError until the ConfigMap exists; an optional reference starts at once.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;

const podWith = (name: string, container: Json, volumes?: Json[]) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'nginx', ...container }], ...(volumes ? { volumes } : {}) },
});

describe('pods wait for the Secrets and ConfigMaps they reference', () => {
  const env = useKubectlServer({ args: [...noAddons] });
  const pod = async (name: string) => JSON.parse(await env.k.ok(['get', 'pod', name, '-o', 'json'])) as Json;
  const status = async (name: string) => (await env.k.ok(['get', 'pod', name, '--no-headers'])).trim().split(/\s+/)[2];
  const events = async (name: string, reason: string) => (JSON.parse(await env.k.ok([
    'get', 'events', '--field-selector', `involvedObject.name=${name},reason=${reason}`, '-o', 'json',
  ])).items as Json[]);

  it('a missing Secret volume: ContainerCreating with FailedMount, then Running once the Secret exists', async () => {
    await eventually(async () => /\sReady\s/.test(await env.k.ok(['get', 'nodes', '--no-headers'])), 15_000, 'a Ready node');
    const volumes = [{ name: 'creds', secret: { secretName: 'db-creds' } }];
    await env.k.ok(['apply', '-f', '-'], { input: podWith('needs-secret', { volumeMounts: [{ name: 'creds', mountPath: '/creds' }] }, volumes) });
    const failed = await eventually(async () => (await events('needs-secret', 'FailedMount'))[0], 10_000, 'a FailedMount event');
    assert.equal(failed.type, 'Warning');
    assert.equal(failed.message, 'MountVolume.SetUp failed for volume "creds" : secret "db-creds" not found');
    assert.equal(failed.source?.component ?? failed.reportingComponent, 'kubelet');
    const p = await pod('needs-secret');
    assert.equal(p.status.phase, 'Pending');
    assert.equal(p.status.containerStatuses[0].state.waiting.reason, 'ContainerCreating');
    assert.equal(p.status.podIP, undefined);
    assert.equal(await status('needs-secret'), 'ContainerCreating');
    assert.match(await env.k.ok(['describe', 'pod', 'needs-secret']), /Warning\s+FailedMount\s.*MountVolume\.SetUp failed for volume "creds" : secret "db-creds" not found/);
    await env.k.ok(['create', 'secret', 'generic', 'db-creds', '--from-literal=password=s3cret']);
    await eventually(async () => (await status('needs-secret')) === 'Running', 15_000, 'Running after the Secret is created');
  });

  it('a missing key in a ConfigMap volume\'s items is named in the FailedMount event', async () => {
    await env.k.ok(['create', 'configmap', 'app-conf', '--from-literal=present=1']);
    const volumes = [{ name: 'conf', configMap: { name: 'app-conf', items: [{ key: 'absent', path: 'a' }] } }];
    await env.k.ok(['apply', '-f', '-'], { input: podWith('needs-key', { volumeMounts: [{ name: 'conf', mountPath: '/conf' }] }, volumes) });
    const failed = await eventually(async () => (await events('needs-key', 'FailedMount'))[0], 10_000, 'a FailedMount event');
    assert.equal(failed.message, 'MountVolume.SetUp failed for volume "conf" : configmap references non-existent config key: absent');
    assert.equal(await status('needs-key'), 'ContainerCreating');
  });

  it('a missing configMapKeyRef: CreateContainerConfigError, then Running once the ConfigMap exists', async () => {
    const container = { env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } }] };
    await env.k.ok(['apply', '-f', '-'], { input: podWith('needs-cm', container) });
    await eventually(async () => (await status('needs-cm')) === 'CreateContainerConfigError', 10_000, 'CreateContainerConfigError');
    const waiting = (await pod('needs-cm')).status.containerStatuses[0].state.waiting;
    assert.deepEqual(waiting, { reason: 'CreateContainerConfigError', message: 'configmap "settings" not found' });
    const failed = await eventually(async () => (await events('needs-cm', 'Failed'))[0], 10_000, 'a Failed event');
    assert.equal(failed.type, 'Warning');
    assert.equal(failed.message, 'Error: configmap "settings" not found');
    assert.equal(failed.involvedObject.fieldPath, 'spec.containers{c}');
    // The ConfigMap without the key: the message names the key.
    await env.k.ok(['create', 'configmap', 'settings', '--from-literal=other=x']);
    await eventually(async () => (await pod('needs-cm')).status.containerStatuses[0].state.waiting?.message === 'couldn\'t find key mode in ConfigMap default/settings',
      15_000, 'the missing key named');
    await env.k.ok(['create', 'configmap', 'settings', '--from-literal=mode=fast', '--dry-run=client', '-o', 'yaml']).then((yaml) =>
      env.k.ok(['apply', '-f', '-'], { input: yaml }));
    await eventually(async () => (await status('needs-cm')) === 'Running', 15_000, 'Running after the key exists');
  });

  it('optional references start at once', async () => {
    const container = {
      env: [{ name: 'T', valueFrom: { secretKeyRef: { name: 'nowhere', key: 'token', optional: true } } }],
      envFrom: [{ configMapRef: { name: 'nothing', optional: true } }],
      volumeMounts: [{ name: 'maybe', mountPath: '/maybe' }],
    };
    await env.k.ok(['apply', '-f', '-'], { input: podWith('optional', container, [{ name: 'maybe', secret: { secretName: 'absent', optional: true } }]) });
    await eventually(async () => (await status('optional')) === 'Running', 10_000, 'Running');
    assert.deepEqual(await events('optional', 'FailedMount'), []);
  });
});
