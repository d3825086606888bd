// Gang scheduling pieces without a server: Go-style durations, group membership and the PreEnqueue verdicts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { goDuration } from '../../src/scheduler/gang-cycle.js';
import { GangTracker, defaultGangTimeoutMs, groupKeyOf } from '../../src/scheduler/gangs.js';

const pod = (name: string, ref?: Record<string, string>, extra: Partial<Pod> = {}): Pod => ({
  metadata: { name, namespace: 'ns', uid: name }, spec: { containers: [], ...(ref ? { workloadRef: ref } : {}) } as Pod['spec'], ...extra,
});

test('Permit timeouts are worded as Go prints durations', () => {
  assert.equal(goDuration(300_000), '5m0s');
  assert.equal(goDuration(1000), '1s');
  assert.equal(goDuration(1500), '1.5s');
  assert.equal(goDuration(90_000), '1m30s');
  assert.equal(goDuration(3_600_000), '1h0m0s');
  assert.equal(goDuration(250), '250ms');
});

test('membership per replica key, PreEnqueue verdicts, policy lookups', () => {
  const workloads = new Map<string, { metadata?: { annotations?: Record<string, string> }; spec: unknown }>();
  const t = new GangTracker((ns, name) => workloads.get(`${ns}/${name}`));
  const a0 = pod('a0', { name: 'wl', podGroup: 'g', podGroupReplicaKey: 'a' });
  const a1 = pod('a1', { name: 'wl', podGroup: 'g', podGroupReplicaKey: 'a' });
  const b0 = pod('b0', { name: 'wl', podGroup: 'g', podGroupReplicaKey: 'b' });
  assert.notEqual(groupKeyOf(a0), groupKeyOf(b0));
  assert.equal(groupKeyOf(pod('plain')), undefined);

  assert.equal(t.preEnqueue(a0, 'ns/a0'), 'waiting for pods\'s workload "wl" to appear in scheduling queue');
  workloads.set('ns/wl', { spec: { podGroups: [{ name: 'other', policy: { basic: {} } }] } });
  assert.equal(t.preEnqueue(a0, 'ns/a0'), 'pod group "g" doesn\'t exist for a workload "wl"');
  workloads.set('ns/wl', { metadata: { annotations: { 'bonsai.dev/gang-scheduling-timeout-seconds': '2.5' } }, spec: { podGroups: [{ name: 'g', policy: { gang: { minCount: 2 } } }] } });
  assert.deepEqual(t.policy(a0), { kind: 'gang', minCount: 2, timeoutMs: 2500 });

  assert.equal(t.sync('ns/a0', a0), groupKeyOf(a0));
  assert.equal(t.sync('ns/b0', b0), groupKeyOf(b0));
  assert.equal(t.preEnqueue(a0, 'ns/a0'), 'waiting for minCount pods from a gang to appear in scheduling queue');
  t.sync('ns/a1', a1);
  assert.equal(t.preEnqueue(a0, 'ns/a0'), undefined, 'replica a has two pods');
  assert.equal(t.preEnqueue(b0, 'ns/b0'), 'waiting for minCount pods from a gang to appear in scheduling queue', 'replica b has one');
  assert.deepEqual([...t.podsOfWorkload('ns', 'wl')].sort(), ['ns/a0', 'ns/a1', 'ns/b0']);

  // Binding is counted; terminal and deleted pods leave the group.
  assert.equal(t.sync('ns/a1', { ...a1, spec: { ...a1.spec!, nodeName: 'n1' } }), undefined);
  assert.equal(t.boundCount(groupKeyOf(a0)!), 1);
  assert.equal(t.sync('ns/a1', { ...a1, status: { phase: 'Failed' } }), groupKeyOf(a0));
  assert.equal(t.boundCount(groupKeyOf(a0)!), 0);
  assert.equal(t.preEnqueue(a0, 'ns/a0'), 'waiting for minCount pods from a gang to appear in scheduling queue');
  assert.equal(t.sync('ns/b0', undefined), groupKeyOf(b0));
  assert.deepEqual([...t.membersOf(groupKeyOf(b0)!)], []);

  // Malformed or absent annotations fall back to upstream's 5 minutes; basic groups pass PreEnqueue at once.
  workloads.set('ns/wl', { metadata: { annotations: { 'bonsai.dev/gang-scheduling-timeout-seconds': '1e9' } }, spec: { podGroups: [{ name: 'g', policy: { gang: { minCount: 1 } } }] } });
  assert.deepEqual(t.policy(a0), { kind: 'gang', minCount: 1, timeoutMs: defaultGangTimeoutMs });
  workloads.set('ns/wl', { spec: { podGroups: [{ name: 'g', policy: { basic: {} } }] } });
  assert.equal(t.preEnqueue(a0, 'ns/a0'), undefined);
  assert.deepEqual(t.policy(pod('plain')), { kind: 'none' });
});
