// The controller runtime (src/controllers/runtime/, src/util/work-queue.ts): the queue's dedupe, per-key backoff,
// overall retry limit and requeueAfter on a manual clock; shared informers and their indexes; `for`, `owns` and
// `watches` enqueueing the right keys; the manager's start, stop and restart; a Lease handing the manager over.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { clientFor, type Client } from '../../src/client/client.js';
import { ManualClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { WorkQueue, turnBudgetMs } from '../../src/util/work-queue.js';
import { defineController, electManager, indexes, keyOf, Manager, splitKey, type ControllerDef } from '../../src/controllers/runtime/index.js';
import type { KObject } from '../../src/machinery/types.js';

const log = createLogger('silent');

function setup() {
  const store = new SqliteStore({ path: ':memory:' });
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const reg = new Registry(store, allResources, clock, log);
  bootstrap(reg);
  return { client: clientFor(reg), clock, close: () => store.close() };
}

/** Lets queued drains and committed changes run (setImmediate turns), until `done` or a bounded number of turns. */
async function settle(done: () => boolean = () => false, turns = 200): Promise<void> {
  for (let i = 0; i < turns && !done(); i++) await new Promise((r) => setImmediate(r));
}

const pod = (name: string, owner?: { kind: string; name: string; apiVersion?: string }, nodeName?: string): KObject => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, namespace: 'default', ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', ...owner, uid: `uid-${owner.name}`, controller: true }] } : {}) },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...(nodeName ? { nodeName } : {}) },
});

const configMap = (name: string, data: Record<string, string> = {}): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });

describe('work queue', () => {
  it('runs a key added many times once, and once more when added while it runs', async () => {
    const clock = new ManualClock();
    const runs: string[] = [];
    let release: (() => void) | undefined;
    const q = new WorkQueue('t', async (key) => {
      runs.push(key);
      if (key === 'slow' && !release) await new Promise<void>((r) => (release = r));
    }, clock, log);
    q.add('a');
    q.add('a');
    q.add('b');
    q.add('a');
    await settle(() => runs.length >= 2);
    await settle();
    assert.deepEqual(runs, ['a', 'b']);
    q.add('slow');
    await settle(() => release !== undefined);
    q.add('slow');
    q.add('slow');
    release!();
    await settle(() => runs.length >= 4);
    await settle();
    assert.deepEqual(runs, ['a', 'b', 'slow', 'slow']);
    q.stop();
  });

  it('hands the event loop back between reconciles once a turn has run its budget of them, every key run once', async () => {
    const clock = new ManualClock();
    const runs: string[] = [];
    let turns = 0;
    const turnsAt: number[] = [];
    const q = new WorkQueue('t', (key) => {
      runs.push(key);
      turnsAt.push(turns);
      const end = performance.now() + turnBudgetMs / 5;
      while (performance.now() < end) { /* a reconcile that takes a fifth of the budget */ }
    }, clock, log);
    let ticking = true;
    const tick = (): void => { if (ticking) { turns++; setImmediate(tick); } };
    setImmediate(tick);
    const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
    for (const k of keys) q.add(k);
    await settle(() => runs.length === keys.length);
    ticking = false;
    assert.deepEqual(runs, keys);
    // Four budgets' worth of reconciles, six at most in a turn: the ticker ran between them at least three times.
    assert.ok(turnsAt[turnsAt.length - 1] - turnsAt[0] >= 3, `turns between reconciles: ${turnsAt.join(',')}`);
    q.stop();
  });

  it('retries a failing key after 10, 20, 40 ms of clock time and forgets its failures on success', async () => {
    const clock = new ManualClock();
    let failuresLeft = 3;
    let runs = 0;
    const q = new WorkQueue('t', () => {
      runs++;
      if (failuresLeft-- > 0) throw new Error('not yet');
    }, clock, log);
    q.add('k');
    const delays: number[] = [];
    for (let i = 1; i <= 3; i++) {
      await settle(() => runs === i && q.dueAt('k') !== undefined);
      const due = q.dueAt('k');
      assert.ok(due !== undefined, `retry ${i} scheduled`);
      delays.push(due - clock.nowMs());
      clock.advance(due - clock.nowMs() - 1);
      await settle();
      assert.equal(runs, i, 'not run before its backoff ends');
      clock.advance(1);
    }
    await settle(() => runs === 4);
    assert.deepEqual(delays, [10, 20, 40]);
    assert.equal(runs, 4);
    assert.equal(q.retries('k'), 0);
    assert.equal(q.dueAt('k'), undefined);
    q.stop();
  });

  it('caps retries of all keys with the overall token bucket', () => {
    const clock = new ManualClock();
    const q = new WorkQueue('t', () => undefined, clock, log, { rateLimit: { qps: 2, burst: 2 } });
    // Two tokens at once, then one every 500 ms: the per-key backoff (10 ms) is the smaller delay for the first two.
    assert.deepEqual(['a', 'b', 'c', 'd'].map((k) => q.addRateLimited(k)), [10, 10, 500, 1000]);
    clock.advance(2_000);
    assert.equal(q.addRateLimited('e'), 10, 'the bucket refilled');
    q.stop();
  });

  it('requeues after the delay a reconcile returns, as a number or as { requeueAfter }, on the clock', async () => {
    const clock = new ManualClock();
    const runs: string[] = [];
    const q = new WorkQueue('t', (key) => {
      runs.push(key);
      if (runs.length > 2) return undefined;
      return key === 'n' ? 5_000 : { requeueAfter: 7_000 };
    }, clock, log);
    q.add('n');
    q.add('r');
    await settle(() => runs.length === 2);
    assert.equal(q.dueAt('n'), clock.nowMs() + 5_000);
    assert.equal(q.dueAt('r'), clock.nowMs() + 7_000);
    clock.advance(4_999);
    await settle();
    assert.deepEqual(runs, ['n', 'r']);
    clock.advance(1);
    await settle(() => runs.length === 3);
    assert.deepEqual(runs, ['n', 'r', 'n']);
    q.stop();
    clock.advance(10_000);
    await settle();
    assert.deepEqual(runs, ['n', 'r', 'n'], 'a stopped queue runs nothing');
  });
});

