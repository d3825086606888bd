// Lease leader election (src/leader/elector.ts): two candidates sharing one registry, as two processes share one
// store, each with its own clock: acquiring, renewing, kill-style failover, clean release, a stolen lease, a late
// timer, and the exclusive (SQLite) store that takes a previous run's lease at once.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { clientFor, type Client } from '../../src/client/client.js';
import { ManualClock, type Clock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { LeaderElector, leaseResource, recordOf, type LeaderElectionConfig } from '../../src/leader/index.js';
import { microTime } from '../../src/leader/lease-lock.js';
import type { KObject } from '../../src/machinery/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

function setup() {
  const store = new SqliteStore({ path: ':memory:' });
  const reg = new Registry(store, allResources, new ManualClock(Date.UTC(2026, 0, 1)), createLogger('silent'));
  bootstrap(reg);
  const client = clientFor(reg);
  return { client, store, lease: (name = 'kube-controller-manager') => client.get<Json>(leaseResource, 'kube-system', name), close: () => store.close() };
}

/** An elector with its own clock (its process's), recording its callbacks. */
function candidate(client: Client, identity: string, clock: Clock, extra: Partial<LeaderElectionConfig> = {}) {
  const log: string[] = [];
  const elector = new LeaderElector(client, {
    name: 'kube-controller-manager', identity, clock, random: () => 0.5,
    onStartedLeading: () => log.push('started'),
    onStoppedLeading: () => log.push('stopped'),
    ...extra,
  });
  return { elector, log };
}

/** Two processes' electors (host-a_1, host-b_2), each on its own clock, both started. */
async function twoStarted(client: Client) {
  const ca = new ManualClock();
  const cb = new ManualClock();
  const a = candidate(client, 'host-a_1', ca);
  const b = candidate(client, 'host-b_2', cb);
  a.elector.start();
  b.elector.start();
  await settled();
  return { ca, cb, a, b };
}

const leaderEvents = (client: Client) =>
  client.list<Json>('v1/events', 'kube-system').filter((e) => e.reason === 'LeaderElection').map((e) => `${e.involvedObject.kind}/${e.involvedObject.name}: ${e.message}`);

/** Lets a Lease create finish: it may wait for admission, so the elector learns its outcome a turn later. */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Advances a clock one step at a time (each step fires what falls due), until `done` or `maxMs`; returns the time taken. */
function advanceUntil(clock: ManualClock, done: () => boolean, maxMs: number, stepMs = 100): number {
  let t = 0;
  while (!done() && t < maxMs) {
    clock.advance(stepMs);
    t += stepMs;
  }
  return t;
}

describe('leader election', () => {
  it('takes a free Lease at once, writes the record as client-go does and records a LeaderElection event', async () => {
    const env = setup();
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
    const a = candidate(env.client, 'host-a_1', clock);
    a.elector.start();
    await settled();
    assert.deepEqual(a.log, ['started'], 'led at once');
    assert.equal(a.elector.isLeader(), true);
    const spec = env.lease()!.spec;
    assert.equal(spec.holderIdentity, 'host-a_1');
    assert.equal(spec.leaseDurationSeconds, 15);
    assert.equal(spec.leaseTransitions, 0);
    assert.equal(spec.acquireTime, '2026-01-01T12:00:00.000000Z');
    assert.equal(spec.renewTime, '2026-01-01T12:00:00.000000Z');
    assert.deepEqual(leaderEvents(env.client), ['Lease/kube-controller-manager: host-a_1 became leader']);
    // Renewed every retryPeriod: acquireTime stays, renewTime moves.
    clock.advance(2_000);
    assert.equal(env.lease()!.spec.renewTime, '2026-01-01T12:00:02.000000Z');
    assert.equal(env.lease()!.spec.acquireTime, '2026-01-01T12:00:00.000000Z');
    a.elector.stop();
    env.close();
  });

  it('keeps a second candidate waiting while the leader renews', async () => {
    const env = setup();
    const { ca, cb, a, b } = await twoStarted(env.client);
    assert.equal(b.elector.state(), 'candidate');
    assert.equal(b.elector.leader(), 'host-a_1');
    for (let i = 0; i < 60; i++) {
      ca.advance(1_000);
      cb.advance(1_000);
    }
    assert.deepEqual([a.log, b.log], [['started'], []]);
    assert.equal(env.lease()!.spec.holderIdentity, 'host-a_1');
    a.elector.stop();
    b.elector.stop();
    env.close();
  });

  it('fails over when the leader stops renewing (killed): after the lease duration, never before', async () => {
    const env = setup();
    const { ca, cb, a, b } = await twoStarted(env.client);
    // a's process is frozen from here on (its clock does not move): no renewal.
    const took = advanceUntil(cb, () => b.elector.isLeader(), 30_000);
    assert.ok(took >= 15_000, `b took the lease after ${took} ms: not before the 15 s lease duration`);
    assert.ok(took <= 15_000 + 2 * 2_000 * 2.2, `b took the lease after ${took} ms`);
    const spec = env.lease()!.spec;
    assert.equal(spec.holderIdentity, 'host-b_2');
    assert.equal(spec.leaseTransitions, 1);
    assert.deepEqual(b.log, ['started']);
    // a wakes up: its renewal timer is far past the renew deadline, so it stops leading without writing anything.
    const rv = env.lease()!.metadata.resourceVersion;
    ca.advance(2_000);
    assert.deepEqual(a.log, ['started', 'stopped']);
    assert.equal(a.elector.state(), 'candidate');
    assert.equal(env.lease()!.metadata.resourceVersion, rv, 'the old leader wrote nothing');
    // And it stays a candidate while b renews.
    for (let i = 0; i < 30; i++) {
      ca.advance(1_000);
      cb.advance(1_000);
    }
    assert.equal(a.elector.isLeader(), false);
    assert.equal(env.lease()!.spec.holderIdentity, 'host-b_2');
    assert.deepEqual(leaderEvents(env.client), [
      'Lease/kube-controller-manager: host-a_1 became leader',
      'Lease/kube-controller-manager: host-b_2 became leader',
      'Lease/kube-controller-manager: host-a_1 stopped leading',
    ]);
    a.elector.stop();
    b.elector.stop();
    env.close();
  });

  it('counts the lease duration from the last renewal it saw through its watch, not from its next try', async () => {
    const env = setup();
    const { ca, cb, a, b } = await twoStarted(env.client);
    // Both processes run for 20 s: a renews every 2 s (the last at 20 s), b tries every 3.2 s (random pinned at 0.5:
    // 2 s * (1 + 0.5 * 1.2)), its last try before a dies at 19.2 s.
    const step = async (clocks: ManualClock[]) => {
      for (const c of clocks) c.advance(100);
      await env.store.committed();
      await new Promise((r) => setImmediate(r));
    };
    for (let t = 0; t < 20_000; t += 100) await step([ca, cb]);
    const lastRenewal = env.lease()!.spec.renewTime;
    assert.equal(lastRenewal, microTime(ca.nowMs()), 'a renewed last at 20 s');
    // a dies. b saw that renewal as it happened, so it takes over at its first try past 15 s from then (35.2 s), not
    // 15 s after its next try would have seen it (22.4 s + 15 s, taken at 38.4 s).
    let took = 0;
    while (!b.elector.isLeader() && took < 30_000) {
      await step([cb]);
      took += 100;
    }
    assert.ok(took >= 15_000, `b took the lease ${took} ms after the last renewal: not before the 15 s lease duration`);
    assert.ok(took <= 15_000 + 3_200, `b took the lease ${took} ms after the last renewal`);
    assert.equal(env.lease()!.spec.holderIdentity, 'host-b_2');
    a.elector.stop();
    b.elector.stop();
    env.close();
  });

  it('releases the Lease on a clean stop, and a waiting candidate takes it at once', async () => {
    const env = setup();
    const { ca, cb, a, b } = await twoStarted(env.client);
    await env.store.committed();
    a.elector.stop();
    assert.deepEqual(a.log, ['started', 'stopped']);
    const released = env.lease()!.spec;
    assert.equal(released.holderIdentity, '');
    assert.equal(released.leaseDurationSeconds, 1);
    assert.equal(released.leaseTransitions, 0);
    // The release reaches b through its watch on the Lease: it tries at once, not after its retry period.
    await env.store.committed();
    await new Promise((r) => setImmediate(r));
    cb.advance(0);
    assert.equal(b.elector.isLeader(), true);
    assert.equal(env.lease()!.spec.holderIdentity, 'host-b_2');
    assert.equal(env.lease()!.spec.leaseTransitions, 1);
    b.elector.stop();
    env.close();
  });

  it('stops leading at once when another holder shows up in the Lease', async () => {
    const env = setup();
    const clock = new ManualClock();
    const a = candidate(env.client, 'host-a_1', clock);
    a.elector.start();
    await settled();
    await env.client.guaranteedUpdate(leaseResource, 'kube-system', 'kube-controller-manager', (cur) => ({ ...cur, spec: { ...(cur.spec as object), holderIdentity: 'intruder' } }));
    clock.advance(2_000);
    assert.deepEqual(a.log, ['started', 'stopped']);
    assert.equal(env.lease()!.spec.holderIdentity, 'intruder');
    a.elector.stop();
    assert.equal(env.lease()!.spec.holderIdentity, 'intruder', 'stop() releases only a Lease it holds');
    env.close();
  });

  it('stops leading when renewals fail past the renew deadline, before the lease could expire for others', async () => {
    const env = setup();
    let now = Date.UTC(2026, 0, 1);
    const due: Array<{ at: number; fn: () => void }> = [];
    // A clock whose timers fire late, as on a blocked event loop.
    const late: Clock = {
      now: () => new Date(now), nowMs: () => now,
      setTimeout(fn, ms) {
        const t = { at: now + ms, fn };
        due.push(t);
        return () => void due.splice(due.indexOf(t), 1);
      },
      setInterval: () => () => {},
    };
    const a = candidate(env.client, 'host-a_1', late);
    a.elector.start();
    await settled();
    const rv = env.lease()!.metadata.resourceVersion;
    now += 11_000;
    due.shift()!.fn();
    assert.deepEqual(a.log, ['started', 'stopped']);
    assert.equal(env.lease()!.metadata.resourceVersion, rv, 'no renewal after the deadline');
    a.elector.stop();
    env.close();
  });

  it('takes a previous run\'s Lease at once on an exclusive store; waits for it to expire on a shared one', async () => {
    const env = setup();
    const clock = new ManualClock();
    const old = candidate(env.client, 'old-run_0', clock, { releaseOnStop: false });
    old.elector.start();
    await settled();
    old.elector.stop();
    assert.equal(env.lease()!.spec.holderIdentity, 'old-run_0');
    const shared = candidate(env.client, 'host-b_2', clock);
    shared.elector.start();
    await settled();
    assert.equal(shared.elector.isLeader(), false);
    shared.elector.stop();
    const local = candidate(env.client, 'host-c_3', clock, { exclusive: true });
    local.elector.start();
    await settled();
    assert.deepEqual(local.log, ['started']);
    assert.equal(env.lease()!.spec.holderIdentity, 'host-c_3');
    assert.equal(env.lease()!.spec.leaseTransitions, 1);
    local.elector.stop();
    env.close();
  });

  it('refuses timings client-go refuses', async () => {
    const env = setup();
    const base = { name: 'x', identity: 'i', onStartedLeading() {}, onStoppedLeading() {} };
    assert.throws(() => new LeaderElector(env.client, { ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }), /leaseDuration must be greater than renewDeadline/);
    assert.throws(() => new LeaderElector(env.client, { ...base, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 }), /renewDeadline must be greater than retryPeriod\*JitterFactor/);
    assert.throws(() => new LeaderElector(env.client, { ...base, identity: '' }), /requires an identity/);
    env.close();
  });

  it('reads a Lease anybody may have written defensively', async () => {
    const lease = (spec: unknown) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'x' }, spec });
    assert.deepEqual(recordOf(lease(undefined)), { holderIdentity: '', leaseDurationSeconds: 0, acquireTime: undefined, renewTime: undefined, leaseTransitions: 0 });
    const odd = recordOf(lease({ holderIdentity: 7, leaseDurationSeconds: -3, leaseTransitions: 1.5, renewTime: {}, __proto__: { holderIdentity: 'polluted' } }));
    assert.equal(odd.holderIdentity, '');
    assert.equal(odd.leaseDurationSeconds, 0);
    assert.equal(odd.leaseTransitions, 0);
    assert.equal(odd.renewTime, undefined);
  });

  it('takes a Lease without a usable duration as the default duration', async () => {
    const env = setup();
    const cb = new ManualClock();
    env.client.create(leaseResource, 'kube-system', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'kube-controller-manager' }, spec: { holderIdentity: 'ghost' } });
    const b = candidate(env.client, 'host-b_2', cb);
    b.elector.start();
    await settled();
    assert.equal(b.elector.isLeader(), false);
    const took = advanceUntil(cb, () => b.elector.isLeader(), 30_000);
    assert.ok(took >= 15_000 && took < 25_000, `${took} ms`);
    b.elector.stop();
    env.close();
  });
});
