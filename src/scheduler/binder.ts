// The scheduler's writes: binding, PodScheduled conditions, nominated node, preemption of victims, events.
import type { Pod, PodCondition } from '../generated/k8s/core/v1.js';
import { EventRecorder } from '../client/event-recorder.js';
import type { KObject } from '../machinery/types.js';
import type { Client } from '../client/client.js';
import { nullTime, rfc3339 } from '../util/clock.js';
import type { PodInfo } from './pod-info.js';

export const schedulerName = 'default-scheduler';

type Cond = Partial<PodCondition> & { type: string; status: string };

function sameCondition(pod: Pod, want: Cond): boolean {
  const c = pod.status?.conditions?.find((x) => x.type === want.type);
  return !!c && c.status === want.status && (c.reason ?? '') === (want.reason ?? '') && (c.message ?? '') === (want.message ?? '');
}

export class Binder {
  readonly recorder: EventRecorder;
  constructor(private readonly client: Client) {
    this.recorder = new EventRecorder(client, { component: schedulerName });
  }

  private get def() {
    return this.client.resource('v1/pods')!;
  }

  /**
   * Binds through the pods/binding code path: the bound pod, or a promise of it when the store waits (etcd). Throws
   * (or rejects with) ApiErrors (404, 409).
   */
  bind(pod: Pod, node: string): Pod | Promise<Pod> {
    const ns = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    const done = (bound: Pod): Pod => {
      this.recorder.event(pod, 'Normal', 'Scheduled', `Successfully assigned ${ns}/${name} to ${node}`);
      return this.client.get('v1/pods', ns, name) ?? bound;
    };
    const bound = this.client.services.bindPod(ns, name, node) as Pod | Promise<Pod>;
    return bound instanceof Promise ? bound.then(done) : done(bound);
  }

  /**
   * Sets a condition (and optionally status.nominatedNodeName: '' clears it) through the status subresource,
   * writing only when something changes.
   */
  setCondition(pod: Pod, cond: Cond, nominate?: string): void {
    const cur = this.client.get('v1/pods', pod.metadata?.namespace ?? '', pod.metadata?.name ?? '');
    if (!cur || cur.metadata?.uid !== pod.metadata?.uid) return;
    const nominationSame = nominate === undefined || (cur.status?.nominatedNodeName ?? '') === nominate;
    if (sameCondition(cur, cond) && nominationSame) return;
    this.client.guaranteedUpdate(this.def, cur.metadata?.namespace ?? '', cur.metadata?.name ?? '', (obj) => {
      const status = (obj.status ?? {}) as NonNullable<Pod['status']> & { conditions?: PodCondition[]; nominatedNodeName?: string };
      const conds = (status.conditions ??= []);
      const now = rfc3339(this.client.clock.now());
      const i = conds.findIndex((c) => c.type === cond.type);
      const old = i >= 0 ? conds[i] : undefined;
      const next: PodCondition = { ...cond, lastProbeTime: nullTime, lastTransitionTime: old && old.status === cond.status ? old.lastTransitionTime : now };
      if (i >= 0) conds[i] = next;
      else conds.push(next);
      if (nominate !== undefined) {
        if (nominate) status.nominatedNodeName = nominate;
        else delete status.nominatedNodeName;
      }
      obj.status = status;
      return obj;
    }, { subresource: 'status' }).catch((err: unknown) => this.failed(err, cur, 'setting a pod condition'));
  }

  /** A status write or a victim's deletion refused (the pod gone, a webhook's denial): as upstream, logged; the next cycle tries again. */
  private failed(err: unknown, pod: KObject, what: string): void {
    this.client.log.debug({ err, pod: `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}` }, `${what} failed`);
  }

  unschedulable(pod: Pod, message: string, nominate?: string): void {
    this.setCondition(pod, { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }, nominate);
  }

  clearNomination(pod: Pod): void {
    const cur = this.client.get('v1/pods', pod.metadata?.namespace ?? '', pod.metadata?.name ?? '');
    if (!cur || !(cur.status as Pod['status'])?.nominatedNodeName) return;
    this.client.guaranteedUpdate(this.def, cur.metadata.namespace ?? '', cur.metadata.name ?? '', (obj) => {
      delete (obj.status as { nominatedNodeName?: string }).nominatedNodeName;
      return obj;
    }, { subresource: 'status' }).catch((err: unknown) => this.failed(err, cur, 'clearing a nomination'));
  }

  /** Marks a victim DisruptionTarget, deletes it gracefully and records `Preempted` on it. */
  preemptVictim(victim: PodInfo, preemptor: Pod, node: string): void {
    const cur = this.client.get('v1/pods', victim.ns, victim.name);
    if (!cur || cur.metadata?.uid !== victim.uid) return;
    this.setCondition(cur, { type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler', message: `${preemptor.spec?.schedulerName ?? schedulerName}: preempting to accommodate a higher priority pod` });
    if (!cur.metadata?.deletionTimestamp) this.client.delete(this.def, victim.ns, victim.name, { preconditions: { uid: victim.uid } }).catch((err: unknown) => this.failed(err, cur, 'deleting a victim'));
    this.recorder.event(cur, 'Normal', 'Preempted', `Preempted by pod ${preemptor.metadata?.uid} on node ${node}`);
  }
}
