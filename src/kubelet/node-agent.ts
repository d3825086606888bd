// One simulated kubelet: registers its node's pod CIDR, posts node status, renews its Lease in kube-node-lease
// and hands out pod IPs. The KubeletManager drives it from one shared timer.
import type { Node } from '../generated/k8s/core/v1.js';
import type { Lease } from '../generated/k8s/coordination/v1.js';
import { EventRecorder } from '../client/event-recorder.js';
import { ApiError } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import type { Client } from '../client/client.js';
import { rfc3339Micro } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { kubeletStatus } from './node-status.js';
import { adoptLease, adoptNodeStatus } from './node-adopt.js';
import { PodIPPool } from './pod-ips.js';
import type { NodeAgentView } from './types.js';

export const leaseNamespace = 'kube-node-lease';
export const leaseDurationSeconds = 40;
/** The kubelet renews its lease every quarter of the lease duration. */
export const leaseRenewMs = (leaseDurationSeconds * 1000) / 4;
/** nodeStatusReportFrequency: status is posted at least this often even when nothing changed. */
export const statusReportMs = 5 * 60 * 1000;
/** After a failed status write the kubelet tries again at its next status sync (nodeStatusUpdateFrequency). */
const statusRetryMs = 10_000;

export interface StartOptions {
  /** No events (large fleets registering at start-up). */
  quiet?: boolean;
  /** The node was just created with the kubelet's status. */
  registered?: boolean;
  /**
   * The Lease is created by the manager's next pass rather than at once: a fleet registering at start-up posts its
   * Nodes (Ready) first and its Leases a moment later, as the kubelet's lease controller runs beside registration.
   */
  leaseSoon?: boolean;
  /** The process (re)starts on a node an earlier run served: a fresh status and a valid Lease are taken over (node-adopt.ts). */
  adopt?: boolean;
}

export interface AgentIdentity {
  name: string;
  uid: string;
  internalIP: string;
  podCIDR: string | undefined;
}

export class NodeAgent implements NodeAgentView {
  readonly nodeName: string;
  readonly uid: string;
  readonly hostIP: string;
  running = false;
  /** Clock ms at which the lease is renewed next. */
  nextLeaseMs = 0;
  /** Clock ms at which a status report falls due even when nothing changed. */
  private nextReportMs = 0;
  /** When the manager's timer is to tick this agent next (its entry in the manager's heap; undefined: none). */
  scheduledMs: number | undefined;
  /** The Lease is to be created at the next tick (StartOptions.leaseSoon). */
  private leasePending = false;
  /** Someone else changed the Node: compare its status with what the kubelet reports at the next tick. */
  dirty = false;
  /** resourceVersion of the agent's own last Node write (its watch echo is not a change). */
  lastWrittenRv: string | undefined;
  private readonly ips: PodIPPool;
  private readonly bootSeed: string;
  private events: EventRecorder | undefined;

  constructor(private readonly client: Client, private readonly log: Logger, id: AgentIdentity) {
    this.nodeName = id.name;
    this.uid = id.uid;
    this.hostIP = id.internalIP;
    this.ips = new PodIPPool(id.podCIDR);
    this.bootSeed = '';
  }

  allocatePodIP(podUid: string): string {
    return this.ips.allocate(podUid);
  }
  holdPodIP(podUid: string): void {
    this.ips.hold(podUid);
  }
  releasePodIP(podUid: string): void {
    this.ips.release(podUid);
  }
  adoptPodIP(podUid: string, ip: string): void {
    this.ips.adopt(podUid, ip);
  }

  private node(): KObject | undefined {
    return this.client.get('v1/nodes', '', this.nodeName);
  }

  private recorder(): EventRecorder {
    return (this.events ??= new EventRecorder(this.client, { component: 'kubelet', host: this.nodeName }));
  }

  /** Starts (or restarts) the kubelet: status and lease at once, then on the manager's schedule. */
  start(nowMs: number, opts: StartOptions = {}): void {
    this.running = true;
    const node = this.node();
    if (!node) return;
    if (!opts.quiet) this.recorder().event(node, 'Normal', 'Starting', 'Starting kubelet.');
    const adopted = opts.adopt && node.metadata.uid === this.uid
      ? adoptNodeStatus(node, { name: this.nodeName, internalIP: this.hostIP, bootSeed: this.bootSeed }, nowMs, statusReportMs)
      : undefined;
    if (adopted) {
      this.lastWrittenRv = node.metadata.resourceVersion;
      this.nextReportMs = Math.max(nowMs + 1, adopted.nextReportMs);
    } else if (opts.registered && node.metadata.uid === this.uid) {
      // Registered a moment ago with the status the kubelet reports: no second write.
      this.lastWrittenRv = node.metadata.resourceVersion;
      this.reported(nowMs);
      if (!opts.quiet) this.readyEvents(node, undefined);
    } else this.syncStatus(nowMs, true, !opts.quiet);
    const leaseAt = opts.adopt ? adoptLease(this.client.get('coordination.k8s.io/v1/leases', leaseNamespace, this.nodeName), this.nodeName, nowMs, leaseRenewMs) : undefined;
    this.leasePending = leaseAt === undefined && !!opts.leaseSoon;
    if (leaseAt !== undefined) this.nextLeaseMs = leaseAt;
    else if (opts.leaseSoon) this.nextLeaseMs = nowMs;
    else {
      this.renewLease(nowMs);
      this.spreadNextLease(nowMs);
    }
  }

  /** Spreads the fleet's renewals over the interval instead of renewing every lease at the same instant. */
  private spreadNextLease(nowMs: number): void {
    this.nextLeaseMs = nowMs + Math.floor(Math.random() * leaseRenewMs) + 1;
  }

