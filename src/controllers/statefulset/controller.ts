// The StatefulSet controller: watches sets, their pods and claims, and runs one control pass per set key
// (upstream pkg/controller/statefulset/stateful_set.go): claim pods, resolve revisions, sync, write status,
// trim the revision history.
import { drive, type Steps } from '../../util/steps.js';
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { EventRecorder } from '../../client/event-recorder.js';
import type { KObject } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { WorkQueue } from '../../util/work-queue.js';
import { claim } from '../workload/claim.js';
import { History } from '../workload/history.js';
import { controllerRef } from '../workload/owner.js';
import { ownerKeysFor } from '../workload/dependents.js';
import { byOrdinal, isMemberOf, parentAndOrdinal, podRevision } from './identity.js';
import { StatefulPodOps } from './pod-ops.js';
import { resolveRevisions } from './revisions.js';
import { writeStatus } from './status.js';
import { syncStatefulSet } from './sync.js';
import { splitKey } from '../../machinery/object-key.js';

export class StatefulSetController {
  private readonly queue: WorkQueue;
  private readonly stops: Array<() => void> = [];
  private readonly history: History;
  private readonly ops: StatefulPodOps;

  constructor(private readonly client: Client, private readonly clock: Clock, private readonly log: Logger) {
    this.queue = new WorkQueue('statefulset', (key) => drive(this.reconcile(key)), clock, log);
    this.history = new History(client);
    this.ops = new StatefulPodOps(client, new EventRecorder(client, { component: 'statefulset-controller' }));
    const add = (ns: string | undefined, name: string | undefined) => name && this.queue.add(`${ns ?? ''}/${name}`);
    this.stops.push(client.watch('apps/v1/statefulsets', (c) => c.type !== 'DELETED' && add(c.object.metadata.namespace, c.object.metadata.name)));
    this.stops.push(client.watch('v1/pods', (c) => ownerKeysFor(client, c, 'StatefulSet', 'apps/v1/statefulsets').forEach((k) => this.queue.add(k))));
    // A claim that went away may have to be recreated for a pending pod; the set named in the claim looks again.
    this.stops.push(client.watch('v1/persistentvolumeclaims', (c) => {
      if (c.type !== 'DELETED') return;
      const { parent } = parentAndOrdinal(c.object.metadata.name);
      for (const s of client.list('apps/v1/statefulsets', c.object.metadata.namespace)) {
        if (parent.endsWith(`-${s.metadata.name}`)) add(s.metadata.namespace, s.metadata.name);
      }
    }));
    for (const s of client.list('apps/v1/statefulsets')) add(s.metadata.namespace, s.metadata.name);
  }

  /** Steps: waits only while an admission webhook is called for a pod it creates (see util/steps.ts). */
  private *reconcile(key: string): Steps<number | void> {
    const { namespace, name } = splitKey(key);
    const stored = this.client.get('apps/v1/statefulsets', namespace, name);
    if (!stored) return;
    const set = { apiVersion: 'apps/v1', kind: 'StatefulSet', ...structuredClone(stored) } as unknown as StatefulSet;
    const podsDef = this.client.resource('v1/pods')!;
    const candidates = this.client.list('v1/pods', namespace);
    const owned = claim(this.client, podsDef, set as unknown as KObject, set.spec?.selector, candidates, { canAdopt: (p) => isMemberOf(set, p as unknown as Pod) });
    const pods = (owned as unknown as Pod[]).filter((p) => isMemberOf(set, p)).sort(byOrdinal);
    const revs = resolveRevisions(this.history, set);
    if (set.status?.collisionCount !== revs.collisionCount) set.status = { ...set.status, collisionCount: revs.collisionCount } as StatefulSet['status'];
    let result;
    try {
      result = yield* syncStatefulSet(set, pods, revs, this.ops, this.clock.nowMs());
    } finally {
      this.truncateHistory(set, revs.revisions, [revs.current.metadata?.name, revs.update.metadata?.name]);
    }
    const fresh = this.client.get('apps/v1/statefulsets', namespace, name) as unknown as StatefulSet | undefined;
    if (fresh && fresh.metadata?.uid === set.metadata?.uid) writeStatus(this.client, { ...set, status: fresh.status }, result.status);
    this.log.debug({ set: key, replicas: result.status.replicas, ready: result.status.readyReplicas, current: result.status.currentRevision, update: result.status.updateRevision }, 'synced statefulset');
    return result.requeueMs;
  }

  /** Keeps revisionHistoryLimit revisions besides the live ones (current, update, and those pods still run). */
  private truncateHistory(set: StatefulSet, revisions: ReturnType<typeof resolveRevisions>['revisions'], live: Array<string | undefined>): void {
    const keep = new Set(live.filter((n): n is string => !!n));
    const pods = (this.client.list('v1/pods', set.metadata?.namespace) as unknown as Pod[]).filter((p) => controllerRef(p as unknown as KObject)?.uid === set.metadata?.uid);
    for (const p of pods) keep.add(podRevision(p));
    const limit = set.spec?.revisionHistoryLimit ?? 10;
    if (limit >= 0) this.history.truncate(revisions, keep, limit);
  }

  stop(): void {
    this.stops.forEach((s) => s());
    this.queue.stop();
  }
}
