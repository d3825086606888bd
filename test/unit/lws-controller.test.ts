// The LeaderWorkerSet add-on in process: started by the add-on framework (`startBonsai({ addons: ['lws'] })`) on a
// real simulated cluster, read and driven through the client. Groups come up leader first (LeaderReady) with upstream's
// names, labels, annotations and environment; a crashing worker recreates only its group; scaling adds a group;
// a template change rolls the groups one at a time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBonsai } from '../../src/main.js';
import { clientFor, type Client } from '../../src/client/client.js';
import type { KObject } from '../../src/machinery/types.js';
import { waitDeadline } from '../helpers/wait.js';

type Json = Record<string, any>;
const lwsRes = 'leaderworkerset.x-k8s.io/v1/leaderworkersets';

async function until<T>(what: string, fn: () => T | undefined | false, ms = 20_000): Promise<T> {
  const end = Date.now() + waitDeadline(ms);
  let last: unknown;
  for (;;) {
    try {
      const v = fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function lws(name: string, spec: Json): Json {
  const fast = { 'bonsai.dev/pull-seconds': '0', 'bonsai.dev/start-seconds': '0', 'bonsai.dev/ready-seconds': '0.3' };
  return {
    apiVersion: 'leaderworkerset.x-k8s.io/v1', kind: 'LeaderWorkerSet', metadata: { name },
    spec: {
      replicas: 2,
      ...spec,
      leaderWorkerTemplate: {
        size: 4,
        workerTemplate: { metadata: { annotations: fast }, spec: { containers: [{ name: 'w', image: 'busybox', command: ['sleep', '100000'] }] } },
        ...(spec.leaderWorkerTemplate ?? {}),
      },
    },
  };
}

const pods = (c: Client, set: string) => c.list<Json>('v1/pods', 'default', { labelSelector: `leaderworkerset.sigs.k8s.io/name=${set}` });
const ready = (p: Json) => p.status?.phase === 'Running' && p.status?.conditions?.some((c: Json) => c.type === 'Ready' && c.status === 'True');
const allReady = (c: Client, set: string, n: number) => {
  const ps = pods(c, set).filter((p) => !p.metadata.deletionTimestamp);
  return ps.length === n && ps.every(ready) ? ps : undefined;
};

test('LeaderWorkerSet groups, restart, scale and rolling update in process', async () => {
  const bonsai = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', addons: ['lws'] });
  const admin = clientFor(bonsai.registry);
  try {
    await bonsai.addonsReady;
    assert.ok(admin.resource(lwsRes), 'the add-on framework installed the CRD');

    // Two groups of four, leaders first.
    admin.create(lwsRes, 'default', lws('x', { startupPolicy: 'LeaderReady' }) as KObject);
    const up = await until('8 pods ready', () => allReady(admin, 'x', 8));
    const byName = new Map(up.map((p) => [p.metadata.name as string, p]));
    assert.deepEqual([...byName.keys()].sort(), ['x-0', 'x-0-1', 'x-0-2', 'x-0-3', 'x-1', 'x-1-1', 'x-1-2', 'x-1-3']);
    const leader = byName.get('x-1')!;
    const worker = byName.get('x-1-2')!;
    const readyAt = Date.parse(leader.status.conditions.find((c: Json) => c.type === 'Ready').lastTransitionTime);
    assert.ok(Date.parse(worker.metadata.creationTimestamp) >= readyAt - 1000, 'workers are created after their leader is ready');
    assert.equal(leader.metadata.labels['leaderworkerset.sigs.k8s.io/worker-index'], '0');
    assert.equal(leader.metadata.labels['leaderworkerset.sigs.k8s.io/group-index'], '1');
    assert.match(leader.metadata.labels['leaderworkerset.sigs.k8s.io/group-key'], /^[0-9a-f]{40}$/);
    assert.equal(worker.metadata.labels['leaderworkerset.sigs.k8s.io/worker-index'], '2');
    assert.equal(worker.metadata.labels['leaderworkerset.sigs.k8s.io/group-key'], leader.metadata.labels['leaderworkerset.sigs.k8s.io/group-key']);
    assert.equal(worker.metadata.annotations['leaderworkerset.sigs.k8s.io/leader-name'], 'x-1');
    assert.equal(worker.metadata.annotations['leaderworkerset.sigs.k8s.io/size'], '4');
    assert.deepEqual(worker.spec.containers[0].env.slice(0, 3), [
      { name: 'LWS_LEADER_ADDRESS', value: 'x-1.x.default' }, { name: 'LWS_GROUP_SIZE', value: '4' }, { name: 'LWS_WORKER_INDEX', value: '2' },
    ]);
    const workerSts = admin.get<Json>('apps/v1/statefulsets', 'default', 'x-1')!;
    assert.equal(workerSts.metadata.ownerReferences[0].kind, 'Pod');
    assert.equal(workerSts.spec.ordinals.start, 1);
    const svc = admin.get<Json>('v1/services', 'default', 'x')!;
    assert.equal(svc.spec.clusterIP, 'None');
    const st = await until('status', () => {
      const o = admin.get<Json>(lwsRes, 'default', 'x');
      return o?.status?.readyReplicas === 2 && o.status.conditions?.some((c: Json) => c.type === 'Available' && c.status === 'True') ? o : undefined;
    });
    assert.equal(st.status.replicas, 2);
    assert.equal(st.status.hpaPodSelector, 'leaderworkerset.sigs.k8s.io/name=x,leaderworkerset.sigs.k8s.io/worker-index=0');

    // Scale to three groups.
    await admin.guaranteedUpdate(lwsRes, 'default', 'x', (o) => ({ ...o, spec: { ...(o.spec as Json), replicas: 3 } }));
    await until('12 pods ready', () => allReady(admin, 'x', 12));

    // A rolling update replaces the groups one at a time (maxUnavailable 1, maxSurge 0).
    const before = new Map(pods(admin, 'x').map((p) => [p.metadata.name as string, p.metadata.uid as string]));
    let worst = 3;
    await admin.guaranteedUpdate(lwsRes, 'default', 'x', (o) => {
      const s = structuredClone(o.spec) as Json;
      s.leaderWorkerTemplate.workerTemplate.metadata.labels = { version: 'two' };
      return { ...o, spec: s };
    });
    await until('all groups replaced', () => {
      const ps = pods(admin, 'x').filter((p) => !p.metadata.deletionTimestamp);
      const readyLeaders = ps.filter((p) => p.metadata.labels['leaderworkerset.sigs.k8s.io/worker-index'] === '0' && ready(p)).length;
      worst = Math.min(worst, readyLeaders);
      return ps.length === 12 && ps.every((p) => ready(p) && p.metadata.labels.version === 'two' && before.get(p.metadata.name) !== p.metadata.uid);
    }, 60_000);
    assert.ok(worst >= 2, `at most one group down at a time (saw ${worst} ready leaders)`);

    // A crashing worker recreates its group only.
    admin.create(lwsRes, 'default', lws('c', {
      leaderWorkerTemplate: {
        size: 3,
        workerTemplate: {
          metadata: { annotations: { 'bonsai.dev/pull-seconds': '0', 'bonsai.dev/start-seconds': '0' } },
          spec: { containers: [{ name: 'w', image: 'busybox', command: ['sh', '-c', 'sleep 2; if printenv CRASH-$LWS_LEADER_ADDRESS-$LWS_WORKER_INDEX; then exit 1; fi; sleep 100000'], env: [{ name: 'CRASH-c-1.c.default-2', value: 'yes' }] }] },
        },
      },
    }) as KObject);
    const first = await until('6 pods ready', () => allReady(admin, 'c', 6));
    const uid = (ps: Json[], n: string) => ps.find((p) => p.metadata.name === n)?.metadata.uid;
    await until('group 1 recreated', () => {
      const ps = pods(admin, 'c');
      return uid(ps, 'c-1') && uid(ps, 'c-1') !== uid(first, 'c-1');
    });
    const now = pods(admin, 'c');
    for (const n of ['c-0', 'c-0-1', 'c-0-2']) assert.equal(uid(now, n), uid(first, n), `${n} untouched`);
    const events = admin.list<Json>('v1/events', 'default').filter((e) => e.reason === 'RecreateGroup');
    assert.ok(events.some((e) => e.message === 'Worker pod c-1-2 failed, deleted leader pod c-1 to recreate group 1'), JSON.stringify(events.map((e) => e.message)));
  } finally {
    await bonsai.close();
  }
});
