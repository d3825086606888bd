// LeaderWorkerSet pieces without a cluster: the rolling-update arithmetic, the pod defaulting upstream's webhook
// does, the StatefulSets built for a set, and the status conditions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { nextPartition, rollout, rolloutReplicas, type GroupState } from '../../src/addons/lws/rolling-update.js';
import { defaultLwsPod, groupKeyOf, subGroupIndex } from '../../src/addons/lws/pod-defaulter.js';
import { leaderStatefulSet, workerStatefulSet } from '../../src/addons/lws/statefulsets.js';
import { computeStatus } from '../../src/addons/lws/status.js';
import { podBroken } from '../../src/addons/lws/pod-controller.js';
import { scaled, type LeaderWorkerSet } from '../../src/addons/lws/types.js';

const ok: GroupState = { ready: true, updated: true };
const old: GroupState = { ready: true, updated: false };
const down: GroupState = { ready: false, updated: true };

const set = (spec: LeaderWorkerSet['spec'] = {}, annotations: Record<string, string> = {}): LeaderWorkerSet => ({
  apiVersion: 'leaderworkerset.x-k8s.io/v1', kind: 'LeaderWorkerSet',
  metadata: { name: 'x', namespace: 'ns', uid: 'u1', generation: 2, annotations },
  spec: { replicas: 3, leaderWorkerTemplate: { size: 4, workerTemplate: { spec: { containers: [{ name: 'c', image: 'i' }] } } }, ...spec },
});

test('int-or-percent scaling rounds as upstream', () => {
  assert.equal(scaled('50%', 3, true, 0), 2);
  assert.equal(scaled('50%', 3, false, 0), 1);
  assert.equal(scaled(2, 3, false, 0), 2);
  assert.equal(scaled(undefined, 3, false, 1), 1);
  assert.equal(scaled('nonsense', 3, false, 1), 0);
});

test('rolling update: a template change pins the partition at the top, then steps down one group at a time', () => {
  const base = { lwsReplicas: 3, lwsPartition: 0, maxSurge: 0, maxUnavailable: 1 };
  assert.deepEqual(rollout({ ...base, templateChanged: false, states: () => [] }), { partition: 0, replicas: 3 });
  const sts = { replicas: 3, partition: 0, replicasAnnotation: 3 };
  assert.deepEqual(rollout({ ...base, sts, templateChanged: true, states: () => [] }), { partition: 3, replicas: 3 });
  // Nothing updated yet: the top group goes first.
  assert.deepEqual(rollout({ ...base, sts: { ...sts, partition: 3 }, templateChanged: false, states: () => [old, old, old] }), { partition: 2, replicas: 3 });
  // The top group is being replaced (not ready): no further step.
  assert.equal(nextPartition([old, old, down], 3, 1, 2), 2);
  // The top group is back: the next one goes.
  assert.equal(nextPartition([old, old, ok], 3, 1, 2), 1);
  // The user's partition is a floor.
  assert.deepEqual(rollout({ ...base, lwsPartition: 2, sts: { ...sts, partition: 3 }, templateChanged: false, states: () => [old, old, old] }), { partition: 2, replicas: 3 });
});

test('rolling update with maxSurge keeps extra groups while groups are unready', () => {
  assert.equal(rolloutReplicas(3, 1, 1, 3), 4);
  assert.equal(rolloutReplicas(3, 1, 1, 1), 3);
  assert.equal(rolloutReplicas(3, 2, 0, 1), 4);
  const d = rollout({ lwsReplicas: 3, lwsPartition: 0, maxSurge: 1, maxUnavailable: 0, sts: { replicas: 3, partition: 0, replicasAnnotation: 3 }, templateChanged: true, states: () => [] });
  assert.deepEqual(d, { partition: 3, replicas: 4 });
});

