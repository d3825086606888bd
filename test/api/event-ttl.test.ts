// Event TTL (kube-apiserver's --event-ttl): an Event goes `ttl` after its last write on the cluster clock, a later
// write keeps it longer, events.k8s.io/v1 Events (the same storage) go too, watchers see the deletions, other kinds
// are never touched. The clock starts paused and is advanced by hand.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useBonsai } from './http.js';
import { eventually } from '../helpers/kubectl.js';
import { rfc3339 } from '../../src/util/clock.js';
import type { Change } from '../../src/storage/watch-hub.js';

const EVENTS = '/api/v1/namespaces/default/events';
const EVENTS_V1 = '/apis/events.k8s.io/v1/namespaces/default/events';

describe('event TTL', () => {
  const { env, req } = useBonsai({ eventTtlMs: 60_000, clockSpeed: 0 });
  const event = (name: string, lastMs: number, count = 1) => ({
    metadata: { name }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'x' }, reason: 'Test', message: name, type: 'Normal',
    firstTimestamp: rfc3339(new Date(lastMs)), lastTimestamp: rfc3339(new Date(lastMs)), count, source: { component: 'test' },
  });

  it('deletes an event its TTL after its last write, and keeps one written again until its own TTL', async () => {
    const deleted: string[] = [];
    const stop = env.b.store.hub.subscribe('core/events', (c: Change) => {
      // Only this test's Events (the components' LeaderElection Events in kube-system expire too).
      if (c.type === 'DELETED' && c.object.metadata.namespace === 'default') deleted.push(c.object.metadata.name ?? '');
    });
    try {
      const t0 = env.b.clock.nowMs();
      assert.equal((await req('POST', EVENTS, event('early', t0))).status, 201);
      assert.equal((await req('POST', EVENTS, event('recurring', t0))).status, 201);
      assert.equal((await req('POST', EVENTS_V1, {
        metadata: { name: 'v1-event' }, eventTime: '2026-01-01T00:00:00.000000Z', reportingController: 'test/x', reportingInstance: 'i',
        action: 'Test', reason: 'Test', regarding: { kind: 'Pod', namespace: 'default', name: 'x' }, type: 'Normal',
      })).status, 201);
      assert.equal((await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'stays' } })).status, 201);
      await env.b.clock.advance(30_000);
      // Written again half a minute (of cluster time) later, as a recurring event's count and lastTimestamp are.
      const cur = (await req('GET', `${EVENTS}/recurring`)).body as Record<string, unknown>;
      assert.equal((await req('PUT', `${EVENTS}/recurring`, { ...cur, count: 2, lastTimestamp: rfc3339(new Date(t0 + 30_000)) })).status, 200);
      await env.b.clock.advance(20_000);
      assert.equal((await req('GET', `${EVENTS}/early`)).status, 200, 'not expired before its TTL');
      await env.b.clock.advance(12_000);
      // Deleted when the clock reaches the TTL (on etcd, the delete lands a moment after).
      await eventually(async () => (await req('GET', `${EVENTS}/early`)).status === 404, 10_000, 'the early event expired');
      await eventually(async () => (await req('GET', `${EVENTS_V1}/v1-event`)).status === 404, 10_000, 'the events.k8s.io/v1 event expired');
      assert.equal((await req('GET', `${EVENTS}/recurring`)).status, 200, 'the recurring event is still there');
      await env.b.clock.advance(30_000);
      await eventually(async () => (await req('GET', `${EVENTS}/recurring`)).status === 404, 10_000, 'the recurring event expired too');
      assert.equal((await req('GET', '/api/v1/namespaces/default/configmaps/stays')).status, 200, 'other kinds are never touched');
      await env.b.store.committed();
      assert.deepEqual(deleted.sort(), ['early', 'recurring', 'v1-event'], 'watchers see the expired events deleted');
    } finally {
      stop();
    }
  });
});

describe('event TTL off', () => {
  const { env, req } = useBonsai({ eventTtlMs: 0, clockSpeed: 0 });
  it('keeps events however old with --event-ttl 0s', async () => {
    assert.equal((await req('POST', EVENTS, event0('old'))).status, 201);
    await env.b.clock.advance(10 * 3_600_000);
    assert.equal((await req('GET', `${EVENTS}/old`)).status, 200);
  });
  const event0 = (name: string) => ({ metadata: { name }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'x' }, reason: 'Test', message: name, type: 'Normal', count: 1 });
});
