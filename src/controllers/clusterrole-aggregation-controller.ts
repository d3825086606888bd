// kube-controller-manager's clusterrole-aggregation controller: a ClusterRole with an aggregationRule gets, as its
// rules, the rules of every ClusterRole its selectors match (by name order, each rule once).
import type { KObject, LabelSelector } from '../machinery/types.js';
import { labelSelectorMatches } from '../machinery/labels.js';
import { isRecord } from '../machinery/types.js';
import type { Registry } from '../registry/registry.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { WorkQueue } from './runtime/work-queue.js';

const key = 'rbac.authorization.k8s.io/clusterroles';

function selectorsOf(role: KObject): LabelSelector[] | undefined {
  const rule = role.aggregationRule;
  if (!isRecord(rule)) return undefined;
  const sel = rule.clusterRoleSelectors;
  return Array.isArray(sel) ? sel.filter(isRecord).map((s) => s as LabelSelector) : [];
}

/** The rules `role` aggregates from the ClusterRoles there are. */
export function aggregatedRules(role: KObject, all: KObject[]): unknown[] {
  const selectors = selectorsOf(role) ?? [];
  const out: unknown[] = [];
  const seen = new Set<string>();
  const byName = [...all].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  for (const sel of selectors) {
    // An empty selector matches every other ClusterRole, as upstream's; a role never aggregates itself.
    for (const other of byName) {
      if (other.metadata.name === role.metadata.name) continue;
      if (!labelSelectorMatches(sel, (other.metadata.labels ?? {}) as Record<string, string>)) continue;
      for (const rule of Array.isArray(other.rules) ? other.rules : []) {
        const k = JSON.stringify(rule);
        if (seen.has(k)) continue;
        seen.add(k);
        out.push(rule);
      }
    }
  }
  return out;
}

export class ClusterRoleAggregationController {
  private readonly queue: WorkQueue;
  private readonly stops: Array<() => void> = [];

  constructor(private readonly reg: Registry, clock: Clock, log: Logger) {
    this.queue = new WorkQueue('clusterrole-aggregation', (name) => this.reconcile(name), clock, log);
    // Any ClusterRole change may change what an aggregated one gathers: every aggregated role is looked at again.
    this.stops.push(reg.store.hub.subscribe(key, () => this.enqueueAggregated()));
    this.enqueueAggregated();
  }

  private enqueueAggregated(): void {
    for (const r of this.reg.store.list(key)) if (selectorsOf(r)) this.queue.add(r.metadata.name ?? '');
  }

  private reconcile(name: string): void {
    const role = this.reg.store.get(key, '', name);
    if (!role || !selectorsOf(role)) return;
    const rules = aggregatedRules(role, this.reg.store.list(key));
    if (JSON.stringify(rules) === JSON.stringify(role.rules ?? [])) return;
    const def = this.reg.find('rbac.authorization.k8s.io', 'v1', 'clusterroles')!;
    this.reg.guaranteedUpdate(def, '', name, (cur) => ({ ...cur, rules }), { fieldManager: 'clusterrole-aggregation-controller' });
  }

  stop(): void {
    this.stops.forEach((s) => s());
    this.queue.stop();
  }
}
