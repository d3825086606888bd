// Fills kube-system as a kubeadm cluster has it (see kube-system-objects.ts) when the cluster starts: objects that
// are missing are created (a data directory keeps them, or the learner's changes to them, across restarts). The
// control-plane mirror pods live on one node standing in for the control plane (the first untainted node by
// name); a deleted mirror pod comes back, as the kubelet recreates it from its static manifest.
import type { Node } from '../generated/k8s/core/v1.js';
import type { Client } from '../client/client.js';
import { ApiError } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { ClusterConfig } from './config.js';
import { buildNode, plannedNodes } from './node-object.js';
import { addonObjects, mirrorPods } from './kube-system-objects.js';

/** Above this many configured nodes kube-system stays empty unless the cluster file asks (kube-proxy is per node). */
const maxNodesByDefault = 20;
const recreateAfterMs = 1000;

/** Whether the cluster gets its kube-system workloads: the cluster file's `kubeSystem`, else 1 to 20 nodes. */
export function kubeSystemEnabled(config: ClusterConfig): boolean {
  if (config.kubeSystem !== undefined) return config.kubeSystem;
  const n = plannedNodes(config).length;
  return n > 0 && n <= maxNodesByDefault;
}

function ensure(client: Client, log: Logger, resource: string, object: KObject): void {
  const name = object.metadata.name ?? '';
  if (client.get(resource, 'kube-system', name)) return;
  try {
    client.create(resource, 'kube-system', object);
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 409)) log.warn({ err, resource, name }, 'creating a kube-system object failed');
  }
}

/** The node standing in for the control plane: the first one by name without a NoSchedule/NoExecute taint. */
export function controlPlaneNode(nodes: Node[]): Node | undefined {
  const sorted = [...nodes].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  return sorted.find((n) => !(n.spec?.taints ?? []).some((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute')) ?? sorted[0];
}

/**
 * The control-plane node when the nodes are split between processes (`serves`): picked from the configured nodes,
 * so that every process picks the same one, and returned only to the process serving it.
 */
function servedControlPlane(client: Client, clock: Clock, config: ClusterConfig, serves: (node: KObject) => boolean): Node | undefined {
  const planned = controlPlaneNode(plannedNodes(config).map((p) => buildNode(p, config.region, 0, clock.now())));
  const node = planned?.metadata?.name ? client.get('v1/nodes', '', planned.metadata.name) : undefined;
  return node && serves(node) ? (node) : undefined;
}

export function startKubeSystem(client: Client, clock: Clock, log: Logger, config: ClusterConfig, serves?: (node: KObject) => boolean): () => void {
  if (!kubeSystemEnabled(config)) return () => {};
  for (const { resource, object } of addonObjects()) ensure(client, log, resource, object);
  const node = serves ? servedControlPlane(client, clock, config, serves) : controlPlaneNode(client.list('v1/nodes'));
  if (!node?.metadata?.name || !node.metadata.uid) return () => {};
  const target = { name: node.metadata.name, uid: node.metadata.uid };
  const seen = clock.now().toISOString();
  const manifests = new Map(mirrorPods(target, seen).map((p) => [p.metadata.name ?? '', p]));
  const ensureMirror = (name: string) => {
    const current = client.get('v1/nodes', '', target.name);
    const pod = manifests.get(name);
    if (!pod || current?.metadata.uid !== target.uid) return;
    ensure(client, log, 'v1/pods', structuredClone(pod));
  };
  for (const name of manifests.keys()) ensureMirror(name);
  const timers = new Map<string, () => void>();
  const stopWatch = client.watch('v1/pods', (c) => {
    const name = c.object.metadata.name ?? '';
    if (c.type !== 'DELETED' || c.object.metadata.namespace !== 'kube-system' || !manifests.has(name) || timers.has(name)) return;
    timers.set(name, clock.setTimeout(() => {
      timers.delete(name);
      ensureMirror(name);
    }, recreateAfterMs));
  });
  return () => {
    stopWatch();
    for (const cancel of timers.values()) cancel();
    timers.clear();
  };
}
