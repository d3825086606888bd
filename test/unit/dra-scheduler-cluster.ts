// A scheduler on an in-memory registry with one Ready node whose driver publishes GPUs, and the GPU DeviceClass: the
// cluster of the DRA scheduling tests, driven by a manual clock (`until` advances it while the scheduler works).
import assert from 'node:assert/strict';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ManualClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { clientFor, type Client } from '../../src/client/client.js';
import { startScheduler } from '../../src/scheduler/index.js';
import { gpuClass, gpuNode, type GpuModel } from './dra-fixtures.js';

export interface DraCluster {
  client: Client;
  /** Polls (letting the scheduler, its backoff timers and the selector engine's loading run) until `cond` holds; `state` says what was seen otherwise. */
  until(cond: () => boolean, what: string, state: () => unknown): Promise<void>;
  /** Starts the scheduler (once the objects made before it are committed); `stop` stops it and closes the store. */
  start(): Promise<void>;
  stop(): void;
}

export function draCluster(o: { gpus: number; model: GpuModel; allocatable?: Record<string, string> }): DraCluster {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const store = new SqliteStore({ path: ':memory:' });
  const reg = new Registry(store, allResources, clock, createLogger('silent'));
  bootstrap(reg);
  const client = clientFor(reg);
  const now = new Date(clock.nowMs()).toISOString().replace(/\.\d+Z$/, 'Z');
  const alloc = { cpu: '64', memory: '256Gi', pods: '110', ...o.allocatable };
  void client.create('v1/nodes', '', {
    apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1' } },
    status: { capacity: alloc, allocatable: alloc, conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: now, lastTransitionTime: now }] },
  });
  void client.create('resource.k8s.io/v1/deviceclasses', '', { apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', ...gpuClass });
  const { metadata: _m, ...sliceRest } = gpuNode('n1', o.gpus, o.model);
  void client.create('resource.k8s.io/v1/resourceslices', '', { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: { name: 'n1-gpus' }, ...sliceRest });
  let sched: { stop(): void } | undefined;
  return {
    client,
    async until(cond, what, state) {
      for (let i = 0; i < 500 && !cond(); i++) {
        clock.advance(500);
        await store.committed();
        await new Promise((r) => setTimeout(r, 5));
      }
      assert.ok(cond(), `${what}: ${JSON.stringify(state())}`);
    },
    async start() {
      await store.committed();
      sched = startScheduler(client, clock, createLogger('silent'));
    },
    stop() {
      sched?.stop();
      store.close();
    },
  };
}
