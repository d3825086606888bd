// The flowcontrol.apiserver.k8s.io/v1 kinds as Bonsai stores them (after defaulting): FlowSchema and
// PriorityLevelConfiguration. Fields that upstream's defaulting always fills in are required here.
import type { Meta } from '../machinery/types.js';

export const flowcontrolGroup = 'flowcontrol.apiserver.k8s.io';
export const flowcontrolApiVersion = 'flowcontrol.apiserver.k8s.io/v1';
/** Upstream's annotation: "true" lets the apiserver keep a bootstrap object's spec at its built-in value. */
export const autoUpdateAnnotation = 'apf.kubernetes.io/autoupdate-spec';

/** Object metadata with the name set (all flowcontrol objects are cluster-scoped). */
export type FlowcontrolMeta = Meta & { name: string };

export interface UserSubject { name: string }
export interface GroupSubject { name: string }
export interface ServiceAccountSubject { namespace: string; name: string }

/** Exactly one of user, group, serviceAccount is set, matching kind. */
export interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  user?: UserSubject;
  group?: GroupSubject;
  serviceAccount?: ServiceAccountSubject;
}

export interface ResourcePolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}

export interface NonResourcePolicyRule {
  verbs: string[];
  nonResourceURLs: string[];
}

export interface PolicyRulesWithSubjects {
  subjects: Subject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

export type DistinguisherMethodType = 'ByUser' | 'ByNamespace';

export interface FlowSchemaSpec {
  priorityLevelConfiguration: { name: string };
  /** 1..10000, lower matches first; defaulted to 1000. */
  matchingPrecedence: number;
  /** Absent: all matching requests are one flow. */
  distinguisherMethod?: { type: DistinguisherMethodType };
  rules?: PolicyRulesWithSubjects[];
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface FlowSchemaStatus { conditions?: Condition[] }

export interface FlowSchema {
  apiVersion: typeof flowcontrolApiVersion;
  kind: 'FlowSchema';
  metadata: FlowcontrolMeta;
  spec: FlowSchemaSpec;
  status?: FlowSchemaStatus;
}

export interface QueuingConfiguration {
  /** Defaulted to 64. */
  queues: number;
  /** Defaulted to 8. */
  handSize: number;
  /** Defaulted to 50. */
  queueLengthLimit: number;
}

export interface LimitResponse {
  type: 'Queue' | 'Reject';
  /** Set exactly when type is Queue. */
  queuing?: QueuingConfiguration;
}

export interface LimitedPriorityLevelConfiguration {
  /** Defaulted to 30 when absent (0 is kept in v1). */
  nominalConcurrencyShares: number;
  /** 0..100, defaulted to 0. */
  lendablePercent: number;
  /** Absent: no limit on borrowing. */
  borrowingLimitPercent?: number;
  limitResponse: LimitResponse;
}

export interface ExemptPriorityLevelConfiguration {
  /** Defaulted to 0. */
  nominalConcurrencyShares: number;
  /** Defaulted to 0. */
  lendablePercent: number;
}

export interface PriorityLevelConfigurationSpec {
  type: 'Exempt' | 'Limited';
  /** Set exactly when type is Limited. */
  limited?: LimitedPriorityLevelConfiguration;
  /** Set when type is Exempt (defaulted), absent otherwise. */
  exempt?: ExemptPriorityLevelConfiguration;
}

export interface PriorityLevelConfiguration {
  apiVersion: typeof flowcontrolApiVersion;
  kind: 'PriorityLevelConfiguration';
  metadata: FlowcontrolMeta;
  spec: PriorityLevelConfigurationSpec;
  status?: { conditions?: Condition[] };
}
