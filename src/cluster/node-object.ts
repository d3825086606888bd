// The Node objects of the configured pools, as a kubelet registers them (labels, pod CIDR, initial status).
import type { Node } from '../generated/k8s/core/v1.js';
import { kubeletLabels } from '../kubelet/kubelet-manager.js';
import { allocatableFor, kubeletStatus } from '../kubelet/node-status.js';
import { controlPlaneIP, internalIpForIndex, podCidrForIndex } from '../kubelet/pod-ips.js';
import type { ClusterConfig, NodePoolConfig } from './config.js';
import { controlPlaneNodeName, controlPlanePool } from './control-plane.js';

export interface PlannedNode {
  name: string;
  pool: NodePoolConfig;
  /** 0-based position in its pool. */
  ordinal: number;
  /** The control-plane node (in no pool: `pool` only gives its shape). */
  controlPlane?: true;
}

export function nodeName(pool: NodePoolConfig, ordinal: number): string {
  return `bonsai-${pool.name}-${ordinal + 1}`;
}

/** Every node the configuration asks for: the control-plane node first (as kind creates it), then pool by pool. */
export function plannedNodes(config: ClusterConfig): PlannedNode[] {
  const out: PlannedNode[] = config.controlPlane ? [{ name: controlPlaneNodeName, pool: controlPlanePool(), ordinal: 0, controlPlane: true }] : [];
  for (const pool of config.nodePools) {
    for (let i = 0; i < pool.count; i++) out.push({ name: nodeName(pool, i), pool, ordinal: i });
  }
  return out;
}

/**
 * A node's labels: a kubelet's own, a cloud's topology and instance type and the pool's. No role label, as on kind's
 * workers (ROLES `<none>`), unless the pool's labels give one; the control-plane node has kubeadm's instead of a pool's.
 */
export function nodeLabels({ name, pool, ordinal, controlPlane }: PlannedNode, region: string): Record<string, string> {
  const own = kubeletLabels(name);
  if (controlPlane) return { ...own, ...pool.labels };
  const zone = pool.zones[ordinal % pool.zones.length];
  return {
    ...own,
    'beta.kubernetes.io/instance-type': pool.instanceType,
    'failure-domain.beta.kubernetes.io/region': region,
    'failure-domain.beta.kubernetes.io/zone': zone,
    'node.kubernetes.io/instance-type': pool.instanceType,
    'topology.kubernetes.io/region': region,
    'topology.kubernetes.io/zone': zone,
    'bonsai.dev/node-pool': pool.name,
    ...pool.labels,
  };
}

/** The Node a pool member registers with, its status complete and Ready. `index` picks its pod CIDR and IP. */
export function buildNode(planned: PlannedNode, region: string, index: number, now: Date): Node {
  const { name, pool } = planned;
  const podCIDR = podCidrForIndex(index);
  const capacity: Record<string, string> = {
    cpu: pool.cpu, 'ephemeral-storage': pool.ephemeralStorage, 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: pool.memory, pods: String(pool.pods),
    ...pool.resources,
  };
  const node: Node = {
    apiVersion: 'v1', kind: 'Node',
    metadata: {
      name, labels: nodeLabels(planned, region),
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: {
      podCIDR, podCIDRs: [podCIDR], providerID: planned.controlPlane ? `bonsai://${name}` : `bonsai://${pool.name}/${name}`,
      ...(pool.taints.length ? { taints: pool.taints.map((t) => ({ ...t })) } : {}),
    },
  };
  const status = kubeletStatus({ name, internalIP: planned.controlPlane ? controlPlaneIP : internalIpForIndex(index), bootSeed: '', current: { capacity, allocatable: allocatableFor(capacity) }, heartbeat: now, now });
  return { ...node, status };
}
