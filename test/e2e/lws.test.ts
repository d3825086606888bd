// LeaderWorkerSet through kubectl on the default cluster: two groups of four come up with leaders first
// (LeaderReady); a worker container that fails recreates exactly its group; `kubectl scale lws/x --replicas 3`
// adds a group; a template change rolls the groups one at a time.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer } from '../helpers/cluster.js';
import { eventually } from '../helpers/kubectl.js';

type Json = Record<string, any>;

const fast = { 'bonsai.dev/pull-seconds': '0', 'bonsai.dev/start-seconds': '0', 'bonsai.dev/ready-seconds': '0.5' };

function lws(name: string, worker: Json, extra: Json = {}): string {
  return JSON.stringify({
    apiVersion: 'leaderworkerset.x-k8s.io/v1', kind: 'LeaderWorkerSet', metadata: { name },
    spec: { replicas: 2, ...extra, leaderWorkerTemplate: { size: 4, workerTemplate: { metadata: { annotations: fast }, spec: { containers: [worker] } } } },
  });
}

const ready = (p: Json) => p.status?.phase === 'Running' && (p.status.conditions ?? []).some((c: Json) => c.type === 'Ready' && c.status === 'True');
const isLeader = (p: Json) => p.metadata.labels['leaderworkerset.sigs.k8s.io/worker-index'] === '0';

