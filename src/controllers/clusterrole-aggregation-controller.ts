// kube-controller-manager's clusterrole-aggregation controller: a ClusterRole with an aggregationRule gets, as its
// rules, the rules of every ClusterRole its selectors match (by name order, each rule once).
import { aggregatedRules, selectorsOf } from '../auth/rbac/aggregation.js';
import type { Client } from '../client/client.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { WorkQueue } from '../util/work-queue.js';

const key = 'rbac.authorization.k8s.io/v1/clusterroles';

export class ClusterRoleAggregationController {
  private readonly queue: WorkQueue;
  private readonly stops: Array<() => void> = [];

  constructor(private readonly client: Client, clock: Clock, log: Logger) {
    this.queue = new WorkQueue('clusterrole-aggregation', (name) => this.reconcile(name), clock, log);
    // Any ClusterRole change may change what an aggregated one gathers: every aggregated role is looked at again.
    this.stops.push(client.watch(key, () => this.enqueueAggregated()));
    this.enqueueAggregated();
  }

  private enqueueAggregated(): void {
    for (const r of this.client.list(key)) if (selectorsOf(r)) this.queue.add(r.metadata.name ?? '');
  }

  private reconcile(name: string): void {
    const role = this.client.get(key, '', name);
    if (!role || !selectorsOf(role)) return;
    const rules = aggregatedRules(role, this.client.list(key));
    if (JSON.stringify(rules) === JSON.stringify(role.rules ?? [])) return;
    const def = this.client.resource('rbac.authorization.k8s.io/v1/clusterroles')!;
    this.client.guaranteedUpdate(def, '', name, (cur) => ({ ...cur, rules }), { fieldManager: 'clusterrole-aggregation-controller' });
  }

  stop(): void {
    this.stops.forEach((s) => s());
    this.queue.stop();
  }
}