test('the leader StatefulSet: upstream name, selector, labels, annotations and update strategy', () => {
  const s = leaderStatefulSet(set({ rolloutStrategy: { rollingUpdateConfiguration: { maxUnavailable: 2, maxSurge: 1 } } }), 1, 4, 'h1');
  assert.equal(s.metadata?.name, 'x');
  assert.equal(s.spec?.serviceName, 'x');
  assert.equal(s.spec?.podManagementPolicy, 'Parallel');
  assert.deepEqual(s.spec?.selector, { matchLabels: { 'leaderworkerset.sigs.k8s.io/name': 'x', 'leaderworkerset.sigs.k8s.io/worker-index': '0' } });
  assert.deepEqual(s.spec?.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 3, partition: 1 } });
  assert.equal(s.metadata?.annotations?.['leaderworkerset.sigs.k8s.io/replicas'], '3');
  assert.equal(s.spec?.template.metadata?.labels?.['leaderworkerset.sigs.k8s.io/template-revision-hash'], 'h1');
  assert.equal(s.spec?.template.metadata?.annotations?.['leaderworkerset.sigs.k8s.io/size'], '4');
  assert.deepEqual(s.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.controller]), [['LeaderWorkerSet', 'x', true]]);
});

test('a worker StatefulSet is owned by its leader, starts at ordinal 1 and carries the group labels', () => {
  const lws = set({ networkConfig: { subdomainPolicy: 'UniquePerReplica' } });
  const leader: Pod = { metadata: { name: 'x-1', namespace: 'ns', uid: 'p1', labels: { 'leaderworkerset.sigs.k8s.io/group-index': '1', 'leaderworkerset.sigs.k8s.io/group-key': 'k', 'leaderworkerset.sigs.k8s.io/template-revision-hash': 'h1' } } };
  const s = workerStatefulSet(leader, lws, lws);
  assert.equal(s.metadata?.name, 'x-1');
  assert.equal(s.spec?.replicas, 3);
  assert.deepEqual(s.spec?.ordinals, { start: 1 });
  assert.equal(s.spec?.serviceName, 'x-1');
  assert.deepEqual(s.metadata?.ownerReferences?.map((r) => [r.apiVersion, r.kind, r.name, r.uid]), [['v1', 'Pod', 'x-1', 'p1']]);
  assert.equal(s.spec?.template.metadata?.annotations?.['leaderworkerset.sigs.k8s.io/leader-name'], 'x-1');
  assert.equal(s.spec?.template.metadata?.labels?.['leaderworkerset.sigs.k8s.io/template-revision-hash'], 'h1');
});

test('pod defaulting: leader and worker labels, sub-groups, exclusive affinity and the LWS environment', () => {
  const ann = { 'leaderworkerset.sigs.k8s.io/size': '4', 'leaderworkerset.sigs.k8s.io/subgroup-size': '2', 'leaderworkerset.sigs.k8s.io/exclusive-topology': 'zone' };
  const shared = { containers: [{ name: 'c', image: 'i', env: [{ name: 'LWS_GROUP_SIZE', value: 'mine' }, { name: 'A', value: 'a' }] }] };
  const leader: Pod = { metadata: { name: 'x-1', labels: { 'leaderworkerset.sigs.k8s.io/name': 'x', 'leaderworkerset.sigs.k8s.io/worker-index': '0' }, annotations: ann }, spec: { ...shared, subdomain: 'x' } };
  assert.equal(defaultLwsPod(leader, 'ns'), true);
  const l = leader.metadata!.labels!;
  assert.equal(l['leaderworkerset.sigs.k8s.io/group-index'], '1');
  assert.equal(l['leaderworkerset.sigs.k8s.io/group-key'], groupKeyOf('ns', 'x-1'));
  assert.equal(l['leaderworkerset.sigs.k8s.io/subgroup-index'], '0');
  assert.deepEqual(leader.spec!.containers[0].env, [
    { name: 'LWS_LEADER_ADDRESS', value: 'x-1.x.ns' }, { name: 'LWS_GROUP_SIZE', value: '4' }, { name: 'LWS_WORKER_INDEX', value: '0' }, { name: 'A', value: 'a' },
  ]);
  assert.equal(leader.spec!.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.[0].topologyKey, 'zone');
  // The template the pod came from is not changed.
  assert.equal(shared.containers[0].env.length, 2);
  const worker: Pod = {
    metadata: { name: 'x-1-3', labels: { 'leaderworkerset.sigs.k8s.io/name': 'x', 'leaderworkerset.sigs.k8s.io/group-index': '1' }, annotations: { ...ann, 'leaderworkerset.sigs.k8s.io/leader-name': 'x-1' } },
    spec: { containers: [{ name: 'c', image: 'i' }], subdomain: 'x' },
  };
  assert.equal(defaultLwsPod(worker, 'ns'), true);
  assert.equal(worker.metadata!.labels!['leaderworkerset.sigs.k8s.io/worker-index'], '3');
  assert.equal(worker.metadata!.labels!['leaderworkerset.sigs.k8s.io/subgroup-index'], '1');
  assert.equal(worker.spec!.containers[0].env?.[2].value, '3');
  // Not an LWS pod, or no size: untouched.
  assert.equal(defaultLwsPod({ metadata: { name: 'p-1', labels: {} }, spec: { containers: [] } }, 'ns'), false);
  assert.equal(subGroupIndex(5, 2, 1), 0);
  assert.equal(subGroupIndex(5, 2, 4), 1);
  assert.equal(subGroupIndex(4, 2, 3), 1);
});

