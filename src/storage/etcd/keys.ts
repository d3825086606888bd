// kube-apiserver's etcd key layout: `/registry/<prefix>/<namespace>/<name>` (cluster-scoped: `/registry/<prefix>/<name>`).
// Built-in resources use their plural as the prefix, with upstream's historical exceptions (nodes are "minions",
// services "services/specs", endpoints "services/endpoints", replication controllers "controllers", ingresses
// "ingress"); apiextensions, apiregistration and custom resources use "<group>/<plural>".

export const registryRoot = '/registry/';

/** Upstream's prefixes that differ from the plural (by Bonsai storage key). */
const exceptions: Record<string, string> = {
  'core/nodes': 'minions',
  'core/services': 'services/specs',
  'core/endpoints': 'services/endpoints',
  'core/replicationcontrollers': 'controllers',
  'networking.k8s.io/ingresses': 'ingress',
  'apiextensions.k8s.io/customresourcedefinitions': 'apiextensions.k8s.io/customresourcedefinitions',
  'apiregistration.k8s.io/apiservices': 'apiregistration.k8s.io/apiservices',
};

/** A parsed etcd key. */
export interface KeyParts {
  resource: string;
  namespace: string;
  name: string;
}

/** Maps Bonsai storage keys (`group/plural`) to etcd key prefixes and back. */
export class KeyLayout {
  private readonly prefixOf = new Map<string, string>();
  private readonly resourceOf = new Map<string, string>();

  /** `builtins`: the storage keys of the built-in resources (a plural shared by two groups keeps the first one bare). */
  constructor(builtins: readonly string[]) {
    for (const key of builtins) {
      const slash = key.indexOf('/');
      const plural = key.slice(slash + 1);
      let prefix = exceptions[key] ?? plural;
      if (this.resourceOf.has(prefix)) prefix = key;
      if (this.prefixOf.has(key) || this.resourceOf.has(prefix)) continue;
      this.prefixOf.set(key, prefix);
      this.resourceOf.set(prefix, key);
    }
  }

  /** The key prefix of a resource, with the trailing slash: `/registry/pods/`. */
  prefix(resource: string): string {
    return `${registryRoot}${this.prefixOf.get(resource) ?? resource}/`;
  }

  key(resource: string, namespace: string, name: string): string {
    return namespace ? `${this.prefix(resource)}${namespace}/${name}` : `${this.prefix(resource)}${name}`;
  }

  /** The resource, namespace and name of an etcd key; undefined for keys outside the layout. */
  parse(key: string): KeyParts | undefined {
    if (!key.startsWith(registryRoot)) return undefined;
    const segs = key.slice(registryRoot.length).split('/');
    if (segs.some((s) => !s)) return undefined;
    let resource: string | undefined;
    let rest: string[];
    const two = segs.length >= 3 ? this.resourceOf.get(`${segs[0]}/${segs[1]}`) : undefined;
    if (two) [resource, rest] = [two, segs.slice(2)];
    else if (this.resourceOf.has(segs[0])) [resource, rest] = [this.resourceOf.get(segs[0]), segs.slice(1)];
    else [resource, rest] = [`${segs[0]}/${segs[1]}`, segs.slice(2)];
    if (!resource || rest.length < 1 || rest.length > 2) return undefined;
    return rest.length === 2 ? { resource, namespace: rest[0], name: rest[1] } : { resource, namespace: '', name: rest[0] };
  }
}
