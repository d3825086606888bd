// The autoscaling.k8s.io/v1 VerticalPodAutoscaler as the add-on reads it (fields it does not use are left out), and
// the names the recommender, updater and admission step share.
import type { KObject } from '../../machinery/types.js';

export const vpaRef = 'autoscaling.k8s.io/v1/verticalpodautoscalers';
export const podsRef = 'v1/pods';

export type UpdateMode = 'Off' | 'Initial' | 'Recreate' | 'InPlaceOrRecreate' | 'InPlace' | 'Auto';
export type ResourceList = Record<string, string | number>;

export interface ContainerPolicy {
  containerName?: string;
  mode?: 'Auto' | 'Off';
  minAllowed?: ResourceList;
  maxAllowed?: ResourceList;
  controlledResources?: string[];
  controlledValues?: 'RequestsAndLimits' | 'RequestsOnly';
}

export interface EvictionRequirement {
  resources?: string[];
  changeRequirement?: 'TargetHigherThanRequests' | 'TargetLowerThanRequests';
}

export interface ContainerRecommendation {
  containerName: string;
  target: ResourceList;
  lowerBound?: ResourceList;
  upperBound?: ResourceList;
  uncappedTarget?: ResourceList;
}

export interface VpaCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface VpaStatus {
  recommendation?: { containerRecommendations?: ContainerRecommendation[] };
  conditions?: VpaCondition[];
  observedGeneration?: number;
}

export interface Vpa extends KObject {
  spec?: {
    targetRef?: { apiVersion?: string; kind?: string; name?: string };
    updatePolicy?: { updateMode?: UpdateMode; minReplicas?: number; evictionRequirements?: EvictionRequirement[] };
    resourcePolicy?: { containerPolicies?: ContainerPolicy[] };
    recommenders?: Array<{ name?: string }>;
  };
  status?: VpaStatus;
}

/** The name a container policy uses to apply to every container without its own policy. */
export const defaultContainerPolicy = '*';
/** The recommender's name in `spec.recommenders` (upstream's default). */
export const defaultRecommenderName = 'default';

/** Pod annotations the admission step and the updater write (upstream's keys). */
export const annotations = {
  updates: 'vpaUpdates',
  observedContainers: 'vpaObservedContainers',
  inPlaceUpdated: 'vpaInPlaceUpdated',
} as const;

/** The update mode, defaulted as upstream does (no policy or no mode: Recreate). */
export function updateModeOf(vpa: Vpa): UpdateMode {
  return vpa.spec?.updatePolicy?.updateMode || 'Recreate';
}

