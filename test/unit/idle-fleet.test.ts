// An idle fleet costs only what upstream's kubelets and node controller do: a Lease renewal per node every 10 s,
// no node status write until one is due (5 min) or something changed, the node monitor touching only what moved,
// the garbage collector ignoring updates that keep an object's owners. Behaviour kept: a silent node still turns
// Unknown after the grace period, changed owners are still collected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node } from '../../src/generated/k8s/core/v1.js';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ManualClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { clientFor, type Client } from '../../src/client/client.js';
import { KubeletManager } from '../../src/kubelet/kubelet-manager.js';
import { nodeLifecycleController, nodeMonitorGracePeriodMs } from '../../src/controllers/node-lifecycle-controller.js';
import { Manager } from '../../src/controllers/runtime/index.js';
import { garbageCollectorController } from '../../src/controllers/garbage-collector.js';
import { leaseRenewMs, statusReportMs } from '../../src/kubelet/node-agent.js';
import type { KObject } from '../../src/machinery/types.js';

const leases = 'coordination.k8s.io/v1/leases';

class Fleet {
  readonly clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
  readonly store = new SqliteStore({ path: ':memory:' });
  readonly client: Client;
  readonly kubelets: KubeletManager;
  readonly controllers: Manager;
  /** Writes seen through the watch, by resource. */
  readonly writes = { leases: 0, nodes: 0 };
  private readonly stops: Array<() => void> = [];

  constructor(nodes: number) {
    const log = createLogger('silent');
    const reg = new Registry(this.store, allResources, this.clock, log);
    bootstrap(reg);
    this.client = clientFor(reg);
    for (let i = 0; i < nodes; i++) this.client.create('v1/nodes', '', { apiVersion: 'v1', kind: 'Node', metadata: { name: `n${i}`, labels: { 'topology.kubernetes.io/zone': `z${i % 2}` } } } as KObject);
    this.kubelets = new KubeletManager(this.client, this.clock, log);
    this.kubelets.start();
    this.controllers = new Manager({ client: this.client, clock: this.clock, log }).add(nodeLifecycleController).add(garbageCollectorController).start();
    this.stops.push(this.client.watch(leases, () => void this.writes.leases++));
    this.stops.push(this.client.watch('v1/nodes', () => void this.writes.nodes++));
  }

  async settle(): Promise<void> {
    for (let i = 0; i < 8; i++) await new Promise((r) => setImmediate(r));
  }

  /** Advances the clock in 500 ms steps (the kubelets' tick), letting notifications and queues run in between. */
  async run(ms: number): Promise<void> {
    await this.settle();
    for (let t = 0; t < ms; t += 500) {
      this.clock.advance(500);
      await this.settle();
    }
  }

  ready(name: string): string | undefined {
    const n = this.client.get('v1/nodes', '', name);
    return n?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  }

  close(): void {
    this.stops.forEach((s) => s());
    this.controllers.stop();
    this.kubelets.stop();
    this.store.close();
  }
}

test('an idle fleet renews each Lease every 10 s and writes no node status until a report is due', async () => {
  const f = new Fleet(40);
  try {
    await f.run(2000);
    assert.ok([...Array(40).keys()].every((i) => f.ready(`n${i}`) === 'True'), 'every node Ready');
    f.writes.leases = 0;
    f.writes.nodes = 0;
    await f.run(60_000);
    // 40 nodes × 60 s / 10 s, give or take the jitter at the window's edges.
    assert.ok(f.writes.leases >= 40 * 5 && f.writes.leases <= 40 * 7, `lease renewals in 60 s: ${f.writes.leases}`);
    assert.equal(f.writes.nodes, 0, 'no node writes while nothing changes');
    // Past the report period every node has posted its status once (heartbeat), not more.
    await f.run(statusReportMs + 0.04 * statusReportMs - 60_000);
    assert.ok(f.writes.nodes >= 40 && f.writes.nodes <= 80, `node status reports after 5 min: ${f.writes.nodes}`);
  } finally {
    f.close();
  }
});

test('renewed Leases keep nodes Ready past the grace period; a stopped kubelet turns its node Unknown', async () => {
  const f = new Fleet(6);
  try {
    await f.run(2000);
    await f.run(nodeMonitorGracePeriodMs + 3 * leaseRenewMs);
    for (let i = 0; i < 6; i++) assert.equal(f.ready(`n${i}`), 'True', `n${i} Ready on its Lease renewals alone`);
    f.kubelets.setStopped('n3', true);
    await f.run(nodeMonitorGracePeriodMs + leaseRenewMs);
    assert.equal(f.ready('n3'), 'Unknown', 'the silent node is Unknown');
    for (const i of [0, 1, 2, 4, 5]) assert.equal(f.ready(`n${i}`), 'True', `n${i} still Ready`);
    f.kubelets.setStopped('n3', false);
    await f.run(6000);
    assert.equal(f.ready('n3'), 'True', 'Ready again once its kubelet posts status');
  } finally {
    f.close();
  }
});

test('a node someone else changes is reconciled by its kubelet at the next tick', async () => {
  const f = new Fleet(3);
  try {
    await f.run(2000);
    // Knock the Ready condition out from under the kubelet: it posts its own status again.
    await f.client.guaranteedUpdate('v1/nodes', '', 'n1', (cur) => {
      const status = cur.status as Node['status'];
      return { ...cur, status: { ...status, conditions: status?.conditions?.filter((c) => c.type !== 'Ready') } };
    }, { subresource: 'status' });
    assert.equal(f.ready('n1'), undefined);
    await f.run(1000);
    assert.equal(f.ready('n1'), 'True', 'the kubelet restored its condition');
  } finally {
    f.close();
  }
});

test('the garbage collector still collects what loses its owner, whatever the updates in between', async () => {
  const f = new Fleet(1);
  try {
    await f.run(1000);
    const owner = await f.client.create('v1/configmaps', 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } } as KObject);
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid ?? '' };
    await f.client.create('v1/configmaps', 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dep', ownerReferences: [ref] } } as KObject);
    await f.client.create('v1/configmaps', 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'moved' }, data: { a: '1' } } as KObject);
    await f.run(1000);
    // An update that keeps the owners (data only) and one that points at an owner that does not exist.
    await f.client.guaranteedUpdate('v1/configmaps', 'default', 'dep', (cur) => ({ ...cur, data: { b: '2' } }));
    await f.client.guaranteedUpdate('v1/configmaps', 'default', 'moved', (cur) => ({ ...cur, metadata: { ...cur.metadata, ownerReferences: [{ ...ref, name: 'gone', uid: 'no-such-uid' }] } }));
    await f.run(1000);
    assert.ok(f.client.get('v1/configmaps', 'default', 'dep'), 'a dependent whose owner exists stays');
    assert.equal(f.client.get('v1/configmaps', 'default', 'moved'), undefined, 'an object whose new owner is missing is collected');
    await f.client.delete('v1/configmaps', 'default', 'owner');
    await f.run(1000);
    assert.equal(f.client.get('v1/configmaps', 'default', 'dep'), undefined, 'the dependent goes with its owner');
    // The node's Lease (owned by the Node) was renewed all along and is still there.
    assert.ok(f.client.get(leases, 'kube-node-lease', 'n0'));
  } finally {
    f.close();
  }
});
