// The scheduler cache's assigned pods: a status-only version keeps its counts; a changed spec or label is re-counted.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { SchedulerCache } from '../../src/scheduler/cache.js';
import { mkPod } from './scheduler-fixtures.js';

const bound = (p: Pod, rv: string): Pod => ({ ...p, metadata: { ...p.metadata, resourceVersion: rv }, spec: { ...p.spec!, nodeName: 'a' } });

describe('scheduler cache', () => {
  it('follows a status write without re-counting the pod, and re-counts a label change', () => {
    const cache = new SchedulerCache();
    const v1 = bound(mkPod('p', { requests: { cpu: '500m' }, labels: { app: 'x' } }), '1');
    assert.equal(cache.syncAssigned('default/p', v1).change, 'added');
    const pi = cache.assignedPod('default/p')!;
    // The kubelet's status write: the same spec and labels objects, a start time.
    const v2: Pod = { ...v1, metadata: { ...v1.metadata, resourceVersion: '2' }, status: { phase: 'Running', startTime: '2026-01-02T00:00:00Z' } };
    const r = cache.syncAssigned('default/p', v2);
    assert.equal(r.change, 'updated');
    assert.equal(r.pi, pi);
    assert.equal(pi.pod, v2);
    assert.equal(pi.startMs, Date.parse('2026-01-02T00:00:00Z'));
    assert.equal(cache.nodes.get('a')!.requested.cpu, 500);
    assert.equal(cache.syncAssigned('default/p', v2).change, 'none');
    // New labels: a new PodInfo, counted once.
    const v3: Pod = { ...v2, metadata: { ...v2.metadata, resourceVersion: '3', labels: { app: 'y' } } };
    const r3 = cache.syncAssigned('default/p', v3);
    assert.equal(r3.change, 'updated');
    assert.notEqual(r3.pi, pi);
    assert.equal(r3.pi!.labels.app, 'y');
    assert.equal(cache.nodes.get('a')!.requested.cpu, 500);
    assert.equal(cache.nodes.get('a')!.pods.get('default/p'), r3.pi);
    // A terminal phase stops counting it.
    assert.equal(cache.syncAssigned('default/p', { ...v3, metadata: { ...v3.metadata, resourceVersion: '4' }, status: { phase: 'Succeeded' } }).change, 'removed');
    assert.equal(cache.nodes.get('a')?.requested.cpu ?? 0, 0);
  });
});
