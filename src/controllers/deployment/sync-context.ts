// What one sync of a Deployment carries: the client, clock and event recorder, and the Deployment as last written
// (every write through here replaces `d`, so later steps see the controller's own changes).
import type { Deployment, DeploymentStatus, ReplicaSet } from '../../generated/k8s/apps/v1.js';
import type { EventRecorder } from '../../client/event-recorder.js';
import type { KObject } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import type { ResourceDef } from '../../client/types.js';
import { rfc3339 } from '../../util/clock.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { revisionAnnotation } from './deployment-util.js';

export interface Services {
  client: Client;
  clock: Clock;
  log: Logger;
  events: EventRecorder;
  rsDef: ResourceDef;
  deployDef: ResourceDef;
  /** Tells the ReplicaSet index about one this controller has just created (before the change feed does). */
  track?: (rs: KObject) => void;
}

export class SyncContext {
  /** Set by a step that wants the deployment looked at again after this many ms. */
  requeueAfterMs?: number;

  constructor(readonly svc: Services, public d: Deployment) {}

  get ns(): string {
    return this.d.metadata?.namespace ?? '';
  }

  now(): string {
    return rfc3339(this.svc.clock.now());
  }

  nowMs(): number {
    return this.svc.clock.nowMs();
  }

  event(type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.svc.events.event(this.d, type, reason, message);
  }

  requeue(ms: number): void {
    this.requeueAfterMs = this.requeueAfterMs === undefined ? ms : Math.min(this.requeueAfterMs, ms);
  }

  /** Writes the deployment's status (status subresource). */
  async writeStatus(status: DeploymentStatus): Promise<void> {
    const name = this.d.metadata?.name ?? '';
    this.d = (await this.svc.client.guaranteedUpdate(this.svc.deployDef, this.ns, name, (cur) => ({ ...cur, status }), { subresource: 'status' }));
  }

  /** Puts the revision annotation on the deployment (upstream does this with its status update); true when it changed. */
  async setRevision(revision: string): Promise<boolean> {
    if (this.d.metadata?.annotations?.[revisionAnnotation] === revision) return false;
    const name = this.d.metadata?.name ?? '';
    const status = this.d.status;
    this.d = (await this.svc.client.guaranteedUpdate(this.svc.deployDef, this.ns, name, (cur) => ({
      ...cur, metadata: { ...cur.metadata, annotations: { ...(cur.metadata.annotations ?? {}), [revisionAnnotation]: revision } },
    })));
    // Keep in-flight status changes of this sync (the main resource write leaves the stored status alone).
    this.d = { ...this.d, status };
    return true;
  }

  /** Updates a ReplicaSet with `mutate` applied to its current state; returns the result. */
  updateReplicaSet(rs: ReplicaSet, mutate: (cur: ReplicaSet) => ReplicaSet): Promise<ReplicaSet> {
    return this.svc.client.guaranteedUpdate<ReplicaSet>(this.svc.rsDef, this.ns, rs.metadata?.name ?? '', (cur) => mutate(cur));
  }

  /** The current stored copies of ReplicaSets, leaving out those gone. */
  freshList(rss: ReplicaSet[]): ReplicaSet[] {
    return rss.map((rs) => this.svc.client.get('apps/v1/replicasets', this.ns, rs.metadata?.name ?? ''))
      .filter((rs): rs is ReplicaSet => !!rs);
  }

  /** The current stored copy of a ReplicaSet (read-your-writes), or the given one when it is gone. */
  fresh(rs: ReplicaSet): ReplicaSet {
    return (this.svc.client.get('apps/v1/replicasets', this.ns, rs.metadata?.name ?? '')) ?? rs;
  }
}
