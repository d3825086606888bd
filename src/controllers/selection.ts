// Which controllers run: their kube-controller-manager names and the `--controllers` syntax. Kept apart from the
// controllers themselves so a bad flag is refused before anything is loaded.
import { selectNames } from '../util/name-selection.js';

/** Every controller by its kube-controller-manager name (without the `-controller` suffix), in start order. */
export const controllerNames = [
  'garbage-collector', 'namespace', 'serviceaccount', 'root-ca-certificate-publisher', 'disruption', 'endpoints', 'endpointslice', 'node-lifecycle',
  'taint-eviction', 'pod-garbage-collector', 'replicaset', 'deployment', 'job', 'daemonset', 'cronjob',
  'ttl-after-finished', 'horizontal-pod-autoscaler', 'statefulset', 'persistentvolume-binder', 'resourceclaim', 'clusterrole-aggregation', 'serviceaccount-token', 'certificatesigningrequest-signing',
] as const;

export type ControllerName = (typeof controllerNames)[number];

/**
 * Which controllers run, from a kube-controller-manager style `--controllers` list: `*` is all, `name` enables,
 * `-name` disables (names with or without the `-controller` suffix). Unknown names are an error.
 */
export function selectControllers(spec: readonly string[] = ['*']): Set<ControllerName> {
  return new Set(selectNames(spec, controllerNames, 'controller', (n) => n.replace(/-controller$/, '')));
}
