// Builders for the disruption unit tests and bench: NodePools, initialised NodeClaims with their Nodes, pods, PDBs.
import type { Node, Pod } from '../../src/generated/k8s/core/v1.js';
import type { PodDisruptionBudget } from '../../src/generated/k8s/policy/v1.js';
import type { NodeClaim, NodePool, Budget } from '../../src/addons/karpenter/types.js';

export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
export const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function pool(name: string, disruption: NodePool['spec']['disruption'] = {}, extra: Partial<NodePool['spec']> = {}): NodePool {
  return {
    apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name, uid: `uid-${name}` },
    spec: {
      template: { spec: { nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' }, requirements: [] } },
      disruption: { consolidateAfter: '0s', consolidationPolicy: 'WhenEmptyOrUnderutilized', budgets: [{ nodes: '100%' }], ...disruption }, ...extra,
    },
  };
}

export const budgets = (...b: Budget[]) => ({ budgets: b });

export interface ClaimOpts { type?: string; zone?: string; capacityType?: string; cpu?: string; consolidatable?: boolean; drifted?: boolean; initialized?: boolean; annotations?: Record<string, string> }

export function claimAndNode(name: string, poolName: string, o: ClaimOpts = {}): { claim: NodeClaim; node: Node } {
  const labels: Record<string, string> = {
    'karpenter.sh/nodepool': poolName, 'node.kubernetes.io/instance-type': o.type ?? 'c-4x-amd64-linux',
    'topology.kubernetes.io/zone': o.zone ?? 'zone-a', 'karpenter.sh/capacity-type': o.capacityType ?? 'on-demand',
    'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux', 'kubernetes.io/hostname': name,
  };
  const conds: NonNullable<NodeClaim['status']>['conditions'] = [{ type: 'Launched', status: 'True', reason: 'Launched', message: '', lastTransitionTime: iso(T0 - 3600_000) }];
  if (o.initialized !== false) conds.push({ type: 'Initialized', status: 'True', reason: 'Initialized', message: '', lastTransitionTime: iso(T0 - 3600_000) });
  if (o.consolidatable !== false && o.initialized !== false) conds.push({ type: 'Consolidatable', status: 'True', reason: 'Consolidatable', message: '', lastTransitionTime: iso(T0 - 60_000) });
  if (o.drifted) conds.push({ type: 'Drifted', status: 'True', reason: 'NodePoolDrifted', message: 'NodePoolDrifted', lastTransitionTime: iso(T0 - 60_000) });
  const claim: NodeClaim = {
    apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim',
    metadata: { name, uid: `uid-${name}`, labels, annotations: o.annotations, creationTimestamp: iso(T0 - 3600_000) },
    spec: { nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' }, requirements: [] },
    status: { nodeName: name, providerID: `kwok://${name}`, conditions: conds },
  };
  const cpu = o.cpu ?? '3900m';
  const node: Node = {
    apiVersion: 'v1', kind: 'Node', metadata: { name, uid: `uid-node-${name}`, labels },
    spec: { providerID: `kwok://${name}` },
    status: { allocatable: { cpu, memory: '8Gi', pods: '110' }, capacity: { cpu, memory: '8Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] },
  };
  return { claim, node };
}

export function pod(name: string, nodeName: string | undefined, cpu = '1', extra: { labels?: Record<string, string>; annotations?: Record<string, string>; daemonSet?: boolean; ns?: string } = {}): Pod {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, namespace: extra.ns ?? 'default', uid: `uid-pod-${name}`, labels: extra.labels ?? { app: 'web' }, annotations: extra.annotations,
      ownerReferences: extra.daemonSet ? [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'ds', controller: true }] : [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs', controller: true }],
    },
    spec: { nodeName, containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu, memory: '128Mi' } } }] },
    status: { phase: nodeName ? 'Running' : 'Pending' },
  };
}

export function pdb(name: string, allowed: number, matchLabels: Record<string, string> = { app: 'web' }): PodDisruptionBudget {
  return { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name, namespace: 'default' }, spec: { selector: { matchLabels }, maxUnavailable: 0 }, status: { disruptionsAllowed: allowed, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 } };
}
