// Deployment and ReplicaSet arithmetic without a server: fenceposts, new-RS sizing, revision annotations and the
// order in which a ReplicaSet picks pods to delete.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, ReplicaSet } from '../../src/generated/k8s/apps/v1.js';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { equalIgnoreHash, maxSurge, maxUnavailable, newRSReplicas, resolveFenceposts } from '../../src/controllers/deployment/deployment-util.js';
import { setNewReplicaSetAnnotations } from '../../src/controllers/deployment/revisions.js';
import { podsToDelete } from '../../src/controllers/replicaset/pod-ranking.js';
import { calculateReplicaSetStatus, nextAvailableIn } from '../../src/controllers/replicaset/replicaset-status.js';

const deployment = (replicas: number, surge: number | string, unavailable: number | string): Deployment => ({
  metadata: { name: 'web', annotations: { 'kubernetes.io/change-cause': 'why', 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
  spec: { replicas, selector: {}, template: {}, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } } },
});

test('maxSurge rounds up, maxUnavailable rounds down, and both zero make unavailable 1', () => {
  assert.deepEqual(resolveFenceposts('25%', '25%', 10), { surge: 3, unavailable: 2 });
  assert.deepEqual(resolveFenceposts('25%', '25%', 1), { surge: 1, unavailable: 0 });
  assert.deepEqual(resolveFenceposts(0, '10%', 5), { surge: 0, unavailable: 1 });
  assert.deepEqual(resolveFenceposts(0, 0, 5), { surge: 0, unavailable: 1 });
  assert.equal(maxUnavailable(deployment(2, 0, 5)), 2, 'capped at replicas');
  assert.equal(maxUnavailable(deployment(0, 1, 1)), 0);
  assert.equal(maxSurge({ ...deployment(3, 1, 1), spec: { ...deployment(3, 1, 1).spec!, strategy: { type: 'Recreate' } } }), 0);
});

test('the new ReplicaSet grows only within replicas + maxSurge', () => {
  const rs = (replicas: number): ReplicaSet => ({ metadata: {}, spec: { replicas, selector: {} } });
  const d = deployment(4, 1, 1);
  const fresh = rs(0);
  assert.equal(newRSReplicas(d, [rs(4), fresh], fresh), 1);
  const half = rs(2);
  assert.equal(newRSReplicas(d, [rs(2), half], half), 3);
  const full = rs(1);
  assert.equal(newRSReplicas(d, [rs(4), full], full), 1, 'already at 5');
});

test('a reused ReplicaSet takes the next revision and remembers the old one', () => {
  const d = deployment(3, 1, 0);
  const annotations: Record<string, string> = { 'deployment.kubernetes.io/revision': '1' };
  assert.equal(setNewReplicaSetAnnotations(d, annotations, 3, true), true);
  assert.equal(annotations['deployment.kubernetes.io/revision'], '3');
  assert.equal(annotations['deployment.kubernetes.io/revision-history'], '1');
  assert.equal(annotations['kubernetes.io/change-cause'], 'why');
  assert.equal(annotations['kubectl.kubernetes.io/last-applied-configuration'], undefined);
  assert.equal(annotations['deployment.kubernetes.io/desired-replicas'], undefined, 'only set on creation');
  annotations['deployment.kubernetes.io/revision'] = '3';
  setNewReplicaSetAnnotations(d, annotations, 5, true);
  assert.equal(annotations['deployment.kubernetes.io/revision-history'], '1,3');
  const created: Record<string, string> = {};
  setNewReplicaSetAnnotations(d, created, 1, false);
  assert.deepEqual([created['deployment.kubernetes.io/desired-replicas'], created['deployment.kubernetes.io/max-replicas']], ['3', '4']);
});

