// The node lifecycle controller's view of each node's heartbeats (upstream's nodeHealthMap): when it last heard
// from the kubelet (a new Ready heartbeat or a newer Lease renewal), and, past the grace period, the kubelet's
// conditions turned Unknown. Ready nodes found healthy with nothing to do are kept "quiet": a later pass skips them
// while the Node is unchanged, so an idle fleet costs two lookups a node.
import type { Node, NodeCondition } from '../generated/k8s/core/v1.js';
import type { Client } from '../client/client.js';
import { rfc3339 } from '../util/clock.js';

/** --node-monitor-grace-period: 50 s since Kubernetes 1.32. */
export const nodeMonitorGracePeriodMs = 50_000;
export const nodeStartupGracePeriodMs = 60_000;

const monitoredConditions = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];
const leases = 'coordination.k8s.io/v1/leases';

export const readyOf = (n: Node) => n.status?.conditions?.find((c) => c.type === 'Ready');
const microMs = (t: string | undefined) => (t ? Date.parse(t) : 0);

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

const versionOf = (node: Node) => `${node.metadata.uid ?? ''}/${node.metadata.resourceVersion ?? ''}`;

export class NodeHealth {
  private readonly health = new Map<string, Health>();
  private readonly quiet = new Map<string, Quiet>();

  constructor(private readonly client: Client) {}

  /** The Ready condition last observed for the node. */
  ready(name: string): NodeCondition | undefined {
    return this.health.get(name)?.ready;
  }

  forget(name: string): void {
    this.health.delete(name);
    this.quiet.delete(name);
  }

  /** Every node's heartbeat counts as heard now (leaving full disruption). */
  resetProbes(now: number): void {
    for (const h of this.health.values()) {
      h.probeMs = now;
      h.readyTransitionMs = now;
    }
  }

  /** For a quiet node whose Node is unchanged and still within its grace period: its zone entry. */
  quietZone(node: Node, now: number): { zone: string | undefined } | undefined {
    const name = node.metadata.name ?? '';
    const q = this.quiet.get(name);
    if (q && q.nodeVersion === versionOf(node) && this.stillQuiet(name, q, now)) return { zone: q.zone };
    this.quiet.delete(name);
    return undefined;
  }

  /** Marks a node quiet if it was and is Ready, has a health entry and was not written since `node`. */
  markQuiet(node: Node, observed: NodeCondition, current: NodeCondition, zone: string | undefined): void {
    const name = node.metadata.name ?? '';
    const h = this.health.get(name);
    const after = this.client.get('v1/nodes', '', name);
    if (observed.status === 'True' && current.status === 'True' && h && after?.metadata.resourceVersion === node.metadata.resourceVersion) {
      const lease = this.client.get(leases, 'kube-node-lease', name);
      this.quiet.set(name, { nodeVersion: versionOf(node), leaseVersion: lease?.metadata.resourceVersion, untilMs: h.probeMs + nodeMonitorGracePeriodMs, zone });
    }
  }

  /**
   * For a Ready node unchanged since the last pass: takes in a Lease renewal as tryUpdateNodeHealth would (a newer
   * renewTime is a heartbeat) and tells whether the node is still within its grace period.
   */
  private stillQuiet(name: string, q: Quiet, now: number): boolean {
    const lease = this.client.get(leases, 'kube-node-lease', name);
    const leaseVersion = lease?.metadata.resourceVersion;
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

  /** Compares heartbeats with what was seen before; past the grace period, sets the kubelet's conditions Unknown. */
  async tryUpdate(node: Node, now: number): Promise<{ observed: NodeCondition; current: NodeCondition | undefined }> {
    const name = node.metadata.name ?? '';
    const created = microMs(node.metadata.creationTimestamp);
    let current = readyOf(node);
    let grace = nodeMonitorGracePeriodMs;
    let observed: NodeCondition;
    let h = this.health.get(name);
    if (!current) {
      observed = { type: 'Ready', status: 'Unknown', lastHeartbeatTime: node.metadata.creationTimestamp, lastTransitionTime: node.metadata.creationTimestamp };
      grace = nodeStartupGracePeriodMs;
      h ??= { probeMs: created, readyTransitionMs: created, ready: undefined, leaseRenew: undefined };
    } else observed = { ...current };
    if (!h) h = { probeMs: now, readyTransitionMs: now, ready: current, leaseRenew: undefined };
    else if (!h.ready && current) h = { probeMs: now, readyTransitionMs: now, ready: current, leaseRenew: h.leaseRenew };
    else if (h.ready && current && h.ready.lastHeartbeatTime !== current.lastHeartbeatTime) {
      const transition = h.ready.lastTransitionTime !== current.lastTransitionTime ? now : h.readyTransitionMs;
      h = { probeMs: now, readyTransitionMs: transition, ready: current, leaseRenew: h.leaseRenew };
    }
    const renew = this.client.get(leases, 'kube-node-lease', name)?.spec?.renewTime;
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
        conditions.push({ type, status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.', lastHeartbeatTime: node.metadata.creationTimestamp, lastTransitionTime: stamp });
      } else if (c.status !== 'Unknown') {
        Object.assign(c, { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: stamp });
      }
    }
    const ready = conditions.find((c) => c.type === 'Ready');
    if (JSON.stringify(ready) === JSON.stringify(current)) return { observed, current };
    await this.client.guaranteedUpdate('v1/nodes', '', name, (cur) => ({ ...cur, status: { ...(cur.status as object), conditions } }), { subresource: 'status' });
    current = ready;
    this.health.set(name, { ...h, ready, readyTransitionMs: now });
    return { observed, current };
  }
}
