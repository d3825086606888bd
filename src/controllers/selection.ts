// Which controllers run: their kube-controller-manager names and the `--controllers` syntax. Kept apart from the
// controllers themselves so a bad flag is refused before anything is loaded.

/** Every controller by its kube-controller-manager name (without the `-controller` suffix), in start order. */
export const controllerNames = [
  'garbage-collector', 'namespace', 'serviceaccount', 'disruption', 'endpoints', 'endpointslice', 'node-lifecycle',
  'taint-eviction', 'pod-garbage-collector', 'replicaset', 'deployment', 'job', 'daemonset', 'cronjob',
  'ttl-after-finished', 'horizontal-pod-autoscaler', 'statefulset', 'persistentvolume-binder', 'clusterrole-aggregation', 'serviceaccount-token', 'certificatesigningrequest-signing',
] as const;

export type ControllerName = (typeof controllerNames)[number];

const isName = (n: string): n is ControllerName => (controllerNames as readonly string[]).includes(n);

/**
 * Which controllers run, from a kube-controller-manager style `--controllers` list: `*` is all, `name` enables,
 * `-name` disables (names with or without the `-controller` suffix). Unknown names are an error.
 */
export function selectControllers(spec: readonly string[] = ['*']): Set<ControllerName> {
  const enabled = new Set<ControllerName>();
  const disabled = new Set<ControllerName>();
  let all = false;
  for (const raw of spec.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean)) {
    if (raw === '*') {
      all = true;
      continue;
    }
    const off = raw.startsWith('-');
    const name = (off ? raw.slice(1) : raw).replace(/-controller$/, '');
    if (!isName(name)) throw new Error(`unknown controller "${raw}"; known: ${controllerNames.join(', ')}`);
    (off ? disabled : enabled).add(name);
  }
  return new Set(controllerNames.filter((n) => !disabled.has(n) && (all || enabled.has(n))));
}
