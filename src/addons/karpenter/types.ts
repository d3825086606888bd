// The Karpenter APIs (karpenter.sh/v1 NodePool and NodeClaim, karpenter.kwok.sh/v1alpha1 KWOKNodeClass) as the
// controllers read them, and the well-known labels, annotations, taints and finalizer they stamp on objects.
import type { Taint } from '../../generated/k8s/core/v1.js';
import type { ObjectMeta } from '../../generated/k8s/meta/v1.js';
import type { Condition } from '../../machinery/conditions.js';

export const group = 'karpenter.sh';
export const version = 'v1';
export const apiVersion = `${group}/${version}`;
export const kwokGroup = 'karpenter.kwok.sh';
export const kwokApiVersion = `${kwokGroup}/v1alpha1`;

export const nodePoolsRef = `${apiVersion}/nodepools`;
export const nodeClaimsRef = `${apiVersion}/nodeclaims`;
export const kwokNodeClassesRef = `${kwokApiVersion}/kwoknodeclasses`;
export const nodesRef = 'v1/nodes';
export const podsRef = 'v1/pods';

/** Well-known labels (karpenter.sh, kubernetes.io and the kwok provider's instance labels). */
export const labels = {
  nodePool: 'karpenter.sh/nodepool',
  capacityType: 'karpenter.sh/capacity-type',
  registered: 'karpenter.sh/registered',
  initialized: 'karpenter.sh/initialized',
  instanceType: 'node.kubernetes.io/instance-type',
  zone: 'topology.kubernetes.io/zone',
  region: 'topology.kubernetes.io/region',
  hostname: 'kubernetes.io/hostname',
  arch: 'kubernetes.io/arch',
  os: 'kubernetes.io/os',
  instanceFamily: 'karpenter.kwok.sh/instance-family',
  instanceSize: 'karpenter.kwok.sh/instance-size',
  instanceCpu: 'karpenter.kwok.sh/instance-cpu',
  instanceMemory: 'karpenter.kwok.sh/instance-memory',
  instanceGpuCount: 'karpenter.kwok.sh/instance-gpu-count',
  instanceGpuName: 'karpenter.kwok.sh/instance-gpu-name',
} as const;

export const annotations = {
  doNotDisrupt: 'karpenter.sh/do-not-disrupt',
  nodePoolHash: 'karpenter.sh/nodepool-hash',
  nodePoolHashVersion: 'karpenter.sh/nodepool-hash-version',
  nodeClassHash: 'karpenter.kwok.sh/nodeclass-hash',
} as const;

/** The version of the hash algorithm stamped next to `karpenter.sh/nodepool-hash`. */
export const nodePoolHashVersion = 'v3';

export const disruptedTaint: Taint = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' };
export const unregisteredTaint: Taint = { key: 'karpenter.sh/unregistered', effect: 'NoExecute' };
export const terminationFinalizer = 'karpenter.sh/termination';

export const capacityTypes = ['on-demand', 'spot'] as const;
export type CapacityType = (typeof capacityTypes)[number];

export type RequirementOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt' | 'Gte' | 'Lte';

export interface NodeSelectorRequirementWithMinValues {
  key: string;
  operator: RequirementOperator;
  values?: string[];
  minValues?: number;
}

export interface NodeClassReference {
  group: string;
  kind: string;
  name: string;
}

export type { Condition };

export interface NodeClaimTemplateSpec {
  nodeClassRef: NodeClassReference;
  requirements: NodeSelectorRequirementWithMinValues[];
  taints?: Taint[];
  startupTaints?: Taint[];
  expireAfter?: string;
  terminationGracePeriod?: string;
}

export interface Budget {
  nodes: string;
  reasons?: Array<'Underutilized' | 'Empty' | 'Drifted'>;
  schedule?: string;
  duration?: string;
}

export interface NodePoolSpec {
  template: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec: NodeClaimTemplateSpec };
  disruption?: {
    consolidateAfter?: string;
    consolidationPolicy?: 'WhenEmpty' | 'WhenEmptyOrUnderutilized' | 'Balanced';
    budgets?: Budget[];
  };
  limits?: Record<string, string>;
  weight?: number;
  replicas?: number;
}

export type NodePool = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: NodePoolSpec;
  status?: {
    conditions?: Condition[];
    nodes?: number;
    resources?: Record<string, string>;
    nodeClassObservedGeneration?: number;
  };
};

export interface NodeClaimSpec extends NodeClaimTemplateSpec {
  resources?: { requests?: Record<string, string> };
}

export interface NodeClaimStatus {
  nodeName?: string;
  providerID?: string;
  imageID?: string;
  capacity?: Record<string, string>;
  allocatable?: Record<string, string>;
  conditions?: Condition[];
  lastPodEventTime?: string;
}

export type NodeClaim = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: NodeClaimSpec;
  status?: NodeClaimStatus;
};

export interface KWOKNodeClass {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: { nodeRegistrationDelay?: string };
  status?: { conditions?: Condition[] };
}

/** NodeClaim condition types (upstream's names). */
export const conditionTypes = {
  launched: 'Launched',
  registered: 'Registered',
  initialized: 'Initialized',
  ready: 'Ready',
  drifted: 'Drifted',
  consolidatable: 'Consolidatable',
  consistentStateFound: 'ConsistentStateFound',
  disruptionReason: 'DisruptionReason',
  instanceTerminating: 'InstanceTerminating',
  validationSucceeded: 'ValidationSucceeded',
  nodeClassReady: 'NodeClassReady',
  nodeRegistrationHealthy: 'NodeRegistrationHealthy',
} as const;
