// Creates the default RBAC policy (roles, cluster roles and their bindings) when missing, as kube-apiserver's
// bootstrap-roles post-start hook does, whatever the authorization mode: a real cluster always has them.
import type { KObject } from '../../machinery/types.js';
import { ApiError } from '../../machinery/errors.js';
import type { Registry } from '../../registry/registry.js';
import { storageKey, type ResourceDef } from '../../registry/resource.js';
import { controllerRoleBindings, controllerRoles } from './bootstrap-controller-roles.js';
import { clusterRoleBindings, clusterRoles, namespacedRoleBindings, namespacedRoles } from './bootstrap-roles.js';
import { subjectJson, type BindingSpec, type RoleSpec } from './policy-dsl.js';
import { rbacGroup } from './policy-rule.js';
import { aggregatedRules } from './aggregation.js';

const apiVersion = `${rbacGroup}/v1`;

function metadata(name: string, namespace: string | undefined, labels: Record<string, string> = {}): KObject['metadata'] {
  const meta: KObject['metadata'] = {
    name, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults', ...labels }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
  };
  if (namespace) meta.namespace = namespace;
  return meta;
}

export function roleObject(kind: 'Role' | 'ClusterRole', spec: RoleSpec, namespace?: string): KObject {
  const obj: KObject = { apiVersion, kind, metadata: metadata(spec.name, namespace, spec.labels) };
  if (spec.aggregateFrom) {
    obj.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [`rbac.authorization.k8s.io/aggregate-to-${spec.aggregateFrom}`]: 'true' } }] };
  } else obj.rules = spec.rules ?? [];
  return obj;
}

export function bindingObject(kind: 'RoleBinding' | 'ClusterRoleBinding', spec: BindingSpec, namespace?: string): KObject {
  const obj: KObject = { apiVersion, kind, metadata: metadata(spec.name, namespace), roleRef: { apiGroup: rbacGroup, kind: spec.roleRef.kind, name: spec.roleRef.name } };
  if (spec.subjects.length) obj.subjects = spec.subjects.map(subjectJson);
  return obj;
}

/**
 * The default ClusterRoles, with admin, edit and view already holding what the aggregation controller would give
 * them (so that they are usable from the first request and the controller finds nothing to do).
 */
function defaultClusterRoles(): KObject[] {
  const roles = [...clusterRoles, ...controllerRoles].map((s) => roleObject('ClusterRole', s));
  for (let pass = 0; pass < 4; pass++) {
    let changed = false;
    for (const role of roles) {
      if (!role.aggregationRule) continue;
      const rules = aggregatedRules(role, roles);
      if (JSON.stringify(rules) !== JSON.stringify(role.rules ?? [])) {
        role.rules = rules;
        changed = true;
      }
    }
    if (!changed) break;
  }
  return roles;
}

/** Every default object, in creation order (roles before the bindings naming them). */
export function defaultPolicy(): Array<{ plural: string; namespace: string; obj: KObject }> {
  return [
    ...defaultClusterRoles().map((obj) => ({ plural: 'clusterroles', namespace: '', obj })),
    ...[...clusterRoleBindings, ...controllerRoleBindings].map((s) => ({ plural: 'clusterrolebindings', namespace: '', obj: bindingObject('ClusterRoleBinding', s) })),
    ...namespacedRoles.map((s) => ({ plural: 'roles', namespace: s.namespace, obj: roleObject('Role', s, s.namespace) })),
    ...namespacedRoleBindings.map((s) => ({ plural: 'rolebindings', namespace: s.namespace, obj: bindingObject('RoleBinding', s, s.namespace) })),
  ];
}

/**
 * Creates the default policy objects that do not exist (a data directory keeps what a user changed); how many it
 * created, or a promise of it on a store that waits (etcd), where they are all sent at once.
 */
export function bootstrapPolicy(reg: Registry): number | Promise<number> {
  const defs = new Map<string, ResourceDef>();
  let created = 0;
  const writes: Array<Promise<void>> = [];
  for (const { plural, namespace, obj } of defaultPolicy()) {
    let def = defs.get(plural);
    if (!def) {
      def = reg.find(rbacGroup, 'v1', plural);
      if (!def) continue;
      defs.set(plural, def);
    }
    if (reg.getStored(storageKey(def), namespace, obj.metadata.name ?? '')) continue;
    const refused = (e: unknown) => {
      if (!(e instanceof ApiError && (e.code === 409 || e.code === 404))) throw e;
    };
    try {
      const r = reg.create(def, namespace, obj, { webhooks: false });
      if (r instanceof Promise) writes.push(r.then(() => void created++, refused));
      else created++;
    } catch (e) {
      refused(e);
    }
  }
  return writes.length ? Promise.all(writes).then(() => created) : created;
}
