// Fills kube-system as a kubeadm cluster has it (see kube-system-objects.ts) when the cluster starts: objects that
// are missing are created (a data directory keeps them, or the learner's changes to them, across restarts). The
// control plane's mirror pods live on the control-plane node, by the process that serves it; a deleted mirror pod
// comes back, as the kubelet recreates it from its static manifest. A cluster without a control-plane node (the
// cluster file's `controlPlane: false`) has none, as managed clusters show none.
import type { Client } from '../client/client.js';
import { ApiError } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { ClusterConfig } from './config.js';
import { plannedNodes } from './node-object.js';
import { controlPlaneNodeName } from './control-plane.js';
import { addonObjects, mirrorPodNames, mirrorPods } from './kube-system-objects.js';

/** Above this many pool nodes kube-system stays empty unless the cluster file asks (kube-proxy is per node). */
const maxNodesByDefault = 20;
const recreateAfterMs = 1000;

/**
 * Whether the cluster gets its kube-system workloads: the cluster file's `kubeSystem`, else with a control-plane
 * node or at least one pool node, and at most 20 pool nodes.
 */
export function kubeSystemEnabled(config: ClusterConfig): boolean {
  if (config.kubeSystem !== undefined) return config.kubeSystem;
  const n = plannedNodes(config).filter((p) => !p.controlPlane).length;
  return (n > 0 || config.controlPlane) && n <= maxNodesByDefault;
}

function ensure(client: Client, log: Logger, resource: string, object: KObject): void {
  const name = object.metadata.name ?? '';
  if (client.get(resource, 'kube-system', name)) return;
  client.create(resource, 'kube-system', object).catch((err: unknown) => {
    if (!(err instanceof ApiError && err.code === 409)) log.warn({ err, resource, name }, 'creating a kube-system object failed');
  });
}

/**
 * Mirror pods on another node (a data directory from before the control-plane node had them on a worker) are deleted,
 * as that node's kubelet has no static manifest for them.
 */
function removeStrayMirrors(client: Client, log: Logger, controlPlane: string): void {
  for (const pod of client.list('v1/pods', 'kube-system')) {
    const node = pod.spec?.nodeName ?? '';
    const name = pod.metadata?.name ?? '';
    if (node === controlPlane || !pod.metadata?.annotations?.['kubernetes.io/config.mirror'] || !mirrorPodNames(node).includes(name)) continue;
    client.delete('v1/pods', 'kube-system', name).catch((err: unknown) => log.debug({ err, name }, 'a stray mirror pod was not deleted'));
  }
}

export function startKubeSystem(client: Client, clock: Clock, log: Logger, config: ClusterConfig, serves?: (node: KObject) => boolean): () => void {
  if (!kubeSystemEnabled(config)) return () => {};
  for (const { resource, object } of addonObjects()) ensure(client, log, resource, object);
  if (!config.controlPlane) return () => {};
  // The control-plane node may not be stored yet (on etcd its registration is still on its way): its mirror pods
  // start when it is.
  let stopMirrors: (() => void) | undefined;
  const startWhenRegistered = () => {
    const node = stopMirrors ? undefined : client.get('v1/nodes', '', controlPlaneNodeName);
    if (!node?.metadata.name || !node.metadata.uid || (serves && !serves(node))) return;
    stopMirrors = startMirrorPods(client, clock, log, { name: node.metadata.name, uid: node.metadata.uid });
  };
  // Once they run, a node's change costs this listener a comparison.
  const stopNodes = client.watch('v1/nodes', (c) => {
    if (!stopMirrors && c.type !== 'DELETED' && c.object.metadata.name === controlPlaneNodeName) startWhenRegistered();
  });
  startWhenRegistered();
  return () => {
    stopNodes();
    stopMirrors?.();
  };
}

/** Keeps the control plane's mirror pods on `target` (the control-plane node as registered). */
function startMirrorPods(client: Client, clock: Clock, log: Logger, target: { name: string; uid: string }): () => void {
  const seen = clock.now().toISOString();
  const manifests = new Map(mirrorPods(target, seen).map((p) => [p.metadata.name ?? '', p]));
  const ensureMirror = (name: string) => {
    const current = client.get('v1/nodes', '', target.name);
    const pod = manifests.get(name);
    if (!pod || current?.metadata.uid !== target.uid) return;
    ensure(client, log, 'v1/pods', structuredClone(pod));
  };
  for (const name of manifests.keys()) ensureMirror(name);
  removeStrayMirrors(client, log, target.name);
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
