// The control-plane node, as kind has it: kubeadm labels it with the control-plane role (and keeps it out of external
// load balancers) and taints it NoSchedule, so only pods tolerating the taint (kube-proxy, CoreDNS, the static pods
// its kubelet runs) land there. It belongs to no pool: it has a worker's capacity and no zone.
import { workerPool, type NodePoolConfig, type TaintConfig } from './config.js';

export const controlPlaneNodeName = 'bonsai-control-plane';
export const controlPlaneRole = 'node-role.kubernetes.io/control-plane';
/** The taint kubeadm puts on control-plane nodes. */
export const controlPlaneTaint: TaintConfig = { key: controlPlaneRole, effect: 'NoSchedule' };

/** The control-plane node's shape: a worker's capacity, kubeadm's labels and its taint. */
export function controlPlanePool(): NodePoolConfig {
  return {
    ...workerPool(1), name: 'control-plane', zones: [],
    labels: { [controlPlaneRole]: '', 'node.kubernetes.io/exclude-from-external-load-balancers': '' }, taints: [{ ...controlPlaneTaint }],
  };
}
