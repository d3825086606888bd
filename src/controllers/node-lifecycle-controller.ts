// Node health: watches kubelet heartbeats (Lease renewals and node status), marks silent nodes Unknown after the
// grace period, marks their pods not Ready, taints nodes by condition (NoSchedule at once, NoExecute rate
// limited per zone) and removes the taints when nodes come back. Upstream: pkg/controller/nodelifecycle.
// On the controller runtime with four kinds of key: `node:<name>` (a node's NoSchedule taints and labels, on its
// changes), `pod:<namespace>/<name>` (a pod newly bound to a node), and two periodic passes over the whole fleet,
// requeued on the clock: `monitor` (heartbeats and zone disruption: not per node, as the zone counts need every
// node) and `evict` (the zones' rate-limited NoExecute tainting).
import type { Node, NodeCondition, Pod } from '../generated/k8s/core/v1.js';
import type { Change } from '../client/types.js';
import { keyOf, splitKey } from '../machinery/object-key.js';
import { defineController, indexes, indexNames, type ControllerContext, type Reconciler } from './runtime/index.js';
import { markPodsNotReady } from './mark-pods-not-ready.js';
import { NodeHealth, readyOf } from './node-health.js';
import { nodeTaints, sameTaint, swapTaints, taintKeys, type TaintRef } from './node-taints.js';
import { computeZoneState, qpsFor, ZoneTainter, zoneKey, type ZoneState } from './zone-tainter.js';

export { nodeMonitorGracePeriodMs, nodeStartupGracePeriodMs } from './node-health.js';
export const nodeMonitorPeriodMs = 5_000;
const taintingPassMs = 500;

const monitorKey = 'monitor';
const evictKey = 'evict';
const nodePrefix = 'node:';
const podPrefix = 'pod:';
const podIndexes = { [indexNames.byNode]: indexes.byNode };

const unreachableNoExecute: TaintRef = { key: taintKeys.unreachable, effect: 'NoExecute' };
const notReadyNoExecute: TaintRef = { key: taintKeys.notReady, effect: 'NoExecute' };
/** Condition type -> condition status -> the NoSchedule taint key it stands for. */
const conditionTaints: Record<string, Record<string, string>> = {
  Ready: { False: taintKeys.notReady, Unknown: taintKeys.unreachable },
  MemoryPressure: { True: taintKeys.memoryPressure },
  DiskPressure: { True: taintKeys.diskPressure },
  NetworkUnavailable: { True: taintKeys.networkUnavailable },
  PIDPressure: { True: taintKeys.pidPressure },
};
const conditionTaintKeys = new Set<string>([...Object.values(conditionTaints).flatMap((m) => Object.values(m)), taintKeys.unschedulable]);

const nodeNameOf = (o: Change['object'] | undefined) => (o?.spec as Pod['spec'])?.nodeName;
/** A pod that is (newly) bound to a node. */
const newlyBound = (c: Change) => c.type !== 'DELETED' && !!nodeNameOf(c.object) && nodeNameOf(c.object) !== nodeNameOf(c.previous);

export const nodeLifecycleController = defineController({
  name: 'node-lifecycle',
  watches: [
    { resource: 'v1/nodes', when: (c) => c.type !== 'DELETED', map: (c) => [nodePrefix + (c.object.metadata.name ?? '')] },
    { resource: 'v1/pods', when: newlyBound, map: (c) => [podPrefix + keyOf(c.object)] },
  ],
  initialKeys: ({ client }) => [...client.list('v1/nodes').map((n) => nodePrefix + (n.metadata.name ?? '')), monitorKey],
  setup: (ctx) => new NodeLifecycle(ctx),
});

class NodeLifecycle implements Reconciler {
  private readonly health: NodeHealth;
  private readonly known = new Map<string, Node>();
  private readonly zoneStates = new Map<string, ZoneState>();
  private readonly tainters = new Map<string, ZoneTainter>();

  constructor(private readonly ctx: ControllerContext) {
    this.health = new NodeHealth(ctx.client);
    ctx.informers.informer<Pod>('v1/pods', podIndexes);
    ctx.queue.addAfter(evictKey, taintingPassMs);
  }

  reconcile(key: string): number | void | Promise<number | void> {
    if (key === monitorKey) return this.pass(() => this.monitorNodeHealth(), nodeMonitorPeriodMs);
    if (key === evictKey) return this.pass(() => this.noExecuteTaintingPass(), taintingPassMs);
    if (key.startsWith(nodePrefix)) return this.noScheduleTaintingPass(key.slice(nodePrefix.length));
    if (key.startsWith(podPrefix)) return this.processPod(key.slice(podPrefix.length));
  }

