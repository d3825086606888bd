// The default profile's filter and score plugins, in upstream's order, with upstream's score weights.
import type { FilterPlugin, ScorePlugin } from '../framework.js';
import { interPodAffinityFilter, interPodAffinityScore } from './inter-pod-affinity.js';
import { nodeAffinityFilter, nodeAffinityScore } from './node-affinity.js';
import { nodeName, nodePorts, nodeUnschedulable } from './node-basics.js';
import { balancedAllocationScore, nodeResourcesFitFilter, nodeResourcesFitScore } from './resources.js';
import { taintTolerationFilter, taintTolerationScore } from './taint-toleration.js';
import { topologySpreadFilter, topologySpreadScore } from './topology-spread.js';
import { volumeBinding } from './volume-binding.js';
import { dynamicResources } from './dynamic-resources.js';

export const defaultFilters: FilterPlugin[] = [
  nodeUnschedulable, nodeName, taintTolerationFilter, nodeAffinityFilter, nodePorts, nodeResourcesFitFilter, volumeBinding, topologySpreadFilter, interPodAffinityFilter, dynamicResources,
];

export const defaultScores: ScorePlugin[] = [
  taintTolerationScore, nodeAffinityScore, nodeResourcesFitScore, balancedAllocationScore, interPodAffinityScore, topologySpreadScore,
];
