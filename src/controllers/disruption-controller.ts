// PodDisruptionBudget status: healthy pods against the budget, so evictions know what they may disrupt.
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isPodReady } from '../machinery/conditions.js';
import { labelSelectorMatches } from '../machinery/labels.js';
import type { KObject } from '../machinery/types.js';
import type { Registry } from '../registry/registry.js';
import { rfc3339 } from '../util/clock.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { WorkQueue } from './runtime/work-queue.js';

function scaled(v: number | string | undefined, total: number, roundUp: boolean): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return v;
  const m = v.match(/^(\d+)%$/);
  if (!m) return Number(v) || 0;
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

/** How long an admitted eviction counts against the budget before the pod must be terminating (upstream: 2 minutes). */
const disruptedPodTimeoutMs = 2 * 60 * 1000;


export class DisruptionController {
  private readonly queue: WorkQueue;
  private readonly stops: Array<() => void> = [];

  constructor(private readonly reg: Registry, clock: Clock, log: Logger) {
    this.queue = new WorkQueue('disruption', (key) => this.reconcile(key), clock, log);
    const enqueueNs = (ns: string) => {
      for (const p of reg.store.list('policy/poddisruptionbudgets', ns)) this.queue.add(`${ns}/${p.metadata.name}`);
    };
    this.stops.push(reg.store.hub.subscribe('policy/poddisruptionbudgets', (c) => c.type !== 'DELETED' && this.queue.add(`${c.object.metadata.namespace}/${c.object.metadata.name}`)));
    this.stops.push(reg.store.hub.subscribe('core/pods', (c) => enqueueNs(c.object.metadata.namespace ?? '')));
    for (const p of reg.store.list('policy/poddisruptionbudgets')) this.queue.add(`${p.metadata.namespace}/${p.metadata.name}`);
  }

  private reconcile(key: string): void | number {
    const [ns, name] = key.split('/');
    const pdb = this.reg.store.get('policy/poddisruptionbudgets', ns, name) as unknown as PodDisruptionBudget | undefined;
    if (!pdb || pdb.metadata?.deletionTimestamp) return;
    const pods = (this.reg.store.list('core/pods', ns) as unknown as Pod[]).filter((p) => labelSelectorMatches(pdb.spec?.selector, p.metadata?.labels));
    const now = this.reg.clock.nowMs();
    // Evictions the API admitted but whose pods are not yet terminating count as disrupted, for a while.
    const disrupted: Record<string, string> = {};
    let recheckIn: number | undefined;
    for (const [podName, at] of Object.entries(pdb.status?.disruptedPods ?? {})) {
      const pod = pods.find((p) => p.metadata?.name === podName);
      const left = Date.parse(at) + disruptedPodTimeoutMs - now;
      if (!pod || pod.metadata?.deletionTimestamp || left <= 0) continue;
      disrupted[podName] = at;
      recheckIn = Math.min(recheckIn ?? left, left);
    }
    const expected = pods.length;
    const healthy = pods.filter((p) => isPodReady(p) && !p.metadata?.deletionTimestamp && !disrupted[p.metadata?.name ?? '']).length;
    let desired: number;
    if (pdb.spec?.maxUnavailable !== undefined) desired = Math.max(0, expected - (scaled(pdb.spec.maxUnavailable, expected, true) ?? 0));
    else desired = scaled(pdb.spec?.minAvailable, expected, true) ?? 0;
    const allowed = Math.max(0, healthy - desired);
    const old = pdb.status;
    const cond = old?.conditions?.find((c) => c.type === 'DisruptionAllowed');
    const condStatus = allowed > 0 ? 'True' : 'False';
    const status = {
      observedGeneration: pdb.metadata?.generation, disruptionsAllowed: allowed, currentHealthy: healthy, desiredHealthy: desired, expectedPods: expected,
      ...(Object.keys(disrupted).length ? { disruptedPods: disrupted } : {}),
      conditions: [{
        type: 'DisruptionAllowed', status: condStatus, reason: allowed > 0 ? 'SufficientPods' : 'InsufficientPods', message: '',
        observedGeneration: pdb.metadata?.generation,
        lastTransitionTime: cond && cond.status === condStatus ? cond.lastTransitionTime : rfc3339(this.reg.clock.now()),
      }],
    };
    if (old && JSON.stringify(old) === JSON.stringify(status)) return recheckIn;
    const def = this.reg.find('policy', 'v1', 'poddisruptionbudgets')!;
    this.reg.guaranteedUpdate(def, ns, name, (cur: KObject) => ({ ...cur, status }), { subresource: 'status' });
    return recheckIn;
  }

  stop(): void {
    this.stops.forEach((s) => s());
    this.queue.stop();
  }
}
