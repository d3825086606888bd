// The ReplicaSet controller (upstream pkg/controller/replicaset): keeps spec.replicas active pods, adopting matching
// orphans and releasing pods whose labels no longer match, creating in slow-start batches (1, 2, 4, ...; a failed
// batch stops the round), deleting the pods upstream's ranking puts first, at most 500 either way per sync.
import type { ReplicaSet } from '../../generated/k8s/apps/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import { EventRecorder } from '../../client/event-recorder.js';
import type { KObject } from '../../machinery/types.js';
import { labelSelectorMatches } from '../../machinery/labels.js';
import type { Client } from '../../client/client.js';
import { rfc3339 } from '../../util/clock.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { defineController, indexes, indexNames, type ControllerContext } from '../runtime/index.js';
import { claim } from '../workload/claim.js';
import { controllerRef } from '../workload/owner.js';
import { ownerKeysFor } from '../workload/dependents.js';
import { drive, type Steps } from '../../util/steps.js';
import { PodControl, errorMessage } from '../workload/pod-control.js';
import { isPodActive, isPodTerminating } from '../workload/pod-state.js';
import type { Informer } from '../../client/informer.js';
import { podsToDelete } from './pod-ranking.js';
import { calculateReplicaSetStatus, nextAvailableIn, sameStatus, type ManageError } from './replicaset-status.js';
import { splitKey } from '../../machinery/object-key.js';

const byOwner = indexNames.byOwner;

/** Upstream's burstReplicas: the most pods one sync creates or deletes. */
export const burstReplicas = 500;

export const replicaSetController = defineController({
  name: 'replicaset',
  for: { resource: 'apps/v1/replicasets', when: (c) => c.type !== 'DELETED' },
  watches: [{ resource: 'v1/pods', map: (c, { client }) => ownerKeysFor(client, c, 'ReplicaSet', 'apps/v1/replicasets') }],
  setup: (ctx) => new ReplicaSetReconciler(ctx),
});

class ReplicaSetReconciler {
  private readonly client: Client;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly podControl: PodControl;
  /** Pods by controller uid (`orphan/<namespace>` for pods no controller owns). */
  private readonly pods: Informer<Pod>;
  /** ReplicaSets by controller uid, for the siblings of a Deployment's ReplicaSet. */
  private readonly replicaSets: Informer;

  constructor({ client, clock, log, informers }: ControllerContext) {
    this.client = client;
    this.clock = clock;
    this.log = log;
    this.podControl = new PodControl(client, new EventRecorder(client, { component: 'replicaset-controller' }));
    this.pods = informers.informer<Pod>('v1/pods', { [byOwner]: indexes.byOwner });
    this.replicaSets = informers.informer('apps/v1/replicasets', { [byOwner]: indexes.byOwner });
  }

  reconcile(key: string): Promise<number | void> | number | void {
    return drive(this.sync(key));
  }

  /** The current pods the ReplicaSet with `uid` controls. */
  private owned(uid: string | undefined): Pod[] {
    return uid ? this.pods.byIndex(byOwner, uid) : [];
  }

  /** The active pods the ReplicaSet controls after adoption (of matching orphans) and release (of pods no longer matching). */
  private *claimPods(rs: ReplicaSet, owned: Pod[]): Steps<Pod[]> {
    const ns = rs.metadata?.namespace ?? '';
    const orphans = this.pods.byIndex(byOwner, `orphan/${ns}`).filter((p) => labelSelectorMatches(rs.spec?.selector, p.metadata?.labels ?? {}));
    const candidates = [...owned, ...orphans].filter(isPodActive);
    const claimed = yield* claim(this.client, this.podControl.podsDef, rs, rs.spec?.selector, candidates);
    for (const p of claimed) this.pods.track(p);
    return claimed;
  }

  /** Steps: waits only while an admission webhook is called for a pod it creates (see util/steps.ts). */
  private *sync(key: string): Steps<number | void> {
    const { namespace, name } = splitKey(key);
    const rs = this.client.get<ReplicaSet>('apps/v1/replicasets', namespace, name);
    if (!rs) return;
    const uid = rs.metadata?.uid;
    let owned = this.owned(uid);
    let manageErr: ManageError | undefined;
    if (!rs.metadata?.deletionTimestamp) {
      const before = this.client.revision();
      manageErr = yield* this.manageReplicas(rs, yield* this.claimPods(rs, owned));
      // Reads are read-your-writes: after adoptions, creations or deletions, count what exists now.
      if (this.client.revision() !== before) owned = this.owned(uid);
    }
    const pods = owned.filter(isPodActive);
    const terminating = owned.filter((p) => isPodTerminating(p) && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed'
      && labelSelectorMatches(rs.spec?.selector, p.metadata?.labels ?? {})).length;
    const nowMs = this.clock.nowMs();
    const status = calculateReplicaSetStatus(rs, pods, terminating, manageErr, rfc3339(this.clock.now()), nowMs);
    if (!sameStatus(rs.status, status)) {
      yield this.client.guaranteedUpdate('apps/v1/replicasets', namespace, name, (cur) => ({ ...cur, status }), { subresource: 'status' });
    }
    if (manageErr) throw new Error(manageErr.message);
    return nextAvailableIn(rs, pods, nowMs);
  }

  /** Creates or deletes pods toward spec.replicas; returns the first failure. */
  private *manageReplicas(rs: ReplicaSet, pods: Pod[]): Steps<ManageError | undefined> {
    const want = rs.spec?.replicas ?? 1;
    const diff = pods.length - want;
    const owner = rs;
    if (diff < 0) {
      let remaining = Math.min(-diff, burstReplicas);
      let batch = 1;
      while (remaining > 0) {
        const size = Math.min(remaining, batch);
        for (let i = 0; i < size; i++) {
          try {
            const created = yield* this.podControl.create(owner, rs.spec?.template);
            this.pods.track(created);
          } catch (err) {
            this.log.debug({ err, rs: rs.metadata?.name }, 'pod creation failed');
            return { reason: 'FailedCreate', message: errorMessage(err) };
          }
        }
        remaining -= size;
        batch *= 2;
      }
      return undefined;
    }
    if (diff > 0) {
      const victims = podsToDelete(pods, this.relatedPods(rs), Math.min(diff, burstReplicas), this.clock.nowMs());
      let error: ManageError | undefined;
      for (const p of victims) {
        try {
          yield* this.podControl.delete(owner, p);
        } catch (err) {
          error ??= { reason: 'FailedDelete', message: errorMessage(err) };
        }
      }
      return error;
    }
    return undefined;
  }

  /**
   * Pods of the ReplicaSets sharing this one's controller (a Deployment's revisions, this one included); none for a
   * ReplicaSet without a controller, as upstream.
   */
  private relatedPods(rs: ReplicaSet): Pod[] {
    const owner = controllerRef(rs);
    if (!owner) return [];
    const ns = rs.metadata?.namespace ?? '';
    return this.replicaSets.byIndex(byOwner, owner.uid)
      .filter((other) => other.metadata.namespace === ns)
      .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0))
      .flatMap((other) => this.owned(other.metadata.uid).filter(isPodActive));
  }
}
