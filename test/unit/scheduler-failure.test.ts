// FailedScheduling message, preemption victim selection and the scheduling queue.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PodDisruptionBudget } from '../../src/generated/k8s/policy/v1.js';
import { CycleState, runPreFilters, type Failure } from '../../src/scheduler/framework.js';
import { fitErrorMessage } from '../../src/scheduler/failure.js';
import { buildPodInfo } from '../../src/scheduler/pod-info.js';
import { defaultFilters } from '../../src/scheduler/plugins/index.js';
import { pickCandidate, preempt, selectVictims, splitByPdb } from '../../src/scheduler/preemption.js';
import { backoffDuration, SchedulingQueue } from '../../src/scheduler/queue.js';
import { ManualClock } from '../../src/util/clock.js';
import { lookups, mkNode, mkPod, place } from './scheduler-fixtures.js';

const f = (plugin: string, code: Failure['code'], ...reasons: string[]): Failure => ({ plugin, code, reasons });

describe('FailedScheduling message', () => {
  it('counts reasons, sorts them as strings and appends the preemption message', () => {
    const msg = fitErrorMessage(4, [
      f('NodeResourcesFit', 'Unschedulable', 'Insufficient nvidia.com/gpu'),
      f('TaintToleration', 'UnschedulableAndUnresolvable', 'node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }'),
      f('NodeResourcesFit', 'Unschedulable', 'Insufficient nvidia.com/gpu'),
      f('NodeResourcesFit', 'Unschedulable', 'Insufficient cpu', 'Insufficient nvidia.com/gpu'),
    ], 'preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.');
    assert.equal(msg, '0/4 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 3 Insufficient nvidia.com/gpu. '
      + 'preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod..');
  });
});

describe('preemption', () => {
  it('evicts the fewest, least important pods and reprieves the rest', () => {
    const n = mkNode('a', { alloc: { cpu: '4' } });
    place(n, mkPod('low-big', { requests: { cpu: '2' }, priority: 1 }));
    place(n, mkPod('low-small', { requests: { cpu: '1' }, priority: 2 }));
    place(n, mkPod('peer', { requests: { cpu: '1' }, priority: 100 }));
    const s = new CycleState(buildPodInfo(mkPod('p', { requests: { cpu: '2' }, priority: 100 })), [n], lookups);
    runPreFilters(defaultFilters, s);
    const c = selectVictims(defaultFilters, s, n, []);
    assert.ok(!('plugin' in c));
    assert.deepEqual(c.victims.map((v) => v.name), ['low-big']);
    assert.equal(n.pods.size, 3, 'the node is left as it was');
    assert.equal(n.requested.cpu, 4000);
  });

  it('reports why preemption cannot help, and honours preemptionPolicy Never', () => {
    const full = mkNode('full', { alloc: { cpu: '1' } });
    place(full, mkPod('same', { requests: { cpu: '1' }, priority: 5 }));
    const tainted = mkNode('tainted', { taints: [{ key: 'k', effect: 'NoSchedule' }] });
    const pod = mkPod('p', { requests: { cpu: '1' }, priority: 5 });
    const s = new CycleState(buildPodInfo(pod), [full, tainted], lookups);
    runPreFilters(defaultFilters, s);
    const failures = new Map([['full', f('NodeResourcesFit', 'Unschedulable', 'Insufficient cpu')], ['tainted', f('TaintToleration', 'UnschedulableAndUnresolvable', 'x')]]);
    const out = preempt(defaultFilters, s, failures, []);
    assert.equal(out.message, 'preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.');
    assert.equal(out.nominate, '');
    const never = new CycleState(buildPodInfo(mkPod('n', { spec: { preemptionPolicy: 'Never' } })), [full], lookups);
    assert.equal(preempt(defaultFilters, never, failures, []).message, 'preemption: not eligible due to preemptionPolicy=Never.');
  });

  it('puts PDB-protected pods last and prefers nodes with fewer violations', () => {
    const a = buildPodInfo(mkPod('a', { labels: { app: 'x' } }));
    const b = buildPodInfo(mkPod('b', { labels: { app: 'x' } }));
    const pdb = { metadata: { namespace: 'default' }, spec: { selector: { matchLabels: { app: 'x' } } }, status: { disruptionsAllowed: 1 } } as unknown as PodDisruptionBudget;
    const split = splitByPdb([a, b], [pdb]);
    assert.deepEqual([split.ok.map((p) => p.name), split.violating.map((p) => p.name)], [['a'], ['b']]);
    const n1 = mkNode('n1');
    const n2 = mkNode('n2');
    const lowPrio = buildPodInfo(mkPod('v1', { priority: 1 }));
    const highPrio = buildPodInfo(mkPod('v2', { priority: 50 }));
    assert.equal(pickCandidate([{ node: n1, victims: [lowPrio], pdbViolations: 1 }, { node: n2, victims: [highPrio], pdbViolations: 0 }])?.node.name, 'n2');
    assert.equal(pickCandidate([{ node: n1, victims: [highPrio], pdbViolations: 0 }, { node: n2, victims: [lowPrio, lowPrio], pdbViolations: 0 }])?.node.name, 'n2');
  });
});

