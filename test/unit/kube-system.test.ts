// When kube-system gets its simulated workloads, and the control-plane node's static pods.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultClusterConfig, parseClusterConfig } from '../../src/cluster/config.js';
import { kubeSystemEnabled } from '../../src/cluster/kube-system.js';
import { addonObjects, mirrorPodNames, mirrorPods, systemPodAnnotation } from '../../src/cluster/kube-system-objects.js';
import { startBonsai, type BonsaiOptions } from '../../src/main.js';
import { clientFor } from '../../src/client/client.js';

test('kube-system workloads come with 1 to 20 pool nodes (or the control-plane node alone), or as the cluster file says', () => {
  assert.equal(kubeSystemEnabled(defaultClusterConfig(3)), true);
  assert.equal(kubeSystemEnabled(defaultClusterConfig(0)), false, '--nodes 0: no nodes, no kube-system pods');
  assert.equal(kubeSystemEnabled(defaultClusterConfig(19)), true, '19 workers and the GPU node');
  assert.equal(kubeSystemEnabled(defaultClusterConfig(20)), false, '20 workers and the GPU node');
  assert.equal(kubeSystemEnabled(parseClusterConfig('nodePools: [{ name: big, count: 500 }]\nkubeSystem: true\n')), true);
  assert.equal(kubeSystemEnabled(parseClusterConfig('nodePools: [{ name: a, count: 2 }]\nkubeSystem: false\n')), false);
  assert.equal(kubeSystemEnabled(parseClusterConfig('nodePools: []\n')), true, 'the control-plane node alone, as a one-node kind cluster');
  assert.equal(kubeSystemEnabled(parseClusterConfig('nodePools: []\ncontrolPlane: false\n')), false, 'no nodes at all');
  assert.equal(kubeSystemEnabled(parseClusterConfig('nodePools: [{ name: a, count: 20 }]\n')), true, '20 pool nodes and the control-plane node');
});

test('mirror pods are named for their node; every system pod template is marked for the scheduler', () => {
  for (const { object } of addonObjects()) {
    const tpl = (object as { spec?: { template?: { metadata?: { annotations?: Record<string, string> } } } }).spec?.template;
    if (tpl) assert.equal(tpl.metadata?.annotations?.[systemPodAnnotation], 'true', object.metadata.name);
  }
  const mirrors = mirrorPods({ name: 'n1', uid: 'u1' }, '2026-01-01T00:00:00Z');
  assert.deepEqual(mirrors.map((p) => p.metadata.name), ['etcd-n1', 'kube-apiserver-n1', 'kube-controller-manager-n1', 'kube-scheduler-n1']);
  for (const m of mirrors) assert.equal(m.metadata.annotations?.['kubernetes.io/config.mirror'], m.metadata.annotations?.['kubernetes.io/config.hash']);
});

test('a data directory from before the control-plane node: its mirror pods move there, none stays on a worker', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bonsai-kube-system-'));
  const opts: BonsaiOptions = { port: 0, data: dir, logLevel: 'silent', addons: [], controllers: [] };
  try {
    // The earlier layout: no control-plane node, the mirror pods on a worker.
    let b = await startBonsai({ ...opts, cluster: { config: parseClusterConfig('controlPlane: false\nkubeSystem: true\nnodePools: [{ name: worker }]\n') } });
    try {
      const client = clientFor(b.registry);
      const worker = client.get('v1/nodes', '', 'bonsai-worker-1')!;
      for (const pod of mirrorPods({ name: 'bonsai-worker-1', uid: worker.metadata.uid ?? '' }, '2026-01-01T00:00:00Z')) client.create('v1/pods', 'kube-system', pod);
    } finally {
      await b.close();
    }
    b = await startBonsai({ ...opts, cluster: { config: parseClusterConfig('nodePools: [{ name: worker }]\n') } });
    try {
      const mirrors = clientFor(b.registry).list('v1/pods', 'kube-system').filter((p) => p.metadata.annotations?.['kubernetes.io/config.mirror']);
      assert.deepEqual(mirrors.map((p) => p.metadata.name).sort(), mirrorPodNames('bonsai-control-plane'));
    } finally {
      await b.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
