// kube-controller-manager's clusterrole-aggregation controller: a ClusterRole with an aggregationRule gets, as its
// rules, the rules of every ClusterRole its selectors match (by name order, each rule once).
import { aggregatedRules, selectorsOf } from '../auth/rbac/aggregation.js';
import type { Client } from '../client/client.js';
import { keyOf, splitKey } from '../machinery/object-key.js';
import { defineController } from './runtime/index.js';

const key = 'rbac.authorization.k8s.io/v1/clusterroles';

/** Keys (`/<name>`) of the ClusterRoles with an aggregationRule. */
const aggregatedKeys = (client: Client): string[] => client.list(key).filter((r) => !!selectorsOf(r)).map(keyOf);

export const clusterRoleAggregationController = defineController({
  name: 'clusterrole-aggregation',
  // Any ClusterRole change may change what an aggregated one gathers: every aggregated role is looked at again.
  watches: [{ resource: key, map: (_c, { client }) => aggregatedKeys(client) }],
  initialKeys: ({ client }) => aggregatedKeys(client),
  reconcile: (k, { client }) => aggregate(client, splitKey(k).name),
});

async function aggregate(client: Client, name: string): Promise<void> {
  const role = client.get(key, '', name);
  if (!role || !selectorsOf(role)) return;
  const rules = aggregatedRules(role, client.list(key));
  if (JSON.stringify(rules) === JSON.stringify(role.rules ?? [])) return;
  await client.guaranteedUpdate(key, '', name, (cur) => ({ ...cur, rules }), { fieldManager: 'clusterrole-aggregation-controller' });
}