test('a restarted container or failed pod breaks the group; a clean one does not', () => {
  assert.equal(podBroken({ metadata: {}, status: { phase: 'Running', containerStatuses: [{ name: 'c', restartCount: 1 } as never] } }), true);
  assert.equal(podBroken({ metadata: {}, status: { phase: 'Failed' } }), true);
  assert.equal(podBroken({ metadata: {}, status: { phase: 'Running', containerStatuses: [{ name: 'c', restartCount: 0 } as never] } }), false);
  assert.equal(podBroken({ metadata: {}, status: { phase: 'Succeeded', containerStatuses: [{ name: 'c', restartCount: 3 } as never] } }), false);
});

test('status: Progressing until every group is ready, then Available; a new revision is UpdateInProgress', () => {
  const lws = set({ replicas: 1, leaderWorkerTemplate: { size: 1, workerTemplate: {} } });
  const leader = (rev: string, isReady: boolean): Pod => ({
    metadata: { name: 'x-0', labels: { 'leaderworkerset.sigs.k8s.io/group-index': '0', 'leaderworkerset.sigs.k8s.io/template-revision-hash': rev } },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: isReady ? 'True' : 'False' }] },
  });
  const sts = { metadata: {}, status: { replicas: 1 } };
  const a = computeStatus(lws, sts, { leaders: [leader('h', false)], workers: new Map() }, 'h', 't0');
  assert.deepEqual(a.status.conditions?.map((c) => [c.type, c.status, c.reason]), [['Progressing', 'True', 'GroupsProgressing']]);
  const b = computeStatus({ ...lws, status: a.status }, sts, { leaders: [leader('h', true)], workers: new Map() }, 'h', 't1');
  assert.deepEqual(b.status.conditions?.map((c) => [c.type, c.status]), [['Progressing', 'False'], ['Available', 'True']]);
  assert.equal(b.event?.message, 'All replicas are ready, with 1 groups ready of total 1 groups');
  assert.equal(b.updateDone, true);
  const c = computeStatus({ ...lws, status: b.status }, sts, { leaders: [leader('h', true)], workers: new Map() }, 'h2', 't2');
  assert.deepEqual(c.status.conditions?.map((x) => [x.type, x.status]), [['Progressing', 'True'], ['Available', 'False'], ['UpdateInProgress', 'True']]);
  assert.equal(c.status.hpaPodSelector, 'leaderworkerset.sigs.k8s.io/name=x,leaderworkerset.sigs.k8s.io/worker-index=0');
  const same = computeStatus({ ...lws, status: c.status }, sts, { leaders: [leader('h', true)], workers: new Map() }, 'h2', 't3');
  assert.equal(same.changed, false);
});