describe('scheduling queue', () => {
  it('orders by priority then age, and backs off 1s doubling to 10s', () => {
    const clock = new ManualClock();
    const q = new SchedulingQueue(clock, () => undefined);
    q.upsert(mkPod('old-low', { priority: 0 }), 'd/old-low');
    q.upsert({ ...mkPod('high', { priority: 10 }) }, 'd/high');
    q.upsert(mkPod('gated', { priority: 99, spec: { schedulingGates: [{ name: 'g' }] } }), 'd/gated');
    assert.equal(q.pop()?.key, 'd/high');
    assert.equal(q.pop()?.key, 'd/old-low');
    assert.equal(q.pop(), undefined);
    assert.deepEqual([1, 2, 3, 4, 5, 9].map(backoffDuration), [1000, 2000, 4000, 8000, 10_000, 10_000]);
  });

  it('retries parked pods after five minutes at the latest, and releases gated pods when ungated', () => {
    const clock = new ManualClock();
    const q = new SchedulingQueue(clock, () => undefined);
    q.upsert(mkPod('p'), 'd/p');
    const e = q.pop()!;
    q.done(e, 'unschedulable', new Set(['NodeAffinity']));
    clock.advance(4 * 60_000);
    q.flushLongParked();
    assert.equal(e.where, 'unschedulable');
    clock.advance(60_000);
    q.flushLongParked();
    assert.equal(e.where, 'active');
    const gatedPod = mkPod('g', { spec: { schedulingGates: [{ name: 'x' }] } });
    const g = q.upsert(gatedPod, 'd/g');
    assert.equal(g.where, 'gated');
    q.upsert({ ...gatedPod, metadata: { ...gatedPod.metadata, labels: { same: 'pod' } } }, 'd/g');
    assert.equal(g.where, 'gated');
    q.upsert({ ...gatedPod, spec: { ...gatedPod.spec!, schedulingGates: [] } }, 'd/g');
    assert.equal(g.where, 'active');
  });

  it('parks unschedulable pods until a change may help, then honours the backoff', () => {
    const clock = new ManualClock();
    const q = new SchedulingQueue(clock, () => undefined);
    q.upsert(mkPod('p'), 'd/p');
    const e = q.pop()!;
    q.done(e, 'unschedulable', new Set(['NodeResourcesFit']));
    assert.equal(e.where, 'unschedulable');
    q.moveParked((x) => x.rejectors.has('InterPodAffinity'));
    assert.equal(e.where, 'unschedulable');
    q.moveParked(() => true);
    assert.equal(e.where, 'backoff');
    clock.advance(1000);
    assert.equal(e.where, 'active');
    assert.equal(q.pop(), e);
  });
});
