// The StatefulSet controller: watches sets, their pods and claims, and runs one control pass per set key
// (upstream pkg/controller/statefulset/stateful_set.go): claim pods, resolve revisions, sync, write status,
// trim the revision history.
import { drive, type Steps } from '../../util/steps.js';
import type { StatefulSet } from '../../generated/k8s/apps/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import { EventRecorder } from '../../client/event-recorder.js';
import type { KObject } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { defineController, type ControllerContext } from '../runtime/index.js';
import { claim } from '../workload/claim.js';
import { History } from '../workload/history.js';
import { controllerRef } from '../workload/owner.js';
import { ownerKeysFor } from '../workload/dependents.js';
import { byOrdinal, isMemberOf, parentAndOrdinal, podRevision } from './identity.js';
import { StatefulPodOps } from './pod-ops.js';
import { resolveRevisions, type SetRevisions } from './revisions.js';
import { writeStatus } from './status.js';
import { syncStatefulSet } from './sync.js';
import { keyOf, splitKey } from '../../machinery/object-key.js';

export const statefulSetController = defineController({
  name: 'statefulset',
  for: { resource: 'apps/v1/statefulsets', when: (c) => c.type !== 'DELETED' },
  watches: [
    { resource: 'v1/pods', map: (c, { client }) => ownerKeysFor(client, c, 'StatefulSet', 'apps/v1/statefulsets') },
    // A claim that went away may have to be recreated for a pending pod; the set named in the claim looks again.
    {
      resource: 'v1/persistentvolumeclaims',
      when: (c) => c.type === 'DELETED',
      map: (c, { client }) => {
        const { parent } = parentAndOrdinal(c.object.metadata.name);
        return client.list('apps/v1/statefulsets', c.object.metadata.namespace).filter((s) => parent.endsWith(`-${s.metadata.name}`)).map(keyOf);
      },
    },
  ],
  setup: (ctx) => new StatefulSetReconciler(ctx),
});

class StatefulSetReconciler {
  private readonly client: Client;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly history: History;
  private readonly ops: StatefulPodOps;

  constructor({ client, clock, log }: ControllerContext) {
    this.client = client;
    this.clock = clock;
    this.log = log;
    this.history = new History(client);
    this.ops = new StatefulPodOps(client, new EventRecorder(client, { component: 'statefulset-controller' }));
  }

  reconcile(key: string): Promise<number | void> | number | void {
    return drive(this.sync(key));
  }

  /** Steps: waits only while an admission webhook is called for a pod it creates (see util/steps.ts). */
  private *sync(key: string): Steps<number | void> {
    const { namespace, name } = splitKey(key);
    const stored = this.client.get('apps/v1/statefulsets', namespace, name);
    if (!stored) return;
    const set = { apiVersion: 'apps/v1', kind: 'StatefulSet', ...structuredClone(stored) };
    const podsDef = this.client.resource('v1/pods')!;
    const candidates = this.client.list('v1/pods', namespace);
    const owned = yield* claim(this.client, podsDef, set, set.spec?.selector, candidates, { canAdopt: (p) => isMemberOf(set, p) });
    const pods = (owned).filter((p) => isMemberOf(set, p)).sort(byOrdinal);
    const revs = yield* resolveRevisions(this.history, set);
    if (set.status?.collisionCount !== revs.collisionCount) set.status = { ...set.status, collisionCount: revs.collisionCount } as StatefulSet['status'];
    let result;
    try {
      result = yield* syncStatefulSet(set, pods, revs, this.ops, this.clock.nowMs());
    } finally {
      yield* this.truncateHistory(set, revs.revisions, [revs.current.metadata?.name, revs.update.metadata?.name]);
    }
    const fresh = this.client.get('apps/v1/statefulsets', namespace, name);
    if (fresh && fresh.metadata?.uid === set.metadata?.uid) yield* writeStatus(this.client, { ...set, status: fresh.status }, result.status);
    this.log.debug({ set: key, replicas: result.status.replicas, ready: result.status.readyReplicas, current: result.status.currentRevision, update: result.status.updateRevision }, 'synced statefulset');
    return result.requeueMs;
  }

  /** Keeps revisionHistoryLimit revisions besides the live ones (current, update, and those pods still run). */
  private *truncateHistory(set: StatefulSet, revisions: SetRevisions['revisions'], live: Array<string | undefined>): Steps<void> {
    const keep = new Set(live.filter((n): n is string => !!n));
    const pods = (this.client.list('v1/pods', set.metadata?.namespace)).filter((p) => controllerRef(p)?.uid === set.metadata?.uid);
    for (const p of pods) keep.add(podRevision(p));
    const limit = set.spec?.revisionHistoryLimit ?? 10;
    if (limit >= 0) yield* this.history.truncate(revisions, keep, limit);
  }
}
