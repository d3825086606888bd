import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClusterConfigError, defaultClusterConfig, loadClusterConfig, parseClusterConfig } from '../../src/cluster/config.js';
import { buildNode, plannedNodes } from '../../src/cluster/node-object.js';
import { allocatableFor } from '../../src/kubelet/node-status.js';
import { indexOfPodCidr, internalIpForIndex, PodIPPool, podCidrForIndex } from '../../src/kubelet/pod-ips.js';

const names = (yaml: string) => plannedNodes(parseClusterConfig(yaml)).map((n) => n.name);

function errorOf(yaml: string): string {
  try {
    parseClusterConfig(yaml, 'c.yaml');
  } catch (e) {
    assert.ok(e instanceof ClusterConfigError, String(e));
    return e.message;
  }
  assert.fail('expected a ClusterConfigError');
}

test('default cluster: a control-plane node, three workers over three zones and an H100 node', () => {
  const c = defaultClusterConfig();
  assert.deepEqual(plannedNodes(c).map((n) => n.name), ['bonsai-control-plane', 'bonsai-worker-1', 'bonsai-worker-2', 'bonsai-worker-3', 'bonsai-gpu-1']);
  const nodes = plannedNodes(c).map((p, i) => buildNode(p, c.region, i, new Date(0)));
  assert.deepEqual(nodes.map((n) => n.metadata?.labels?.['topology.kubernetes.io/zone']), [undefined, 'zone-a', 'zone-b', 'zone-c', 'zone-a']);
  const cp = nodes[0];
  assert.equal(cp.metadata?.labels?.['node-role.kubernetes.io/control-plane'], '', 'kubeadm labels the control-plane node with its role');
  assert.equal(cp.metadata?.labels?.['node.kubernetes.io/exclude-from-external-load-balancers'], '');
  assert.deepEqual(cp.spec?.taints, [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
  assert.equal(cp.spec?.podCIDR, '10.244.0.0/24');
  assert.deepEqual(cp.status?.addresses, [{ type: 'InternalIP', address: '172.18.0.2' }, { type: 'Hostname', address: 'bonsai-control-plane' }], 'the address the API server advertises');
  assert.equal(cp.metadata?.labels?.['bonsai.dev/node-pool'], undefined, 'in no pool');
  for (const n of nodes.slice(1)) {
    assert.deepEqual(Object.keys(n.metadata?.labels ?? {}).filter((k) => k.startsWith('node-role.kubernetes.io/')), [], `${n.metadata?.name}: no role, as kind's workers`);
  }
  const gpu = nodes[4];
  assert.equal(gpu.status?.capacity?.['nvidia.com/gpu'], '8');
  assert.equal(gpu.status?.allocatable?.['nvidia.com/gpu'], '8');
  assert.equal(gpu.status?.capacity?.cpu, '64');
  assert.equal(gpu.metadata?.labels?.['nvidia.com/gpu.product'], 'NVIDIA-H100-80GB-HBM3');
  assert.deepEqual(gpu.spec?.taints, [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }], 'the GPU node is tainted as on managed clusters');
  const w = nodes[1];
  assert.equal(w.status?.capacity?.memory, '32Gi');
  assert.equal(w.status?.allocatable?.memory, '33452032Ki', 'allocatable keeps back the 100Mi eviction threshold');
  assert.equal(w.spec?.podCIDR, '10.244.1.0/24');
  assert.deepEqual(w.status?.addresses, [{ type: 'InternalIP', address: '172.18.0.4' }, { type: 'Hostname', address: 'bonsai-worker-1' }]);
  assert.equal(w.status?.conditions?.find((x) => x.type === 'Ready')?.status, 'True');
  assert.equal(w.status?.nodeInfo?.kubeletVersion, 'v1.35.0');
  assert.equal(w.metadata?.labels?.['kubernetes.io/hostname'], 'bonsai-worker-1');
});

test('--nodes sets the worker count; 0 means no nodes at all', () => {
  assert.equal(plannedNodes(defaultClusterConfig(5)).length, 7);
  assert.deepEqual(plannedNodes(defaultClusterConfig(0)), []);
  assert.deepEqual(plannedNodes(loadClusterConfig({ nodes: 1 })).map((n) => n.name), ['bonsai-control-plane', 'bonsai-worker-1', 'bonsai-gpu-1']);
});

test('cluster file pools: resources, labels, taints, zones and kubelet timings', () => {
  const c = parseClusterConfig(`
region: eu-west
nodePools:
  - name: cpu
    count: 2
    cpu: 16
    memory: 64Gi
    zones: [z1]
  - name: amd
    count: 1
    resources: { amd.com/gpu: 4 }
    labels: { accelerator: mi300x }
    taints: [{ key: amd.com/gpu, value: present, effect: NoSchedule }]
kubelet:
  pullSeconds: 2
`);
  assert.deepEqual(plannedNodes(c).map((n) => n.name), ['bonsai-control-plane', 'bonsai-cpu-1', 'bonsai-cpu-2', 'bonsai-amd-1']);
  assert.equal(c.kubelet.pullMs, 2000);
  assert.equal(c.kubelet.startMs, 100);
  const amd = buildNode(plannedNodes(c)[3], c.region, 7, new Date(0));
  assert.equal(amd.status?.capacity?.['amd.com/gpu'], '4');
  assert.equal(amd.metadata?.labels?.accelerator, 'mi300x');
  assert.equal(amd.metadata?.labels?.['topology.kubernetes.io/region'], 'eu-west');
  assert.deepEqual(amd.spec?.taints, [{ key: 'amd.com/gpu', value: 'present', effect: 'NoSchedule' }]);
  const cpu = buildNode(plannedNodes(c)[2], c.region, 1, new Date(0));
  assert.equal(cpu.status?.capacity?.cpu, '16');
  assert.equal(cpu.metadata?.labels?.['topology.kubernetes.io/zone'], 'z1');
  assert.deepEqual(names('nodePools: []'), ['bonsai-control-plane']);
  assert.deepEqual(names(''), ['bonsai-control-plane']);
  assert.deepEqual(names('controlPlane: false'), []);
  assert.deepEqual(names('controlPlane: false\nnodePools: [{ name: a, labels: { node-role.kubernetes.io/worker: "" } }]'), ['bonsai-a-1']);
  const roles = buildNode(plannedNodes(parseClusterConfig('nodePools: [{ name: a, labels: { node-role.kubernetes.io/worker: "" } }]'))[1], c.region, 1, new Date(0));
  assert.equal(roles.metadata?.labels?.['node-role.kubernetes.io/worker'], '', 'a pool gives its nodes a role through its labels');
});

test('a pool with nvidia.com/gpu gets the GPU labels a scheduler selects on', () => {
  const c = parseClusterConfig('nodePools: [{ name: a100, resources: { nvidia.com/gpu: 4 } }]');
  assert.equal(c.nodePools[0].labels['nvidia.com/gpu.present'], 'true');
  assert.equal(c.nodePools[0].labels['nvidia.com/gpu.count'], '4');
});

test('cluster file errors name the field', () => {
  assert.match(errorOf('nodePools: [{ count: 2 }]'), /^c\.yaml: nodePools\[0\]\.name: required/);
  assert.match(errorOf('nodePools: [{ name: a, count: -1 }]'), /nodePools\[0\]\.count: must be a whole number, 0 or more/);
  assert.match(errorOf('nodePools: [{ name: a, memory: lots }]'), /nodePools\[0\]\.memory: must be a quantity/);
  assert.match(errorOf('nodePools: [{ name: a, taints: [{ key: k, effect: Sometimes }] }]'), /taints\[0\]\.effect: must be NoSchedule, PreferNoSchedule or NoExecute/);
  assert.match(errorOf('nodePools: [{ name: a, resources: { gpu: 1 } }]'), /resources\.gpu: extended resource names are domain-qualified/);
  assert.match(errorOf('nodePools: [{ name: a }, { name: a }]'), /duplicate pool name "a"/);
  assert.match(errorOf('nodePools: [{ name: a, cpus: 3 }]'), /nodePools\[0\]\.cpus: unknown field/);
  assert.match(errorOf('nodes: 3'), /^c\.yaml: nodes: unknown field/);
  assert.match(errorOf('controlPlane: yes please'), /^c\.yaml: controlPlane: must be true or false/);
  assert.match(errorOf('kubelet: { pullSeconds: fast }'), /kubelet\.pullSeconds: must be a number of seconds/);
  assert.match(errorOf('nodePools: [{ name: Bad_Name }]'), /name: required, lower case letters/);
  assert.match(errorOf('nodePools: {'), /invalid YAML/);
  assert.match(errorOf('- 1'), /must be a mapping/);
});

test('a cluster file is read from disk; --nodes with --cluster is refused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bonsai-cfg-'));
  const file = join(dir, 'cluster.yaml');
  writeFileSync(file, 'nodePools: [{ name: big, count: 2, cpu: 32 }]\n');
  assert.deepEqual(plannedNodes(loadClusterConfig({ clusterFile: file })).map((n) => n.name), ['bonsai-control-plane', 'bonsai-big-1', 'bonsai-big-2']);
  assert.throws(() => loadClusterConfig({ clusterFile: file, nodes: 2 }), /cannot be used together/);
  assert.throws(() => loadClusterConfig({ clusterFile: join(dir, 'missing.yaml') }), /cannot read cluster file/);
});

test('addresses: pod CIDRs and InternalIPs by node index; pod IPs stay with their pod', () => {
  assert.equal(podCidrForIndex(3), '10.244.3.0/24');
  assert.equal(podCidrForIndex(300), '10.1.44.0/24');
  for (const i of [0, 255, 256, 4999]) assert.equal(indexOfPodCidr(podCidrForIndex(i)), i);
  assert.equal(internalIpForIndex(0), '172.18.0.3');
  assert.equal(internalIpForIndex(251), '172.18.0.254');
  assert.equal(internalIpForIndex(252), '172.18.1.1');
  const pool = new PodIPPool('10.244.1.0/24');
  const a = pool.allocate('a');
  assert.equal(a, '10.244.1.2');
  assert.equal(pool.allocate('a'), a);
  pool.adopt('c', '10.244.1.3');
  assert.equal(pool.allocate('b'), '10.244.1.4');
  pool.release('a');
  assert.equal(pool.allocate('d'), '10.244.1.5', 'a released IP is not handed out again at once');
  assert.deepEqual(allocatableFor({ cpu: '4', memory: '16Gi', 'ephemeral-storage': '100Gi' }), { cpu: '4', memory: '16674816Ki', 'ephemeral-storage': '96636764160' });
});
