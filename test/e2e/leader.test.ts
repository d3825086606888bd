// Leader election in one process on a local store: the Leases are taken before startBonsai resolves, the components
// run, losing a Lease stops its component, close() releases every Lease; `--kubelets` shards and API-only replicas.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../helpers/kubectl.js';
import { startBonsai, type Bonsai } from '../../src/main.js';
import { clientFor } from '../../src/client/client.js';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { leaseNames, leaseResource, shardOf } from '../../src/leader/index.js';
import type { KObject } from '../../src/machinery/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const allLeases = Object.values(leaseNames).sort();
const leaseKey = 'coordination.k8s.io/leases';
const holders = (b: Bonsai) => Object.fromEntries(allLeases.map((n) => [n, (b.store.get(leaseKey, 'kube-system', n)?.spec as Json | undefined)?.holderIdentity]));
const pod = (name: string): KObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

describe('leader election in one process', () => {
  it('leads at once: every Lease held by <hostname>_<uuid> when startBonsai resolves, and the cluster works', async () => {
    const b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', cluster: { nodes: 1 }, addons: [] });
    try {
      assert.match(b.election.identity, new RegExp(`^${hostname().replace(/[.]/g, '\\.')}_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`));
      assert.deepEqual(b.election.leading().sort(), allLeases);
      for (const holder of Object.values(holders(b))) assert.equal(holder, b.election.identity);
      const events = (b.store.list('core/events', 'kube-system') as Json[]).filter((e) => e.reason === 'LeaderElection').map((e) => `${e.involvedObject.name}: ${e.message}`);
      for (const n of allLeases) assert.ok(events.includes(`${n}: ${b.election.identity} became leader`), `${n}: ${events.join('; ')}`);
      const client = clientFor(b.registry);
      client.create('v1/pods', 'default', pod('web'));
      await eventually(() => (client.get<Json>('v1/pods', 'default', 'web')?.status?.phase === 'Running') || undefined, 15_000, 'the pod scheduled and Running');
    } finally {
      await b.close();
    }
  });

  it('stops components when their Lease is taken, starts them again on taking it back, and releases every Lease on close', async () => {
    const data = mkdtempSync(join(tmpdir(), 'bonsai-leader-'));
    try {
      const b = await startBonsai({ port: 0, data, logLevel: 'silent', cluster: { nodes: 1 }, addons: [] });
      const client = clientFor(b.registry);
      try {
        const taken: string[] = [leaseNames.scheduler, leaseNames.kubelets];
        for (const n of taken) await client.guaranteedUpdate(leaseResource, 'kube-system', n, (cur) => ({ ...cur, spec: { ...(cur.spec as object), holderIdentity: 'intruder' } }));
        // The next renewal (within 2 s) sees another holder: the scheduler and the kubelets stop. The store is local,
        // so the intruder can only be a leftover: the process takes the Leases back at its next try.
        await eventually(() => taken.every((n) => !b.election.leading().includes(n)) || undefined, 5_000, 'the scheduler and kubelets stopped leading');
        assert.deepEqual(b.election.leading().sort(), allLeases.filter((n) => !taken.includes(n)));
        await eventually(() => taken.every((n) => b.election.leading().includes(n)) || undefined, 10_000, 'the scheduler and kubelets leading again');
        // Started again: a new pod is scheduled and run.
        client.create('v1/pods', 'default', pod('after'));
        await eventually(() => (client.get<Json>('v1/pods', 'default', 'after')?.status?.phase === 'Running') || undefined, 15_000, 'a pod Running after the handover');
        const lease = client.get<Json>(leaseResource, 'kube-system', leaseNames.scheduler)!;
        assert.equal(lease.spec.holderIdentity, b.election.identity);
        assert.equal(lease.spec.leaseTransitions, 1);
        const messages = (client.list<Json>('v1/events', 'kube-system')).filter((e) => e.reason === 'LeaderElection' && e.involvedObject.name === leaseNames.scheduler).map((e) => e.message);
        assert.ok(messages.includes(`${b.election.identity} stopped leading`), messages.join('; '));
      } finally {
        await b.close();
      }
      // Released: no holder, a 1 s duration (a survivor on a shared store would take over at once).
      const store = new SqliteStore({ path: join(data, 'bonsai.db') });
      try {
        for (const n of allLeases) {
          const spec = store.get(leaseKey, 'kube-system', n)?.spec as Json;
          assert.equal(spec.holderIdentity, '', n);
          assert.equal(spec.leaseDurationSeconds, 1, n);
        }
      } finally {
        store.close();
      }
      // The next run on the same data leads at once, one transition later.
      const again = await startBonsai({ port: 0, data, logLevel: 'silent', cluster: { nodes: 1 }, addons: [] });
      try {
        assert.deepEqual(again.election.leading().sort(), allLeases);
        assert.equal((again.store.get(leaseKey, 'kube-system', leaseNames.controllerManager)?.spec as Json).leaseTransitions, 1);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});

describe('--kubelets', () => {
  it('a shard registers and runs only the nodes whose name hashes to it', async () => {
    const b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', cluster: { nodes: 8 }, addons: [], kubelets: '1/2' });
    try {
      assert.ok(!b.election.leading().includes(leaseNames.kubelets), 'sharded kubelets do not campaign');
      const nodes = b.store.list('core/nodes').map((n) => n.metadata.name ?? '');
      const planned = [...Array.from({ length: 8 }, (_, i) => `bonsai-worker-${i + 1}`), 'bonsai-gpu-1'];
      assert.deepEqual(nodes.sort(), planned.filter((n) => shardOf(n, 2) === 1).sort());
      assert.ok(nodes.length > 0 && nodes.length < planned.length, nodes.join(' '));
      // Nodes created through the API: this process's shard gets a kubelet (its node Lease), the other shard's not.
      const client = clientFor(b.registry);
      const mine = ['edge-a', 'edge-b', 'edge-c', 'edge-d', 'edge-e'].find((n) => shardOf(n, 2) === 1)!;
      const theirs = ['edge-a', 'edge-b', 'edge-c', 'edge-d', 'edge-e'].find((n) => shardOf(n, 2) === 0)!;
      for (const name of [mine, theirs]) client.create('v1/nodes', '', { apiVersion: 'v1', kind: 'Node', metadata: { name } });
      await eventually(() => client.get(leaseResource, 'kube-node-lease', mine), 10_000, `${mine}'s node lease`);
      assert.equal(client.get(leaseResource, 'kube-node-lease', theirs), undefined, `${theirs} served by this shard`);
      // Stopping another process's node goes through its annotation.
      b.setNodeStopped(theirs, true);
      assert.equal(client.get('v1/nodes', '', theirs)?.metadata.annotations?.['bonsai.dev/stopped'], 'true');
    } finally {
      await b.close();
    }
  });

  it('none: an API-only replica runs no kubelet, but its controllers still run', async () => {
    const b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', cluster: { nodes: 2 }, addons: [], kubelets: 'none' });
    try {
      assert.equal(b.store.count('core/nodes'), 0);
      assert.deepEqual(b.election.leading().sort(), allLeases.filter((n) => n !== leaseNames.kubelets));
      const client = clientFor(b.registry);
      client.create('apps/v1/replicasets', 'default', {
        apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs' },
        spec: { replicas: 2, selector: { matchLabels: { app: 'rs' } }, template: { metadata: { labels: { app: 'rs' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      });
      await eventually(() => client.list('v1/pods', 'default').length === 2 || undefined, 10_000, 'two pods');
    } finally {
      await b.close();
    }
  });

  it('refuses what is neither a shard nor a selector', async () => {
    await assert.rejects(startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', kubelets: '2/2' }), /kubelets: shard 2\/2/);
  });
});
