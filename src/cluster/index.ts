// The simulated cluster: registers the configured nodes, runs a kubelet agent for every Node object and the
// pod lifecycle for pods bound to them. (Skeleton: filled in by the cluster work.)
import type { Registry } from '../registry/registry.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

export interface ClusterOptions {
  /** Path of a YAML cluster file (node pools, kubelet timings). */
  clusterFile?: string;
  /** Number of default worker nodes (0: no nodes at all, not even the GPU node). */
  nodes?: number;
}

export interface ClusterHandle {
  /** Stops or starts a node's simulated kubelet (as the bonsai.dev/stopped annotation does). */
  setNodeStopped(name: string, stopped: boolean): void;
  stop(): void;
}

export function startCluster(_reg: Registry, _clock: Clock, _log: Logger, _opts: ClusterOptions): ClusterHandle {
  return { setNodeStopped: () => undefined, stop: () => undefined };
}
