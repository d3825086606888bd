// The simulated cluster: registers the configured nodes, runs a kubelet agent for every Node object and the
// pod lifecycle for pods bound to them.
import type { KObject } from '../machinery/types.js';
import type { Client } from '../client/client.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { GpuDriver } from '../kubelet/dra/gpu-driver.js';
import { KubeletManager, isStopped } from '../kubelet/kubelet-manager.js';
import { simAnnotations } from '../kubelet/annotations.js';
import { PodLifecycle } from '../kubelet/pod-lifecycle.js';
import { ImageRegistry } from '../kubelet/registry/image-registry.js';
import { loadClusterConfig, type ClusterConfig } from './config.js';
import { buildNode, plannedNodes } from './node-object.js';
import { startKubeSystem } from './kube-system.js';
import { GatekeeperEffects } from '../kubelet/gatekeeper-effects.js';

export interface ClusterOptions {
  /** Path of a YAML cluster file (node pools, kubelet timings). */
  clusterFile?: string;
  /** Number of default worker nodes (0: no nodes at all, not even the GPU node). */
  nodes?: number;
  /**
   * The nodes this process simulates (`--kubelets` with a shard or a selector: src/leader/kubelet-selection.ts);
   * all when unset. Other processes serve the rest: only served nodes are registered, get agents and kube-system.
   */
  nodeFilter?: (node: KObject) => boolean;
  /** The configuration, when the caller has loaded it already (else read from `clusterFile` / `nodes`). */
  config?: ClusterConfig;
}

export interface ClusterHandle {
  /** The cluster's shape as configured (pools, timings, add-on settings). */
  config: ClusterConfig;
  /** Stops or starts a node's simulated kubelet (as the bonsai.dev/stopped annotation does). */
  setNodeStopped(name: string, stopped: boolean): Promise<void>;
  stop(): void;
}

/** Creates the configured nodes that do not exist yet (a data directory keeps nodes across restarts). */
/** Registers the planned nodes this process simulates; returns their names (a refused registration is logged). */
function registerNodes(client: Client, clock: Clock, log: Logger, kubelets: KubeletManager, config: ClusterConfig, filter?: (node: KObject) => boolean): string[] {
  const created: string[] = [];
  const now = clock.now();
  const planned = plannedNodes(config);
  for (let i = 0; i < planned.length; i++) {
    if (client.get('v1/nodes', '', planned[i].name)) continue;
    // Processes sharing the nodes each register their own: the planned position keeps their pod CIDRs apart.
    const node = buildNode(planned[i], config.region, filter ? kubelets.claimIndex(i) : kubelets.allocateIndex(), now);
    if (filter && !filter(node)) continue;
    // A kubelet registers its own Node (as system:node:NAME); the object is built for this write alone (given away).
    const name = planned[i].name;
    kubelets.nodeClient(name).create('v1/nodes', '', node, { owned: true }).catch((err: unknown) => log.warn({ err, node: name }, 'registering the node failed'));
    created.push(name);
  }
  return created;
}

/** Stops or starts a node's kubelet through its bonsai.dev/stopped annotation, for whichever process simulates it. */
export async function markNodeStopped(client: Client, name: string, stopped: boolean): Promise<void> {
  const node = client.get('v1/nodes', '', name);
  if (!node || isStopped(node) === stopped) return;
  await client.guaranteedUpdate('v1/nodes', '', name, (cur) => {
    const annotations = { ...(cur.metadata.annotations ?? {}) };
    if (stopped) annotations[simAnnotations.nodeStopped] = 'true';
    else delete annotations[simAnnotations.nodeStopped];
    return { ...cur, metadata: { ...cur.metadata, annotations } };
  });
}

export function startCluster(client: Client, clock: Clock, log: Logger, opts: ClusterOptions): ClusterHandle {
  const config = opts.config ?? loadClusterConfig(opts);
  const kubelets = new KubeletManager(client, clock, log.child({ component: 'kubelet' }), opts.nodeFilter);
  const pods = new PodLifecycle({ client, clock, log: log.child({ component: 'pod-lifecycle' }), timings: config.kubelet, registry: new ImageRegistry(config.registry) }, kubelets);
  const gpus = new GpuDriver(client, log.child({ component: 'gpu-driver' }), kubelets);
  gpus.installClasses();
  const created = registerNodes(client, clock, log, kubelets, config, opts.nodeFilter);
  kubelets.start(new Map(created.map((n) => [n, { registered: true, leaseSoon: true }])));
  const gatekeeper = new GatekeeperEffects(client, clock, log.child({ component: 'gatekeeper-effects' }));
  const stopKubeSystem = startKubeSystem(client, clock, log.child({ component: 'kube-system' }), config, opts.nodeFilter);
  log.debug({ nodes: client.count('v1/nodes'), registered: created.length }, 'cluster started');
  return {
    config,
    setNodeStopped: (name, stopped) => kubelets.setStopped(name, stopped),
    stop() {
      stopKubeSystem();
      gatekeeper.stop();
      pods.stop();
      gpus.stop();
      kubelets.stop();
    },
  };
}
