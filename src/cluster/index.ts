// The simulated cluster: registers the configured nodes, runs a kubelet agent for every Node object and the
// pod lifecycle for pods bound to them.
import type { KObject } from '../machinery/types.js';
import type { Client } from '../client/client.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { KubeletManager } from '../kubelet/kubelet-manager.js';
import { PodLifecycle } from '../kubelet/pod-lifecycle.js';
import { ImageRegistry } from '../kubelet/registry/image-registry.js';
import { loadClusterConfig, type ClusterConfig } from './config.js';
import { buildNode, plannedNodes } from './node-object.js';
import { startKubeSystem } from './kube-system.js';

export interface ClusterOptions {
  /** Path of a YAML cluster file (node pools, kubelet timings). */
  clusterFile?: string;
  /** Number of default worker nodes (0: no nodes at all, not even the GPU node). */
  nodes?: number;
}

export interface ClusterHandle {
  /** The cluster's shape as configured (pools, timings, add-on settings). */
  config: ClusterConfig;
  /** Stops or starts a node's simulated kubelet (as the bonsai.dev/stopped annotation does). */
  setNodeStopped(name: string, stopped: boolean): void;
  stop(): void;
}

/** Creates the configured nodes that do not exist yet (a data directory keeps nodes across restarts). */
function registerNodes(client: Client, clock: Clock, kubelets: KubeletManager, config: ClusterConfig): KObject[] {
  const created: KObject[] = [];
  const now = clock.now();
  for (const planned of plannedNodes(config)) {
    if (client.get('v1/nodes', '', planned.name)) continue;
    const node = buildNode(planned, config.region, kubelets.allocateIndex(), now);
    // A kubelet registers its own Node (as system:node:NAME).
    created.push(kubelets.nodeClient(planned.name).create('v1/nodes', '', node as unknown as KObject));
  }
  return created;
}

export function startCluster(client: Client, clock: Clock, log: Logger, opts: ClusterOptions): ClusterHandle {
  const config = loadClusterConfig(opts);
  const kubelets = new KubeletManager(client, clock, log.child({ component: 'kubelet' }));
  const pods = new PodLifecycle({ client, clock, log: log.child({ component: 'pod-lifecycle' }), timings: config.kubelet, registry: new ImageRegistry(config.registry) }, kubelets);
  const created = registerNodes(client, clock, kubelets, config);
  kubelets.start(new Map(created.map((n) => [n.metadata.name ?? '', { registered: true }])));
  const stopKubeSystem = startKubeSystem(client, clock, log.child({ component: 'kube-system' }), config);
  log.debug({ nodes: client.count('v1/nodes'), registered: created.length }, 'cluster started');
  return {
    config,
    setNodeStopped: (name, stopped) => kubelets.setStopped(name, stopped),
    stop() {
      stopKubeSystem();
      pods.stop();
      kubelets.stop();
    },
  };
}
