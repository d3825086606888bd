// A running pod's graceful deletion is finished by its node's simulated kubelet, also across a restart.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBonsai } from '../../src/main.js';
import { testStorage } from './http.js';
import { eventually } from '../helpers/kubectl.js';

it('the kubelet removes a terminating pod after its preStop hook, even after a restart', async () => {
  const data = mkdtempSync(join(tmpdir(), 'bonsai-grace-'));
  // In the etcd test mode the restart reloads from etcd.
  const storage = await testStorage();
  try {
    const first = await startBonsai({ port: 0, data, logLevel: 'silent', ...storage.options });
    const pods = first.registry.find('', 'v1', 'pods')!;
    await first.registry.create(pods, 'default', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'slow' },
      spec: { nodeName: 'bonsai-worker-1', containers: [{ name: 'c', image: 'nginx', lifecycle: { preStop: { sleep: { seconds: 2 } } } }] },
    });
    await eventually(() => (first.registry.getStored('core/pods', 'default', 'slow')?.status as { phase?: string } | undefined)?.phase === 'Running', 10_000, 'pod running');
    const r = await first.registry.delete(pods, 'default', 'slow', { gracePeriodSeconds: 30 });
    assert.equal(r.deleted, false);
    assert.ok(r.object.metadata.deletionTimestamp);
    await first.close();

    const second = await startBonsai({ port: 0, data, logLevel: 'silent', ...storage.options });
    try {
      const url = `${second.url}/api/v1/namespaces/default/pods/slow`;
      const body = await (await fetch(url)).json() as { metadata: { deletionTimestamp?: string } };
      assert.ok(body.metadata.deletionTimestamp, 'still terminating right after the restart');
      await eventually(async () => (await fetch(url)).status === 404, 10_000, 'the kubelet to remove the pod');
    } finally {
      await second.close();
    }
  } finally {
    rmSync(data, { recursive: true, force: true });
    await storage.stop();
  }
});
