// APF's queueing core without a server: shuffle-sharded hands, queue-full and concurrency-limit rejections, fair
// turns between flows, seats given back and taken again around an outbound call; classification rules; the nominal
// limits upstream derives from the shares; the dispatcher's configuration while the built-in objects are being written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dealHand, flowHash } from '../../src/flowcontrol/dispatch/shuffle-shard.js';
import { QueueSet, type QueueSetConfig, type QueueSetObserver, type RejectReason, type Ticket } from '../../src/flowcontrol/dispatch/queue-set.js';
import { classify, distinguisherOf } from '../../src/flowcontrol/dispatch/classify.js';
import { digestConfig } from '../../src/flowcontrol/dispatch/config.js';
import { tabulate, rfc3339Nano } from '../../src/flowcontrol/dispatch/debug-dumps.js';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../../src/flowcontrol/bootstrap.js';
import { FlowControl } from '../../src/flowcontrol/dispatch/flow-control.js';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { ScaledClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import type { KObject } from '../../src/machinery/types.js';
import type { RequestAttributes } from '../../src/auth/types.js';

const quiet: QueueSetObserver = { waiting() {}, executing() {}, seats() {}, dispatched() {}, rejected() {} };

function attrs(user: string, groups: string[], over: Partial<RequestAttributes> = {}): RequestAttributes {
  return { user: { username: user, groups }, verb: 'create', resourceRequest: true, path: '/api/v1/namespaces/default/configmaps', apiGroup: '', apiVersion: 'v1', namespace: 'default', resource: 'configmaps', subresource: '', name: '', ...over };
}

function ticket(flow: string, log: string[]): Ticket & { outcome?: string } {
  const t: Ticket & { outcome?: string } = {
    flowSchema: 'fs', priorityLevel: 'pl', distinguisher: flow, seats: 1, attrs: attrs(flow, []), arrivedAt: Date.now(), arrivedMono: performance.now(), state: 'new',
    decide(ok: boolean, reason?: RejectReason) {
      t.outcome = ok ? 'run' : reason;
      if (ok) log.push(flow);
    },
  };
  return t;
}

const cfg = (over: Partial<QueueSetConfig> = {}): QueueSetConfig => ({ exempt: false, limit: 1, queues: 1, handSize: 1, queueLengthLimit: 2, ...over });

test('a hand is handSize distinct queues, the same for the same flow', () => {
  for (const flow of ['a', 'b', 'system:anonymous', 'x'.repeat(300)]) {
    const h = dealHand(flowHash('global-default', flow), 128, 6);
    assert.equal(new Set(h).size, 6);
    for (const q of h) assert.ok(q >= 0 && q < 128);
    assert.deepEqual(dealHand(flowHash('global-default', flow), 128, 6), h);
  }
  assert.deepEqual(dealHand(12345, 4, 8).sort(), [0, 1, 2, 3]);
});

test('a full queue rejects with queue-full; a level without queues with concurrency-limit', () => {
  const log: string[] = [];
  const qs = new QueueSet(cfg(), quiet);
  const ts = [1, 2, 3, 4].map(() => ticket('a', log));
  for (const t of ts) qs.arrive(t, 60_000);
  assert.deepEqual(ts.map((t) => t.outcome), ['run', undefined, undefined, 'queue-full']);
  qs.finish(ts[0]);
  assert.equal(ts[1].outcome, 'run');
  qs.finish(ts[1]);
  qs.finish(ts[2]);
  assert.ok(qs.idle());
  const reject = new QueueSet(cfg({ queues: 0 }), quiet);
  const [x, y] = [ticket('a', log), ticket('b', log)];
  reject.arrive(x, 60_000);
  reject.arrive(y, 60_000);
  assert.deepEqual([x.outcome, y.outcome], ['run', 'concurrency-limit']);
});

test('flows take turns: a quiet flow is not stuck behind a busy one', () => {
  const log: string[] = [];
  // A clock that moves 0.1 ms at each reading: a real one may stall between two readings (a busy machine), which
  // changes the virtual times the test compares.
  let ms = 0;
  const qs = new QueueSet(cfg({ queues: 64, handSize: 1, queueLengthLimit: 50 }), quiet, () => (ms += 0.1));
  const first = ticket('busy', log);
  qs.arrive(first, 60_000);
  const busy = Array.from({ length: 10 }, () => ticket('busy', log));
  for (const t of busy) qs.arrive(t, 60_000);
  const other = ticket('quiet', log);
  qs.arrive(other, 60_000);
  // Dispatching one request at a time: the quiet flow's request goes within the first two.
  let t: Ticket = first;
  for (let i = 0; i < 3; i++) {
    qs.finish(t);
    t = [...busy, other].find((x) => x.state === 'executing') ?? t;
  }
  assert.ok(log.indexOf('quiet') >= 1 && log.indexOf('quiet') <= 2, log.join(','));
  for (const x of [...busy, other]) qs.finish(x);
});

test('a request waiting past its limit is rejected with time-out; a suspended seat serves the next request', async () => {
  const log: string[] = [];
  const qs = new QueueSet(cfg(), quiet);
  const [a, b, c] = [ticket('a', log), ticket('b', log), ticket('c', log)];
  qs.arrive(a, 60_000);
  qs.arrive(b, 5);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(b.outcome, 'time-out');
  qs.arrive(c, 60_000);
  assert.equal(c.outcome, undefined);
  qs.suspend(a);
  assert.equal(c.outcome, 'run');
  qs.resume(a);
  assert.equal(qs.seatsInUse, 2);
  qs.finish(a);
  qs.finish(c);
  assert.ok(qs.idle());
  assert.equal(qs.seatsInUse, 0);
});

test('classification follows upstream rules and precedence', () => {
  const { flowSchemas } = digestConfig([], [], 600);
  const pick = (a: RequestAttributes) => classify(flowSchemas, a)?.metadata.name;
  assert.equal(pick(attrs('admin', ['system:masters', 'system:authenticated'])), 'exempt');
  assert.equal(pick(attrs('system:node:n1', ['system:nodes', 'system:authenticated'], { verb: 'update', resource: 'nodes', subresource: 'status', namespace: '' })), 'system-node-high');
  assert.equal(pick(attrs('system:serviceaccount:kube-system:foo', ['system:serviceaccounts', 'system:authenticated'])), 'workload-leader-election');
  assert.equal(pick(attrs('system:serviceaccount:kube-system:foo', ['system:serviceaccounts', 'system:authenticated'], { resource: 'pods' })), 'kube-system-service-accounts');
  assert.equal(pick(attrs('system:serviceaccount:team:foo', ['system:serviceaccounts', 'system:authenticated'])), 'service-accounts');
  assert.equal(pick(attrs('system:anonymous', ['system:unauthenticated'], { resourceRequest: false, verb: 'get', path: '/healthz' })), 'probes');
  assert.equal(pick(attrs('system:anonymous', ['system:unauthenticated'])), 'global-default');
  // The mandatory catch-all when the stored schemas leave a request unmatched.
  const only = digestConfig([suggestedFlowSchemas[0]], [], 600);
  assert.equal(classify(only.flowSchemas, attrs('system:anonymous', ['system:unauthenticated']))?.metadata.name, 'catch-all');
  const catchAll = mandatoryFlowSchemas.find((f) => f.metadata.name === 'catch-all');
  assert.ok(catchAll);
  assert.equal(distinguisherOf(catchAll, attrs('u', [])), 'u');
  assert.equal(distinguisherOf({ ...catchAll, spec: { ...catchAll.spec, distinguisherMethod: { type: 'ByNamespace' } } }, attrs('u', [])), 'default');
});

test('nominal limits are the shares of the server limit, rounded up', () => {
  const { levels } = digestConfig([], [], 600);
  const limit = (n: string) => levels.get(n)?.nominalLimit;
  // Shares: system 30, node-high 40, leader-election 10, workload-high 40, workload-low 100, global-default 20, catch-all 5, exempt 0.
  assert.deepEqual(['global-default', 'workload-low', 'catch-all', 'exempt'].map(limit), [49, 245, 13, 0]);
});

test('dumps align as Go tabwriter and time stamps read as RFC3339Nano', () => {
  assert.equal(tabulate([['A', 'LongHeaderName', 'C'], ['xx', 'y', 'z']]), 'A,      LongHeaderName, C\nxx,     y,              z\n');
  assert.equal(rfc3339Nano(Date.UTC(2026, 0, 2, 3, 4, 5, 120)), '2026-01-02T03:04:05.12Z');
  assert.equal(rfc3339Nano(Date.UTC(2026, 0, 2, 3, 4, 5, 0)), '2026-01-02T03:04:05Z');
});

test('while the built-in objects are written one by one, the built-in configuration is used whole', async () => {
  const store = new SqliteStore({ path: ':memory:' });
  const reg = new Registry(store, allResources, new ScaledClock(1), createLogger('silent'));
  const fc = new FlowControl(reg, 600);
  try {
    const group = 'flowcontrol.apiserver.k8s.io';
    // Each write is committed (and its change published to the dispatcher) before the next step looks.
    const write = async (resource: string, o: object) => {
      await reg.create(reg.find(group, 'v1', resource)!, '', structuredClone(o) as KObject);
      await store.committed();
    };
    const anonymous = () => fc.classify(attrs('system:anonymous', ['system:unauthenticated']))?.level.name;
    assert.equal(anonymous(), 'global-default');
    // The producer writes the levels first: with them stored and the FlowSchemas not yet, a request must not fall to
    // the catch-all level (13 seats of 600, refusing beyond them).
    for (const pl of [...mandatoryPriorityLevels, ...suggestedPriorityLevels]) await write('prioritylevelconfigurations', pl);
    assert.equal(anonymous(), 'global-default');
    for (const fs of [...mandatoryFlowSchemas, ...suggestedFlowSchemas].filter((f) => f.metadata.name !== 'global-default')) await write('flowschemas', fs);
    assert.equal(anonymous(), 'global-default');
    assert.equal(fc.levels.get('catch-all')?.queues.config.limit, 13);
    await write('flowschemas', suggestedFlowSchemas.find((f) => f.metadata.name === 'global-default')!);
    assert.equal(anonymous(), 'global-default');
    // Once complete, the stored objects are the configuration, as upstream's: without global-default, the catch-all.
    await reg.delete(reg.find(group, 'v1', 'flowschemas')!, '', 'global-default');
    await store.committed();
    assert.equal(anonymous(), 'catch-all');
  } finally {
    fc.stop();
    store.close();
  }
});

test("a user's own configuration object is taken as it is, before the built-in ones are all written", async () => {
  const store = new SqliteStore({ path: ':memory:' });
  const reg = new Registry(store, allResources, new ScaledClock(1), createLogger('silent'));
  const fc = new FlowControl(reg, 600);
  try {
    const own = { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'mine' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 10, limitResponse: { type: 'Reject' } } } };
    await reg.create(reg.find('flowcontrol.apiserver.k8s.io', 'v1', 'prioritylevelconfigurations')!, '', own as KObject);
    await store.committed();
    assert.equal(fc.classify(attrs('system:anonymous', ['system:unauthenticated']))?.level.name, 'catch-all');
    assert.ok(fc.levels.has('mine'));
  } finally {
    fc.stop();
    store.close();
  }
});
