// A bound pod's graceful deletion finishes after its grace period, also across a restart.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBonsai } from '../../src/main.js';

it('removes a terminating pod once its grace period has passed, even after a restart', async () => {
  const data = mkdtempSync(join(tmpdir(), 'bonsai-grace-'));
  try {
    const first = await startBonsai({ port: 0, data, logLevel: 'silent' });
    const pods = first.registry.find('', 'v1', 'pods')!;
    first.registry.create(pods, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'slow' }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx' }] } });
    const r = first.registry.delete(pods, 'default', 'slow', { gracePeriodSeconds: 2 });
    assert.equal(r.deleted, false);
    assert.ok(r.object.metadata.deletionTimestamp);
    await first.close();

    const second = await startBonsai({ port: 0, data, logLevel: 'silent' });
    try {
      const url = `${second.url}/api/v1/namespaces/default/pods/slow`;
      assert.equal((await fetch(url)).status, 200, 'still terminating right after the restart');
      const deadline = Date.now() + 10_000;
      while ((await fetch(url)).status !== 404) {
        assert.ok(Date.now() < deadline, 'the pod was never removed');
        await new Promise((res) => setTimeout(res, 100));
      }
    } finally {
      await second.close();
    }
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
});
