// VolumeBinding's PreFilter: claims that are missing, terminating or unbound with immediate binding keep the pod
// off every node, with upstream's FailedScheduling wording; WaitForFirstConsumer claims let it through.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim } from '../../src/generated/k8s/core/v1.js';
import type { StorageClass } from '../../src/generated/k8s/storage/v1.js';
import { CycleState, runPreFilters, type Lookups } from '../../src/scheduler/framework.js';
import { fitErrorMessage } from '../../src/scheduler/failure.js';
import { buildPodInfo } from '../../src/scheduler/pod-info.js';
import { defaultFilters } from '../../src/scheduler/plugins/index.js';
import { preempt } from '../../src/scheduler/preemption.js';
import { lookups, mkNode, mkPod } from './scheduler-fixtures.js';

const claims: Record<string, Partial<PersistentVolumeClaim>> = {
  bound: { spec: { volumeName: 'pv-1' } },
  late: { spec: { storageClassName: 'standard' } },
  nowOrNever: { spec: { storageClassName: 'fast' } },
  unknownClass: { spec: { storageClassName: 'my-storage-class' } },
  noClass: { spec: { storageClassName: '' } },
  going: { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' }, spec: {} },
};
const classes: Record<string, Partial<StorageClass>> = { standard: { volumeBindingMode: 'WaitForFirstConsumer' }, fast: { volumeBindingMode: 'Immediate' } };
const withVolumes: Lookups = {
  ...lookups,
  volumes: { claim: (_ns, name) => claims[name] as PersistentVolumeClaim | undefined, storageClass: (name) => classes[name] as StorageClass | undefined },
};
const nodes = [mkNode('a'), mkNode('b')];
const verdict = (...names: string[]) => {
  const pod = mkPod('p', { spec: { volumes: names.map((n, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: n } })) } });
  return runPreFilters(defaultFilters, new CycleState(buildPodInfo(pod), nodes, withVolumes))?.reasons[0];
};

describe('VolumeBinding', () => {
  it('passes bound claims and claims whose class waits for the first consumer', () => {
    assert.equal(verdict('bound', 'late'), undefined);
  });

  it('rejects missing, terminating and unbound immediate claims', () => {
    assert.equal(verdict('bound', 'nope'), 'persistentvolumeclaim "nope" not found');
    assert.equal(verdict('going'), 'persistentvolumeclaim "going" is being deleted');
    for (const name of ['nowOrNever', 'unknownClass', 'noClass']) assert.equal(verdict('late', name), 'pod has unbound immediate PersistentVolumeClaims', name);
  });

  it('checks the claim of a generic ephemeral volume by its generated name', () => {
    const pod = mkPod('db', { spec: { volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } }] } });
    const f = runPreFilters(defaultFilters, new CycleState(buildPodInfo(pod), nodes, withVolumes));
    assert.equal(f?.reasons[0], 'persistentvolumeclaim "db-scratch" not found');
  });

  it('words the event as upstream: the PreFilter message, then why preemption cannot help (with its double period)', () => {
    const pod = mkPod('p', { spec: { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'nowOrNever' } }] } });
    const s = new CycleState(buildPodInfo(pod), nodes, withVolumes);
    const rejected = runPreFilters(defaultFilters, s)!;
    const failures = new Map(nodes.map((n) => [n.name, rejected]));
    const outcome = preempt(defaultFilters, s, failures, []);
    assert.equal(fitErrorMessage(2, failures.values(), outcome.message, rejected.reasons.join(', ')),
      '0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling..');
  });
});