describe('keys', () => {
  it('keys objects as namespace/name and splits keys back', () => {
    assert.equal(keyOf({ metadata: { namespace: 'ns', name: 'a' } }), 'ns/a');
    assert.equal(keyOf({ metadata: { name: 'node-1' } }), '/node-1');
    assert.deepEqual(splitKey('ns/a/b'), { namespace: 'ns', name: 'a/b' });
    assert.deepEqual(splitKey('/node-1'), { namespace: '', name: 'node-1' });
    assert.deepEqual(splitKey('plain'), { namespace: '', name: 'plain' });
  });
});

describe('controllers on a manager', () => {
  /** A controller recording the keys it reconciles. */
  function recording(def: Omit<ControllerDef, 'reconcile' | 'setup'>): { def: ControllerDef; seen: string[] } {
    const seen: string[] = [];
    return { def: defineController({ ...def, reconcile: (key: string) => void seen.push(key) }), seen };
  }

  it('shares one informer per resource among controllers, each adding its indexes (objects stored before are indexed)', async () => {
    const env = setup();
    try {
      env.client.create('v1/pods', 'default', pod('on-a', undefined, 'node-a'));
      env.client.create('v1/pods', 'default', pod('owned', { kind: 'ReplicaSet', name: 'rs' }));
      await env.client.pendingCommit();
      const m = new Manager({ client: env.client, clock: env.clock, log }).start();
      const informers = m.informers!;
      const byNode = informers.informer('v1/pods', { byNode: indexes.byNode });
      const byOwner = informers.informer(env.client.resource('v1/pods')!, { byOwner: indexes.byOwner });
      assert.equal(byNode, byOwner, 'one informer for the resource, by name or by def');
      assert.deepEqual(informers.resources(), ['/v1/pods']);
      assert.deepEqual(byNode.byIndex('byNode', 'node-a').map((p) => p.metadata.name), ['on-a']);
      assert.deepEqual(byNode.byIndex('byOwner', 'uid-rs').map((p) => p.metadata.name), ['owned']);
      assert.throws(() => informers.informer('v1/pods', { byNode: () => 'other' }), /another index named byNode/);
      env.client.create('v1/pods', 'default', pod('later', undefined, 'node-a'));
      await env.client.pendingCommit();
      assert.deepEqual(byNode.byIndex('byNode', 'node-a').map((p) => p.metadata.name).sort(), ['later', 'on-a']);
      m.stop();
    } finally {
      env.close();
    }
  });

  it('queues every object of `for` at start, then each change of it; `when` filters both', async () => {
    const env = setup();
    try {
      env.client.create('v1/configmaps', 'default', configMap('before'));
      env.client.create('v1/configmaps', 'default', configMap('skipped', { skip: 'yes' }));
      await env.client.pendingCommit();
      const { def, seen } = recording({ name: 'cm', for: { resource: 'v1/configmaps', when: (c) => c.object.data === undefined || !(c.object.data as Record<string, string>).skip } });
      const m = new Manager({ client: env.client, clock: env.clock, log }).add(def).start();
      await settle(() => seen.includes('default/before'));
      env.client.create('v1/configmaps', 'default', configMap('after'));
      await env.client.pendingCommit();
      await settle(() => seen.includes('default/after'));
      assert.ok(seen.includes('default/before') && seen.includes('default/after'));
      assert.ok(!seen.includes('default/skipped'));
      m.stop();
    } finally {
      env.close();
    }
  });

  it('queues the controller of an owned object (of the `for` group and kind only) and maps watched changes to keys', async () => {
    const env = setup();
    try {
      const { def, seen } = recording({
        name: 'rs', for: 'apps/v1/replicasets', owns: ['v1/pods'],
        watches: [{ resource: 'v1/configmaps', map: (c) => [`default/from-${c.object.metadata.name}`] }],
      });
      const m = new Manager({ client: env.client, clock: env.clock, log }).add(def).start();
      env.client.create('v1/pods', 'default', pod('p1', { kind: 'ReplicaSet', name: 'web' }));
      env.client.create('v1/pods', 'default', pod('p2', { kind: 'StatefulSet', name: 'db' }));
      env.client.create('v1/pods', 'default', pod('p3'));
      env.client.create('v1/pods', 'default', pod('p4', { kind: 'ReplicaSet', name: 'elsewhere', apiVersion: 'example.com/v1' }));
      env.client.create('v1/configmaps', 'default', configMap('cfg'));
      await env.client.pendingCommit();
      await settle(() => seen.length >= 2);
      await settle();
      assert.deepEqual([...seen].sort(), ['default/from-cfg', 'default/web']);
      // A source the server does not serve is skipped, as a watch of it hears nothing.
      m.add(recording({ name: 'absent', watches: [{ resource: 'example.com/v1/nothings', map: () => ['x/y'] }] }).def);
      assert.ok(m.controller('absent'));
      m.stop();
    } finally {
      env.close();
    }
  });

  it('stops every controller and runnable, and starts afresh (new caches and queues) after a stop', async () => {
    const env = setup();
    try {
      const events: string[] = [];
      const { def, seen } = recording({ name: 'cm', for: 'v1/configmaps' });
      const m = new Manager({ client: env.client, clock: env.clock, log })
        .addRunnable({ name: 'legacy', start: () => (events.push('start'), { stop: () => events.push('stop') }) })
        .add(def)
        .start();
      assert.ok(m.controller('cm'));
      m.stop();
      assert.equal(m.isRunning(), false);
      assert.deepEqual(events, ['start', 'stop']);
      env.client.create('v1/configmaps', 'default', configMap('while-stopped'));
      await env.client.pendingCommit();
      await settle();
      assert.deepEqual(seen, [], 'nothing reconciled while stopped');
      m.start();
      await settle(() => seen.length > 0);
      assert.deepEqual(seen, ['default/while-stopped'], 'the restart lists what changed meanwhile');
      assert.deepEqual(events, ['start', 'stop', 'start']);
      m.stop();
    } finally {
      env.close();
    }
  });

  it('gives a controller one event recorder per source component, shared by its mappers and reconciler', () => {
    const env = setup();
    try {
      const seen: unknown[] = [];
      const def = defineController({
        name: 'rec', for: 'v1/configmaps',
        setup: (ctx) => {
          seen.push(ctx.recorder('a'), ctx.recorder('a'), ctx.recorder('b'));
          return { reconcile: () => undefined };
        },
      });
      const m = new Manager({ client: env.client, clock: env.clock, log }).add(def).start();
      assert.equal(seen[0], seen[1]);
      assert.notEqual(seen[0], seen[2]);
      m.stop();
    } finally {
      env.close();
    }
  });

  it('runs the manager only while its process holds the Lease, and hands it over on release', async () => {
    const env = setup();
    try {
      const managers = ['a', 'b'].map(() => new Manager({ client: env.client, clock: env.clock, log }).add(recording({ name: 'cm', for: 'v1/configmaps' }).def));
      const clocks = [new ManualClock(), new ManualClock()];
      const electors = managers.map((m, i) => electManager(env.client, { name: 'test-manager', identity: `host-${i}`, clock: clocks[i], random: () => 0.5 }, m));
      electors[0].start();
      electors[1].start();
      // The Lease's create may wait for admission: its outcome is known a turn later.
      await new Promise<void>((resolve) => setImmediate(resolve));
      assert.deepEqual(managers.map((m) => m.isRunning()), [true, false]);
      electors[0].stop();
      assert.equal(managers[0].isRunning(), false);
      for (let t = 0; t < 10_000 && !managers[1].isRunning(); t += 100) clocks[1].advance(100);
      assert.deepEqual(managers.map((m) => m.isRunning()), [false, true]);
      electors[1].stop();
      assert.equal(managers[1].isRunning(), false);
    } finally {
      env.close();
    }
  });
});