  /** A periodic pass: a failure is logged and the pass runs again at its period. */
  private async pass(fn: () => unknown, periodMs: number): Promise<number> {
    try {
      await fn();
    } catch (err) {
      this.ctx.log.warn({ err }, 'node lifecycle pass failed');
    }
    return periodMs;
  }

  private get events() {
    return this.ctx.recorder('node-controller');
  }

  private podsOn(nodeName: string): Pod[] {
    return this.ctx.informers.informer<Pod>('v1/pods', podIndexes).byIndex(indexNames.byNode, nodeName);
  }

  /** NoSchedule taints that mirror conditions and spec.unschedulable; the beta os/arch labels. */
  private async noScheduleTaintingPass(name: string): Promise<void> {
    const { client } = this.ctx;
    const node = client.get('v1/nodes', '', name);
    if (!node) return;
    const want: TaintRef[] = [];
    for (const c of node.status?.conditions ?? []) {
      const key = conditionTaints[c.type]?.[c.status];
      if (key) want.push({ key, effect: 'NoSchedule' });
    }
    if (node.spec?.unschedulable) want.push({ key: taintKeys.unschedulable, effect: 'NoSchedule' });
    const have = nodeTaints(node).filter((t) => t.effect === 'NoSchedule' && conditionTaintKeys.has(t.key));
    const add = want.filter((w) => !have.some((h) => sameTaint(h, w)));
    const remove = have.filter((h) => !want.some((w) => sameTaint(h, w)));
    if (add.length || remove.length) await swapTaints(client, name, add, remove);
    const labels = node.metadata.labels ?? {};
    const fix: Record<string, string> = {};
    for (const [ga, beta] of [['kubernetes.io/os', 'beta.kubernetes.io/os'], ['kubernetes.io/arch', 'beta.kubernetes.io/arch']]) {
      if (labels[ga] !== undefined && labels[beta] !== labels[ga]) fix[beta] = labels[ga];
    }
    if (Object.keys(fix).length) {
      await client.guaranteedUpdate('v1/nodes', '', name, (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, ...fix } } }));
    }
  }

  private tainter(node: Node): ZoneTainter {
    const zone = zoneKey(node);
    let t = this.tainters.get(zone);
    if (!t) {
      this.tainters.set(zone, (t = new ZoneTainter(qpsFor('Normal', 1), this.ctx.clock.nowMs())));
      this.zoneStates.set(zone, 'Initial');
    }
    return t;
  }

  private async monitorNodeHealth(): Promise<void> {
    const { client, clock } = this.ctx;
    const nodes = client.list('v1/nodes');
    const seen = new Set<string>();
    for (const node of nodes) {
      const name = node.metadata.name ?? '';
      seen.add(name);
      if (this.known.has(name)) continue;
      this.known.set(name, node);
      this.events.event(node, 'Normal', 'RegisteredNode', `Node ${name} event: Registered Node ${name} in Controller`);
      this.tainter(node);
      await this.markNodeAsReachable(node);
    }
    for (const [name, node] of this.known) {
      if (seen.has(name)) continue;
      this.events.event(node, 'Normal', 'RemovingNode', `Node ${name} event: Removing Node ${name} from Controller`);
      this.known.delete(name);
      this.health.forget(name);
    }
    const zoneReady = new Map<string, Array<string | undefined>>();
    const zoneList = (zone: string) => zoneReady.get(zone) ?? zoneReady.set(zone, []).get(zone)!;
    const now = clock.nowMs();
    for (const stale of nodes) {
      const name = stale.metadata.name ?? '';
      const node = client.get('v1/nodes', '', name) ?? stale;
      const quiet = this.health.quietZone(node, now);
      if (quiet) {
        if (quiet.zone !== undefined) zoneList(quiet.zone).push('True');
        continue;
      }
      const { observed, current } = await this.health.tryUpdate(node, now);
      const zone = node.metadata.labels?.['node.kubernetes.io/exclude-disruption'] === undefined ? zoneKey(node) : undefined;
      if (zone !== undefined) zoneList(zone).push(current?.status);
      if (!current) continue;
      await this.processTaintBasedEviction(node, observed);
      this.health.markQuiet(node, observed, current, zone);
      if (current.status !== 'True' && observed.status === 'True') {
        this.events.event(node, 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
        await markPodsNotReady(client, this.events, this.ctx.log, this.podsOn(name), name);
      }
    }
    await this.handleDisruption(zoneReady, nodes);
  }

  private async processTaintBasedEviction(node: Node, observed: NodeCondition): Promise<void> {
    const name = node.metadata.name ?? '';
    const taints = nodeTaints(node);
    if (observed.status === 'False' || observed.status === 'Unknown') {
      const [want, opposite] = observed.status === 'False' ? [notReadyNoExecute, unreachableNoExecute] : [unreachableNoExecute, notReadyNoExecute];
      if (taints.some((t) => sameTaint(t, opposite))) {
        await swapTaints(this.ctx.client, name, [want], [opposite]);
        return;
      }
      const tainter = this.tainter(node);
      if (!taints.some((t) => sameTaint(t, want))) tainter.remove(name);
      tainter.add(name, node.metadata.uid ?? '');
    } else if (observed.status === 'True') await this.markNodeAsReachable(node);
  }

  private async markNodeAsReachable(node: Node): Promise<void> {
    const name = node.metadata.name ?? '';
    const taints = nodeTaints(node);
    if (taints.some((t) => sameTaint(t, unreachableNoExecute) || sameTaint(t, notReadyNoExecute))) await swapTaints(this.ctx.client, name, [], [unreachableNoExecute, notReadyNoExecute]);
    this.tainter(node).remove(name);
  }

  /** Adds the NoExecute taint matching the Ready condition to queued nodes, at each zone's rate. */
  private noExecuteTaintingPass(): void {
    const { client, clock } = this.ctx;
    const now = clock.nowMs();
    for (const t of this.tainters.values()) {
      t.process(now, (name) => {
        const node = client.get('v1/nodes', '', name);
        if (!node) return true;
        const ready = readyOf(node);
        if (!ready) return 50;
        // The zone's rate counts the attempt; a refused write is logged as a failed pass was.
        const failed = (err: unknown) => this.ctx.log.warn({ err }, 'node lifecycle pass failed');
        if (ready.status === 'False') swapTaints(client, name, [notReadyNoExecute], [unreachableNoExecute]).catch(failed);
        if (ready.status === 'Unknown') swapTaints(client, name, [unreachableNoExecute], [notReadyNoExecute]).catch(failed);
        return true;
      });
    }
  }

  private async handleDisruption(zoneReady: Map<string, Array<string | undefined>>, nodes: Node[]): Promise<void> {
    const { client, clock, log } = this.ctx;
    const now = clock.nowMs();
    const next = new Map<string, ZoneState>();
    let allAreFull = true;
    for (const [zone, statuses] of zoneReady) {
      const { state } = computeZoneState(statuses);
      if (state !== 'FullDisruption') allAreFull = false;
      next.set(zone, state);
      if (!this.zoneStates.has(zone)) this.zoneStates.set(zone, 'Initial');
    }
    let allWereFull = true;
    for (const [zone, state] of [...this.zoneStates]) {
      if (!zoneReady.has(zone)) {
        this.zoneStates.delete(zone);
        continue;
      }
      if (state !== 'FullDisruption') {
        allWereFull = false;
        break;
      }
    }
    if (allAreFull && allWereFull) return;
    const setRate = (zone: string, state: ZoneState) => this.tainters.get(zone)?.setQps(qpsFor(state, zoneReady.get(zone)?.length ?? 0), now);
    if (allAreFull) {
      log.info('all nodes are not ready: entering master disruption mode');
      for (const n of nodes) await this.markNodeAsReachable(client.get('v1/nodes', '', n.metadata.name ?? '') ?? n);
      for (const zone of this.zoneStates.keys()) {
        this.tainters.get(zone)?.setQps(0, now);
        this.zoneStates.set(zone, 'FullDisruption');
      }
      return;
    }
    if (allWereFull) {
      log.info('some nodes are ready: leaving master disruption mode');
      this.health.resetProbes(now);
    }
    for (const [zone, state] of [...this.zoneStates]) {
      const s = next.get(zone) ?? state;
      if (s !== state || allWereFull) setRate(zone, s);
      this.zoneStates.set(zone, s);
    }
  }

  /** A pod newly bound to a node that is known not Ready is marked not Ready. */
  private async processPod(key: string): Promise<void> {
    const { client } = this.ctx;
    const { namespace, name } = splitKey(key);
    const pod = client.get('v1/pods', namespace, name);
    const nodeName = pod?.spec?.nodeName;
    if (!pod || !nodeName) return;
    const ready = this.health.ready(nodeName);
    if (!ready || !client.get('v1/nodes', '', nodeName)) return;
    if (ready.status !== 'True') await markPodsNotReady(client, this.events, this.ctx.log, [pod], nodeName);
  }
}
