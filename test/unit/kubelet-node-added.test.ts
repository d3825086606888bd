// A Node added while many pods exist costs the kubelet manager no scan of every pod when no agent of this process
// ever served that name (no pod can hold an IP of its kubelet); a node re-created under a name served before is
// still scanned, so the pods left bound to it keep their IPs out of the new agent's hands.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ManualClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { clientFor, type Client } from '../../src/client/client.js';
import { KubeletManager } from '../../src/kubelet/kubelet-manager.js';
import type { KObject } from '../../src/machinery/types.js';

const node = (name: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } }) as KObject;

async function until(what: string, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setImmediate(r));
  assert.ok(cond(), what);
}

test('an added node is not served by scanning every pod; a re-created one is', async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
  const store = new SqliteStore({ path: ':memory:' });
  const log = createLogger('silent');
  const reg = new Registry(store, allResources, clock, log);
  bootstrap(reg);
  const client = clientFor(reg);
  let podLists = 0;
  const counting = new Proxy(client, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (prop === 'list') return (res: string, ...rest: unknown[]) => {
        if (res === 'v1/pods') podLists++;
        return (target.list as (...a: unknown[]) => unknown)(res, ...rest);
      };
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as Client;
  client.create('v1/nodes', '', node('n0'));
  const kubelets = new KubeletManager(counting, clock, log);
  kubelets.start();
  try {
    await until('n0 served', () => !!kubelets.agent('n0'));
    const atStart = podLists;
    for (let i = 0; i < 5; i++) {
      client.create('v1/pods', 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}` }, spec: { nodeName: 'n0', containers: [{ name: 'c', image: 'pause' }] } });
    }
    client.create('v1/nodes', '', node('n1'));
    await until('n1 served', () => !!kubelets.agent('n1'));
    assert.equal(podLists, atStart, 'a node added under a new name lists no pods');
    await client.delete('v1/nodes', '', 'n0');
    await until('n0 stopped', () => !kubelets.agent('n0'));
    client.create('v1/nodes', '', node('n0'));
    await until('n0 served again', () => !!kubelets.agent('n0'));
    assert.ok(podLists > atStart, 'a node re-created under a name served before is scanned for its pods\' IPs');
  } finally {
    kubelets.stop();
    store.close();
  }
});