describe('leaderworkerset', () => {
  const env = useKubectlServer({ args: ['--addons', 'lws'] });
  const pods = async (set: string) => (JSON.parse(await env.k.ok(['get', 'pods', '-l', `leaderworkerset.sigs.k8s.io/name=${set}`, '-o', 'json'])) as Json).items as Json[];
  const live = async (set: string) => (await pods(set)).filter((p) => !p.metadata.deletionTimestamp);
  const allReady = async (set: string, n: number) => {
    const ps = await live(set);
    return ps.length === n && ps.every(ready);
  };
  const create = async (manifest: string) => {
    await eventually(async () => (await env.k.run(['get', 'crd', 'leaderworkersets.leaderworkerset.x-k8s.io'])).code === 0, 30_000, 'the LWS CRD');
    await eventually(async () => (await env.k.run(['create', '-f', '-'], { input: manifest })).code === 0, 15_000, 'LeaderWorkerSet created');
  };

  it('brings up groups leader first, scales by group and rolls groups one at a time', async () => {
    await create(lws('x', { name: 'w', image: 'busybox', command: ['sleep', '100000'] }, { startupPolicy: 'LeaderReady' }));
    await eventually(() => allReady('x', 8), 30_000, '8 pods ready');
    const ps = await pods('x');
    assert.deepEqual(ps.map((p) => p.metadata.name).sort(), ['x-0', 'x-0-1', 'x-0-2', 'x-0-3', 'x-1', 'x-1-1', 'x-1-2', 'x-1-3']);
    for (const g of ['0', '1']) {
      const leader = ps.find((p) => p.metadata.name === `x-${g}`)!;
      const readyAt = Date.parse(leader.status.conditions.find((c: Json) => c.type === 'Ready').lastTransitionTime);
      for (const w of ps.filter((p) => p.metadata.name.startsWith(`x-${g}-`))) {
        assert.ok(Date.parse(w.metadata.creationTimestamp) >= readyAt, `${w.metadata.name} created after its leader was Ready`);
        assert.equal(w.metadata.labels['leaderworkerset.sigs.k8s.io/group-index'], g);
        assert.equal(w.metadata.labels['leaderworkerset.sigs.k8s.io/group-key'], leader.metadata.labels['leaderworkerset.sigs.k8s.io/group-key']);
        assert.deepEqual(w.spec.containers[0].env.slice(0, 3).map((e: Json) => e.value), [`x-${g}.x.default`, '4', w.metadata.name.slice(-1)]);
      }
    }
    const sts = JSON.parse(await env.k.ok(['get', 'statefulsets', '-o', 'json'])) as Json;
    assert.deepEqual(sts.items.map((s: Json) => s.metadata.name).filter((n: string) => n.startsWith('x')).sort(), ['x', 'x-0', 'x-1']);
    await eventually(async () => {
      const o = JSON.parse(await env.k.ok(['get', 'lws', 'x', '-o', 'json'])) as Json;
      return o.status?.readyReplicas === 2 && (o.status.conditions ?? []).some((c: Json) => c.type === 'Available' && c.status === 'True');
    }, 10_000, 'Available with 2 ready groups');
    assert.match(await env.k.ok(['get', 'lws', 'x']), /^NAME\s+READY\s+DESIRED\s+UP-TO-DATE\s+AGE\nx\s+2\s+2\s+2\s+/);

    await env.k.ok(['scale', 'lws/x', '--replicas', '3']);
    await eventually(() => allReady('x', 12), 30_000, '12 pods ready');
    assert.ok((await pods('x')).some((p) => p.metadata.name === 'x-2-3'));

    // Rolling update: at most one group (maxUnavailable 1, maxSurge 0) is down at any time.
    const before = new Map((await pods('x')).map((p) => [p.metadata.name, p.metadata.uid]));
    await env.k.ok(['patch', 'lws', 'x', '--type', 'json', '-p',
      JSON.stringify([{ op: 'add', path: '/spec/leaderWorkerTemplate/workerTemplate/metadata/labels', value: { version: 'two' } }])]);
    let fewest = 3;
    await eventually(async () => {
      const now = await live('x');
      fewest = Math.min(fewest, now.filter((p) => isLeader(p) && ready(p)).length);
      return now.length === 12 && now.every((p) => ready(p) && p.metadata.labels.version === 'two' && before.get(p.metadata.name) !== p.metadata.uid);
    }, 60_000, 'every group replaced');
    assert.ok(fewest >= 2, `groups replaced one at a time (saw ${fewest} ready leaders of 3)`);
  });

  it('gang-schedules each group of a LeaderCreated set through a Workload', async () => {
    await create(lws('gang', { name: 'w', image: 'busybox', command: ['sleep', '3600'] }, { replicas: 2, startupPolicy: 'LeaderCreated' }));
    await eventually(async () => allReady('gang', 8), 30_000, 'both groups Running');
    const wl = JSON.parse(await env.k.ok(['get', 'workloads.scheduling.k8s.io', 'gang', '-o', 'json'])) as Json;
    assert.deepEqual(wl.spec.podGroups, [{ name: 'group', policy: { gang: { minCount: 4 } } }]);
    assert.equal(wl.metadata.ownerReferences[0].kind, 'LeaderWorkerSet');
    for (const p of await live('gang')) {
      assert.deepEqual(p.spec.workloadRef, { name: 'gang', podGroup: 'group', podGroupReplicaKey: p.metadata.labels['leaderworkerset.sigs.k8s.io/group-index'] }, p.metadata.name);
    }
  });

  it('recreates exactly the group whose worker container fails', async () => {
    // Only worker 2 of group 1 exits (its environment names a variable the others do not have).
    const worker = {
      name: 'w', image: 'busybox', env: [{ name: 'CRASH-c-1.c.default-2', value: 'yes' }],
      command: ['sh', '-c', 'sleep 3; if printenv CRASH-$LWS_LEADER_ADDRESS-$LWS_WORKER_INDEX; then exit 1; fi; sleep 100000'],
    };
    await create(lws('c', worker));
    await eventually(() => allReady('c', 8), 30_000, '8 pods ready');
    const first = await pods('c');
    const uid = (ps: Json[], n: string) => ps.find((p) => p.metadata.name === n)?.metadata.uid;
    await eventually(async () => {
      const now = await pods('c');
      return !!uid(now, 'c-1') && uid(now, 'c-1') !== uid(first, 'c-1');
    }, 30_000, 'group 1 recreated');
    const now = await pods('c');
    for (const n of ['c-0', 'c-0-1', 'c-0-2', 'c-0-3']) assert.equal(uid(now, n), uid(first, n), `${n} untouched`);
    const events = await env.k.ok(['get', 'events', '--field-selector', 'reason=RecreateGroup', '-o', 'jsonpath={.items[*].message}']);
    assert.match(events, /Worker pod c-1-2 failed, deleted leader pod c-1 to recreate group 1/);
    await env.k.ok(['delete', 'lws', 'c', '--wait=false']);
  });
});