test('templates compare equal without the hash label and null fields', () => {
  assert.ok(equalIgnoreHash(
    { metadata: { labels: { app: 'a', 'pod-template-hash': 'x' }, creationTimestamp: null } as never, spec: { containers: [{ name: 'c', image: 'i' }] } },
    { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
  ));
  assert.ok(!equalIgnoreHash({ spec: { containers: [{ name: 'c', image: 'i' }] } }, { spec: { containers: [{ name: 'c', image: 'j' }] } }));
});

test('a template stored before the serviceAccount alias was defaulted still matches (no rollout)', () => {
  const containers = [{ name: 'c', image: 'i' }];
  assert.ok(equalIgnoreHash({ spec: { containers, serviceAccountName: 'sa' } }, { spec: { containers, serviceAccountName: 'sa', serviceAccount: 'sa' } }));
  assert.ok(!equalIgnoreHash({ spec: { containers, serviceAccountName: 'sa' } }, { spec: { containers, serviceAccountName: 'other', serviceAccount: 'other' } }));
});

test('pods to delete: unassigned, pending, not ready, then shortest ready, most restarts, newest', () => {
  const now = Date.parse('2026-01-01T01:00:00Z');
  const pod = (name: string, o: { node?: string; phase?: string; readySince?: string; restarts?: number; created?: string; cost?: string }): Pod => ({
    metadata: { name, uid: name, creationTimestamp: o.created ?? '2026-01-01T00:00:00Z', ...(o.cost ? { annotations: { 'controller.kubernetes.io/pod-deletion-cost': o.cost } } : {}) },
    spec: { containers: [], ...(o.node ? { nodeName: o.node } : {}) },
    status: {
      phase: o.phase ?? 'Running',
      conditions: o.readySince ? [{ type: 'Ready', status: 'True', lastTransitionTime: o.readySince }] : [{ type: 'Ready', status: 'False' }],
      containerStatuses: [{ name: 'c', image: 'i', imageID: '', ready: !!o.readySince, restartCount: o.restarts ?? 0 }],
    },
  });
  const pods = [
    pod('ready-long', { node: 'n1', readySince: '2026-01-01T00:00:01Z' }),
    pod('ready-short', { node: 'n2', readySince: '2026-01-01T00:59:59Z' }),
    pod('not-ready', { node: 'n3' }),
    pod('pending', { node: 'n1', phase: 'Pending' }),
    pod('unassigned', { phase: 'Pending' }),
    pod('precious', { node: 'n3', cost: '100' }),
  ];
  const order = podsToDelete(pods, [], 5, now).map((p) => p.metadata?.name);
  assert.deepEqual(order, ['unassigned', 'pending', 'not-ready', 'precious', 'ready-short']);
  const restarts = [pod('calm', { node: 'n1', readySince: '2026-01-01T00:00:01Z' }), pod('flappy', { node: 'n2', readySince: '2026-01-01T00:00:01Z', restarts: 4 })];
  assert.deepEqual(podsToDelete(restarts, [], 1, now).map((p) => p.metadata?.name), ['flappy']);
  const ages = [pod('old', { node: 'n1', created: '2026-01-01T00:00:00Z' }), pod('new', { node: 'n2', created: '2026-01-01T00:59:00Z' })];
  assert.deepEqual(podsToDelete(ages, [], 1, now).map((p) => p.metadata?.name), ['new']);
  // With a related pod on n1, the pod sharing that node goes first.
  const crowded = [pod('a', { node: 'n1', readySince: '2026-01-01T00:00:01Z' }), pod('b', { node: 'n2', readySince: '2026-01-01T00:00:01Z' })];
  assert.deepEqual(podsToDelete(crowded, [crowded[0], pod('sibling', { node: 'n1' })], 1, now).map((p) => p.metadata?.name), ['a']);
});

test('ReplicaSet status: counts, omitted zeros and the ReplicaFailure condition', () => {
  const rs: ReplicaSet = { metadata: { generation: 4 }, spec: { replicas: 3, minReadySeconds: 10, selector: {}, template: { metadata: { labels: { app: 'a', tier: 't' } } } } };
  const now = Date.parse('2026-01-01T00:01:00Z');
  const pod = (labels: Record<string, string>, readySince?: string): Pod => ({
    metadata: { labels }, status: { conditions: [{ type: 'Ready', status: readySince ? 'True' : 'False', lastTransitionTime: readySince }] },
  });
  const pods = [pod({ app: 'a', tier: 't' }, '2026-01-01T00:00:00Z'), pod({ app: 'a', tier: 't' }, '2026-01-01T00:00:55Z'), pod({ app: 'a' })];
  const status = calculateReplicaSetStatus(rs, pods, 1, { reason: 'FailedCreate', message: 'pods "x" is forbidden: no' }, '2026-01-01T00:01:00Z', now);
  assert.deepEqual({ ...status, conditions: undefined }, {
    replicas: 3, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 1, observedGeneration: 4, terminatingReplicas: 1, conditions: undefined,
  });
  assert.deepEqual(status.conditions, [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'pods "x" is forbidden: no', lastTransitionTime: '2026-01-01T00:01:00Z' }]);
  assert.equal(nextAvailableIn(rs, pods, now), 5000, 'the second ready pod becomes available in 5 s');
  const healed = calculateReplicaSetStatus({ ...rs, status }, [], 0, undefined, '2026-01-01T00:02:00Z', now);
  assert.deepEqual(healed, { replicas: 0, observedGeneration: 4, terminatingReplicas: 0 });
});
