// When kube-system gets its simulated workloads, and which node stands in for the control plane.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node } from '../../src/generated/k8s/core/v1.js';
import { defaultClusterConfig, parseClusterConfig } from '../../src/cluster/config.js';
import { controlPlaneNode, kubeSystemEnabled } from '../../src/cluster/kube-system.js';
import { addonObjects, mirrorPods, systemPodAnnotation } from '../../src/cluster/kube-system-objects.js';

test('kube-system workloads come with 1 to 20 nodes, or as the cluster file says', () => {
  assert.equal(kubeSystemEnabled(defaultClusterConfig(3)), true);
  assert.equal(kubeSystemEnabled(defaultClusterConfig(0)), false, '--nodes 0: no nodes, no kube-system pods');
  assert.equal(kubeSystemEnabled(defaultClusterConfig(19)), true, '19 workers and the GPU node');
  assert.equal(kubeSystemEnabled(defaultClusterConfig(20)), false, '20 workers and the GPU node');
  assert.equal(kubeSystemEnabled(parseClusterConfig('nodePools: [{ name: big, count: 500 }]\nkubeSystem: true\n')), true);
  assert.equal(kubeSystemEnabled(parseClusterConfig('nodePools: [{ name: a, count: 2 }]\nkubeSystem: false\n')), false);
});

test('the control plane stands on the first untainted node; every system pod template is marked for the scheduler', () => {
  const node = (name: string, tainted = false) => ({ metadata: { name }, spec: tainted ? { taints: [{ key: 'k', effect: 'NoSchedule' }] } : {} }) as Node;
  assert.equal(controlPlaneNode([node('b'), node('a', true), node('c')])?.metadata?.name, 'b');
  assert.equal(controlPlaneNode([node('z', true)])?.metadata?.name, 'z');
  assert.equal(controlPlaneNode([]), undefined);
  for (const { object } of addonObjects()) {
    const tpl = (object as { spec?: { template?: { metadata?: { annotations?: Record<string, string> } } } }).spec?.template;
    if (tpl) assert.equal(tpl.metadata?.annotations?.[systemPodAnnotation], 'true', object.metadata.name);
  }
  const mirrors = mirrorPods({ name: 'n1', uid: 'u1' }, '2026-01-01T00:00:00Z');
  assert.deepEqual(mirrors.map((p) => p.metadata.name), ['etcd-n1', 'kube-apiserver-n1', 'kube-controller-manager-n1', 'kube-scheduler-n1']);
  for (const m of mirrors) assert.equal(m.metadata.annotations?.['kubernetes.io/config.mirror'], m.metadata.annotations?.['kubernetes.io/config.hash']);
});