  stop(): void {
    this.running = false;
  }

  /** Called by the manager's timer. */
  tick(nowMs: number): void {
    if (!this.running) return;
    if (nowMs >= this.nextLeaseMs) {
      this.renewLease(nowMs);
      if (this.leasePending) this.spreadNextLease(nowMs);
      else this.nextLeaseMs = nowMs + leaseRenewMs * (1 + Math.random() * 0.04);
      this.leasePending = false;
    }
    if (this.dirty || nowMs >= this.nextReportMs) this.syncStatus(nowMs, false, true);
  }

  /** When the agent has something to do next without being told (a lease renewal, a status report). */
  nextDueMs(): number {
    return Math.min(this.nextLeaseMs, this.nextReportMs);
  }

  /** A status was posted: the next unconditional report is due a report period later (4% jitter, as the lease). */
  private reported(nowMs: number): void {
    this.nextReportMs = nowMs + statusReportMs * (1 + Math.random() * 0.04);
  }

  /** Posts the node status when it differs from what the kubelet reports, or when a report is due. */
  syncStatus(nowMs: number, force: boolean, emitEvents: boolean): void {
    this.dirty = false;
    const node = this.node();
    if (!node || node.metadata.uid !== this.uid) return;
    const current = (node as Node).status;
    const now = new Date(nowMs);
    const due = force || nowMs >= this.nextReportMs;
    const oldReady = current?.conditions?.find((c) => c.type === 'Ready');
    const lastBeat = oldReady?.lastHeartbeatTime ? new Date(oldReady.lastHeartbeatTime) : now;
    // A report that is due is written whatever it holds: what would be kept is built only to compare with.
    const kept = due ? undefined : kubeletStatus({ name: this.nodeName, internalIP: this.hostIP, bootSeed: this.bootSeed, current, heartbeat: lastBeat, now });
    if (kept && JSON.stringify(kept) === JSON.stringify(current)) return;
    const status = kept ?? kubeletStatus({ name: this.nodeName, internalIP: this.hostIP, bootSeed: this.bootSeed, current, heartbeat: now, now });
    const def = this.client.resource('v1/nodes')!;
    // The next report is timed from this one's start, as the kubelet's status loop runs on its own period whatever
    // the write's fate (a failed one is tried again at the next report).
    this.reported(nowMs);
    const wrote = (written: KObject) => {
      this.lastWrittenRv = written.metadata.resourceVersion;
      if (emitEvents) this.readyEvents(node, current);
    };
    const failed = (err: unknown) => {
      this.log.debug({ err, node: this.nodeName }, 'node status update failed');
      this.nextReportMs = Math.min(this.nextReportMs, nowMs + statusRetryMs);
    };
    let written: KObject | Promise<KObject>;
    try {
      // Written at once unless an admission webhook is called (then the report follows its answer).
      written = this.client.updateNowOrWait(def, '', this.nodeName, (cur) => ({ ...cur, status }), { subresource: 'status', pure: true });
    } catch (err) {
      return failed(err);
    }
    if (written instanceof Promise) written.then(wrote, failed);
    else wrote(written);
  }

  /** The events a kubelet records when its node's conditions turn healthy. */
  private readyEvents(node: KObject, before: Node['status']): void {
    const ev = this.recorder();
    const was = (type: string, s: string) => before?.conditions?.some((c) => c.type === type && c.status === s) ?? false;
    const n = this.nodeName;
    if (!was('MemoryPressure', 'False')) ev.event(node, 'Normal', 'NodeHasSufficientMemory', `Node ${n} status is now: NodeHasSufficientMemory`);
    if (!was('DiskPressure', 'False')) ev.event(node, 'Normal', 'NodeHasNoDiskPressure', `Node ${n} status is now: NodeHasNoDiskPressure`);
    if (!was('PIDPressure', 'False')) ev.event(node, 'Normal', 'NodeHasSufficientPID', `Node ${n} status is now: NodeHasSufficientPID`);
    if (!was('Ready', 'True')) ev.event(node, 'Normal', 'NodeReady', `Node ${n} status is now: NodeReady`);
  }

  renewLease(nowMs: number): void {
    const def = this.client.resource('coordination.k8s.io/v1/leases')!;
    const renewTime = rfc3339Micro(new Date(nowMs));
    const spec = { holderIdentity: this.nodeName, leaseDurationSeconds, renewTime };
    try {
      if (this.client.get('coordination.k8s.io/v1/leases', leaseNamespace, this.nodeName)) {
        this.client.guaranteedUpdate(def, leaseNamespace, this.nodeName, (cur) => ({ ...cur, spec: { ...(cur.spec as object), ...spec } }), { pure: true })
          .catch((err: unknown) => this.leaseFailed(err));
        return;
      }
      const lease: Lease = {
        apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
        metadata: { name: this.nodeName, namespace: leaseNamespace, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.nodeName, uid: this.uid }] },
        spec,
      };
      // Built here for this write alone: given away, not copied.
      this.client.create(def, leaseNamespace, lease as KObject, { owned: true }).catch((err: unknown) => this.log.debug({ err, node: this.nodeName }, 'lease creation failed'));
    } catch (err) {
      this.leaseFailed(err);
    }
  }

  /** A refused renewal waits for the next one; anything else is a failure of the tick. */
  private leaseFailed(err: unknown): void {
    if (err instanceof ApiError) this.log.debug({ err, node: this.nodeName }, 'lease renewal failed');
    else this.log.warn({ err, node: this.nodeName }, 'kubelet tick failed');
  }
}
