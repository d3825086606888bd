// Node health: watches kubelet heartbeats (Lease renewals and node status), marks silent nodes Unknown after the
// grace period, marks their pods not Ready, taints nodes by condition (NoSchedule at once, NoExecute rate
// limited per zone) and removes the taints when nodes come back. Upstream: pkg/controller/nodelifecycle.
import type { Node, NodeCondition, Pod } from '../generated/k8s/core/v1.js';
import type { Lease } from '../generated/k8s/coordination/v1.js';
import { EventRecorder } from '../client/event-recorder.js';
import type { KObject } from '../machinery/types.js';
import type { Client } from '../client/client.js';
import { rfc3339, type Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { markPodsNotReady } from './mark-pods-not-ready.js';
import { nodeTaints, sameTaint, swapTaints, taintKeys, type TaintRef } from './node-taints.js';
import { byNode, podsByNode } from './pods-by-node.js';
import type { Informer } from '../client/informer.js';
import { WorkQueue } from '../util/work-queue.js';
import { computeZoneState, qpsFor, ZoneTainter, zoneKey, type ZoneState } from './zone-tainter.js';

export const nodeMonitorPeriodMs = 5_000;
/** --node-monitor-grace-period: 50 s since Kubernetes 1.32. */
export const nodeMonitorGracePeriodMs = 50_000;
export const nodeStartupGracePeriodMs = 60_000;
const taintingPassMs = 500;

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
const monitoredConditions = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

interface Health {
  probeMs: number;
  readyTransitionMs: number;
  /** The Ready condition as last observed. */
  ready: NodeCondition | undefined;
  leaseRenew: string | undefined;
}

interface Quiet {
  /** uid/resourceVersion of the Node the full pass saw. */
  nodeVersion: string;
  /** resourceVersion of the node's Lease last taken in. */
  leaseVersion: string | undefined;
  /** Until when the node is within its grace period without another heartbeat. */
  untilMs: number;
  /** Its zone for the disruption counts (undefined: excluded from disruption). */
  zone: string | undefined;
}

const readyOf = (n: Node) => n.status?.conditions?.find((c) => c.type === 'Ready');
const microMs = (t: string | undefined) => (t ? Date.parse(t) : 0);

export class NodeLifecycleController {
  private readonly health = new Map<string, Health>();
  /**
   * Ready nodes a monitor pass found healthy with nothing to do, by name. A pass skips them while the Node is
   * unchanged (a Lease renewal only moves the grace period on), so an idle fleet costs two lookups a node.
   */
  private readonly quiet = new Map<string, Quiet>();
  private readonly known = new Map<string, Node>();
  private readonly zoneStates = new Map<string, ZoneState>();
  private readonly tainters = new Map<string, ZoneTainter>();
  private readonly nodeQueue: WorkQueue;
  private readonly podQueue: WorkQueue;
  /** Pods by node name. */
  private readonly pods: Informer;
  private readonly events: EventRecorder;
  private readonly stops: Array<() => void> = [];

  constructor(private readonly client: Client, private readonly clock: Clock, private readonly log: Logger) {
    this.events = new EventRecorder(client, { component: 'node-controller' });
    this.nodeQueue = new WorkQueue('node-lifecycle-nodes', (name) => this.noScheduleTaintingPass(name), clock, log);
    this.podQueue = new WorkQueue('node-lifecycle-pods', (key) => this.processPod(key), clock, log);
    this.pods = podsByNode(client);
    this.pods.onChange(({ type, object: pod, previous: prev }) => {
      const node = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
      if (type !== 'DELETED' && node && node !== (prev?.spec as { nodeName?: string } | undefined)?.nodeName) this.podQueue.add(`${pod.metadata.namespace}/${pod.metadata.name}`);
    });
    this.stops.push(client.watch('v1/nodes', (c) => c.type !== 'DELETED' && this.nodeQueue.add(c.object.metadata.name ?? '')));
    for (const n of client.list('v1/nodes')) this.nodeQueue.add(n.metadata.name ?? '');
    this.stops.push(clock.setInterval(() => this.guard(() => this.monitorNodeHealth()), nodeMonitorPeriodMs));
    this.stops.push(clock.setInterval(() => this.guard(() => this.noExecuteTaintingPass()), taintingPassMs));
    setImmediate(() => this.guard(() => this.monitorNodeHealth()));
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.warn({ err }, 'node lifecycle pass failed');
    }
  }

  private nodeDef() {
    return this.client.resource('v1/nodes')!;
  }

  /** NoSchedule taints that mirror conditions and spec.unschedulable; the beta os/arch labels. */
  private noScheduleTaintingPass(name: string): void {
    const node = this.client.get('v1/nodes', '', name);
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
    if (add.length || remove.length) swapTaints(this.client, name, add, remove);
    const labels = node.metadata?.labels ?? {};
    const fix: Record<string, string> = {};
    for (const [ga, beta] of [['kubernetes.io/os', 'beta.kubernetes.io/os'], ['kubernetes.io/arch', 'beta.kubernetes.io/arch']]) {
      if (labels[ga] !== undefined && labels[beta] !== labels[ga]) fix[beta] = labels[ga];
    }
    if (Object.keys(fix).length) {
      this.client.guaranteedUpdate(this.nodeDef(), '', name, (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, ...fix } } }));
    }
  }

  /**
   * For a Ready node unchanged since the last pass: takes in a Lease renewal as tryUpdateNodeHealth would (a newer
   * renewTime is a heartbeat) and tells whether the node is still within its grace period.
   */
  private stillQuiet(name: string, q: Quiet, now: number): boolean {
    const lease = this.client.get('coordination.k8s.io/v1/leases', 'kube-node-lease', name);
    const leaseVersion = lease?.metadata?.resourceVersion;
    if (leaseVersion !== q.leaseVersion) {
      const h = this.health.get(name);
      if (!h) return false;
      const renew = lease?.spec?.renewTime;
      if (renew && (!h.leaseRenew || microMs(h.leaseRenew) < microMs(renew))) {
        h.leaseRenew = renew;
        h.probeMs = now;
      }
      q.leaseVersion = leaseVersion;
      q.untilMs = h.probeMs + nodeMonitorGracePeriodMs;
    }
    return now <= q.untilMs;
  }

  private zoneList(zoneReady: Map<string, Array<string | undefined>>, zone: string): Array<string | undefined> {
    let list = zoneReady.get(zone);
    if (!list) zoneReady.set(zone, (list = []));
    return list;
  }

  private tainter(node: Node): ZoneTainter {
    const zone = zoneKey(node);
    let t = this.tainters.get(zone);
    if (!t) {
      this.tainters.set(zone, (t = new ZoneTainter(qpsFor('Normal', 1), this.clock.nowMs())));
      this.zoneStates.set(zone, 'Initial');
    }
    return t;
  }

  private monitorNodeHealth(): void {
    const nodes = this.client.list('v1/nodes');
    const seen = new Set<string>();
    for (const node of nodes) {
      const name = node.metadata?.name ?? '';
      seen.add(name);
      if (this.known.has(name)) continue;
      this.known.set(name, node);
      this.events.event(node, 'Normal', 'RegisteredNode', `Node ${name} event: Registered Node ${name} in Controller`);
      this.tainter(node);
      this.markNodeAsReachable(node);
    }
    for (const [name, node] of this.known) {
      if (seen.has(name)) continue;
      this.events.event(node, 'Normal', 'RemovingNode', `Node ${name} event: Removing Node ${name} from Controller`);
      this.known.delete(name);
      this.health.delete(name);
      this.quiet.delete(name);
    }
    const zoneReady = new Map<string, Array<string | undefined>>();
    const now = this.clock.nowMs();
    for (const stale of nodes) {
      const name = stale.metadata?.name ?? '';
      const node = (this.client.get('v1/nodes', '', name) ?? stale);
      const nodeVersion = `${node.metadata?.uid ?? ''}/${node.metadata?.resourceVersion ?? ''}`;
      const q = this.quiet.get(name);
      if (q && q.nodeVersion === nodeVersion && this.stillQuiet(name, q, now)) {
        if (q.zone !== undefined) this.zoneList(zoneReady, q.zone).push('True');
        continue;
      }
      this.quiet.delete(name);
      const { observed, current } = this.tryUpdateNodeHealth(node);
      const zone = node.metadata?.labels?.['node.kubernetes.io/exclude-disruption'] === undefined ? zoneKey(node) : undefined;
      if (zone !== undefined) this.zoneList(zoneReady, zone).push(current?.status);
      if (!current) continue;
      this.processTaintBasedEviction(node, observed);
      const h = this.health.get(name);
      const after = this.client.get('v1/nodes', '', name);
      if (observed.status === 'True' && current.status === 'True' && h && after?.metadata.resourceVersion === node.metadata?.resourceVersion) {
        const lease = this.client.get('coordination.k8s.io/v1/leases', 'kube-node-lease', name);
        this.quiet.set(name, { nodeVersion, leaseVersion: lease?.metadata.resourceVersion, untilMs: h.probeMs + nodeMonitorGracePeriodMs, zone });
      }
      if (current.status !== 'True' && observed.status === 'True') {
        this.events.event(node, 'Normal', 'NodeNotReady', `Node ${node.metadata?.name} status is now: NodeNotReady`);
        markPodsNotReady(this.client, this.events, this.log, this.pods.byIndex(byNode, node.metadata?.name ?? ''), node.metadata?.name ?? '');
      }
    }
    this.handleDisruption(zoneReady, nodes);
  }

  /** Compares heartbeats with what was seen before; past the grace period, sets the kubelet's conditions Unknown. */
  private tryUpdateNodeHealth(node: Node): { observed: NodeCondition; current: NodeCondition | undefined } {
    const name = node.metadata?.name ?? '';
    const now = this.clock.nowMs();
    const created = microMs(node.metadata?.creationTimestamp);
    let current = readyOf(node);
    let grace = nodeMonitorGracePeriodMs;
    let observed: NodeCondition;
    let h = this.health.get(name);
    if (!current) {
      observed = { type: 'Ready', status: 'Unknown', lastHeartbeatTime: node.metadata?.creationTimestamp, lastTransitionTime: node.metadata?.creationTimestamp };
      grace = nodeStartupGracePeriodMs;
      h ??= { probeMs: created, readyTransitionMs: created, ready: undefined, leaseRenew: undefined };
    } else observed = { ...current };
    if (!h) h = { probeMs: now, readyTransitionMs: now, ready: current, leaseRenew: undefined };
    else if (!h.ready && current) h = { probeMs: now, readyTransitionMs: now, ready: current, leaseRenew: h.leaseRenew };
    else if (h.ready && current && h.ready.lastHeartbeatTime !== current.lastHeartbeatTime) {
      const transition = h.ready.lastTransitionTime !== current.lastTransitionTime ? now : h.readyTransitionMs;
      h = { probeMs: now, readyTransitionMs: transition, ready: current, leaseRenew: h.leaseRenew };
    }
    const lease = this.client.get('coordination.k8s.io/v1/leases', 'kube-node-lease', name);
    const renew = lease?.spec?.renewTime;
    if (renew && (!h.leaseRenew || microMs(h.leaseRenew) < microMs(renew))) {
      h.leaseRenew = renew;
      h.probeMs = now;
    }
    this.health.set(name, h);
    if (now <= h.probeMs + grace) return { observed, current };
    const stamp = rfc3339(new Date(now));
    const conditions = [...(node.status?.conditions ?? [])].map((c) => ({ ...c }));
    for (const type of monitoredConditions) {
      const c = conditions.find((x) => x.type === type);
      if (!c) {
        conditions.push({ type, status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.', lastHeartbeatTime: node.metadata?.creationTimestamp, lastTransitionTime: stamp });
      } else if (c.status !== 'Unknown') {
        Object.assign(c, { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: stamp });
      }
    }
    const ready = conditions.find((c) => c.type === 'Ready');
    if (JSON.stringify(ready) === JSON.stringify(current)) return { observed, current };
    this.client.guaranteedUpdate(this.nodeDef(), '', name, (cur) => ({ ...cur, status: { ...(cur.status as object), conditions } }), { subresource: 'status' });
    current = ready;
    this.health.set(name, { ...h, ready, readyTransitionMs: now });
    return { observed, current };
  }

  private processTaintBasedEviction(node: Node, observed: NodeCondition): void {
    const name = node.metadata?.name ?? '';
    const taints = nodeTaints(node);
    if (observed.status === 'False' || observed.status === 'Unknown') {
      const [want, opposite] = observed.status === 'False' ? [notReadyNoExecute, unreachableNoExecute] : [unreachableNoExecute, notReadyNoExecute];
      if (taints.some((t) => sameTaint(t, opposite))) {
        swapTaints(this.client, name, [want], [opposite]);
        return;
      }
      const tainter = this.tainter(node);
      if (!taints.some((t) => sameTaint(t, want))) tainter.remove(name);
      tainter.add(name, node.metadata?.uid ?? '');
    } else if (observed.status === 'True') this.markNodeAsReachable(node);
  }

  private markNodeAsReachable(node: Node): void {
    const name = node.metadata?.name ?? '';
    const taints = nodeTaints(node);
    if (taints.some((t) => sameTaint(t, unreachableNoExecute) || sameTaint(t, notReadyNoExecute))) swapTaints(this.client, name, [], [unreachableNoExecute, notReadyNoExecute]);
    this.tainter(node).remove(name);
  }

  /** Adds the NoExecute taint matching the Ready condition to queued nodes, at each zone's rate. */
  private noExecuteTaintingPass(): void {
    const now = this.clock.nowMs();
    for (const t of this.tainters.values()) {
      t.process(now, (name) => {
        const node = this.client.get('v1/nodes', '', name);
        if (!node) return true;
        const ready = readyOf(node);
        if (!ready) return 50;
        if (ready.status === 'False') return swapTaints(this.client, name, [notReadyNoExecute], [unreachableNoExecute]) || true;
        if (ready.status === 'Unknown') return swapTaints(this.client, name, [unreachableNoExecute], [notReadyNoExecute]) || true;
        return true;
      });
    }
  }

  private handleDisruption(zoneReady: Map<string, Array<string | undefined>>, nodes: Node[]): void {
    const now = this.clock.nowMs();
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
      this.log.info('all nodes are not ready: entering master disruption mode');
      for (const n of nodes) this.markNodeAsReachable((this.client.get('v1/nodes', '', n.metadata?.name ?? '') ?? n));
      for (const zone of this.zoneStates.keys()) {
        this.tainters.get(zone)?.setQps(0, now);
        this.zoneStates.set(zone, 'FullDisruption');
      }
      return;
    }
    if (allWereFull) {
      this.log.info('some nodes are ready: leaving master disruption mode');
      for (const h of this.health.values()) {
        h.probeMs = now;
        h.readyTransitionMs = now;
      }
    }
    for (const [zone, state] of [...this.zoneStates]) {
      const s = next.get(zone) ?? state;
      if (s !== state || allWereFull) setRate(zone, s);
      this.zoneStates.set(zone, s);
    }
  }

  private processPod(key: string): void {
    const i = key.indexOf('/');
    const pod = this.client.get('v1/pods', key.slice(0, i), key.slice(i + 1));
    const nodeName = pod?.spec?.nodeName;
    if (!pod || !nodeName) return;
    const h = this.health.get(nodeName);
    if (!h?.ready || !this.client.get('v1/nodes', '', nodeName)) return;
    if (h.ready.status !== 'True') markPodsNotReady(this.client, this.events, this.log, [pod], nodeName);
  }

  stop(): void {
    this.stops.forEach((s) => s());
    this.pods.stop();
    this.nodeQueue.stop();
    this.podQueue.stop();
  }
}
