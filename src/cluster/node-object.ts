// The Node objects of the configured pools, as a kubelet registers them (labels, pod CIDR, initial status).
import type { Node } from '../generated/k8s/core/v1.js';
import { allocatableFor, kubeletStatus } from '../kubelet/node-status.js';
import { internalIpForIndex, podCidrForIndex } from '../kubelet/pod-ips.js';
import type { ClusterConfig, NodePoolConfig } from './config.js';

export interface PlannedNode {
  name: string;
  pool: NodePoolConfig;
  /** 0-based position in its pool. */
  ordinal: number;
}

export function nodeName(pool: NodePoolConfig, ordinal: number): string {
  return `bonsai-${pool.name}-${ordinal + 1}`;
}

/** Every node the configuration asks for, pool by pool. */
export function plannedNodes(config: ClusterConfig): PlannedNode[] {
  const out: PlannedNode[] = [];
  for (const pool of config.nodePools) {
    for (let i = 0; i < pool.count; i++) out.push({ name: nodeName(pool, i), pool, ordinal: i });
  }
  return out;
}

export function nodeLabels(name: string, pool: NodePoolConfig, ordinal: number, region: string): Record<string, string> {
  const zone = pool.zones[ordinal % pool.zones.length];
  return {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/instance-type': pool.instanceType,
    'beta.kubernetes.io/os': 'linux',
    'failure-domain.beta.kubernetes.io/region': region,
    'failure-domain.beta.kubernetes.io/zone': zone,
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'node-role.kubernetes.io/worker': '',
    'node.kubernetes.io/instance-type': pool.instanceType,
    'topology.kubernetes.io/region': region,
    'topology.kubernetes.io/zone': zone,
    'bonsai.dev/node-pool': pool.name,
    ...pool.labels,
  };
}

/** The Node a pool member registers with, its status complete and Ready. `index` picks its pod CIDR and IP. */
export function buildNode(planned: PlannedNode, region: string, index: number, now: Date): Node {
  const { name, pool, ordinal } = planned;
  const podCIDR = podCidrForIndex(index);
  const capacity: Record<string, string> = {
    cpu: pool.cpu, 'ephemeral-storage': pool.ephemeralStorage, 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: pool.memory, pods: String(pool.pods),
    ...pool.resources,
  };
  const node: Node = {
    apiVersion: 'v1', kind: 'Node',
    metadata: {
      name, labels: nodeLabels(name, pool, ordinal, region),
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: {
      podCIDR, podCIDRs: [podCIDR], providerID: `bonsai://${pool.name}/${name}`,
      ...(pool.taints.length ? { taints: pool.taints.map((t) => ({ ...t })) } : {}),
    },
  };
  const status = kubeletStatus({ name, internalIP: internalIpForIndex(index), bootSeed: '', current: { capacity, allocatable: allocatableFor(capacity) }, heartbeat: now, now });
  return { ...node, status };
}
