// The ReplicaSet controller (upstream pkg/controller/replicaset): keeps spec.replicas active pods, adopting matching
// orphans and releasing pods whose labels no longer match, creating in slow-start batches (1, 2, 4, ...; a failed
// batch stops the round), deleting the pods upstream's ranking puts first, at most 500 either way per sync.
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { EventRecorder } from '../../client/event-recorder.js';
import type { KObject } from '../../machinery/types.js';
import { labelSelectorMatches } from '../../machinery/labels.js';
import type { Registry } from '../../registry/registry.js';
import type { ResourceDef } from '../../registry/resource.js';
import type { Change } from '../../storage/watch-hub.js';
import { rfc3339 } from '../../util/clock.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { WorkQueue } from '../runtime/work-queue.js';
import { claim } from '../workload/claim.js';
import { controllerRef, splitKey } from '../workload/owner.js';
import { ownerKeysFor } from '../workload/dependents.js';
import { PodControl, errorMessage } from '../workload/pod-control.js';
import { isPodActive, isPodTerminating } from '../workload/pod-state.js';
import { PodIndex } from './pod-index.js';
import { podsToDelete } from './pod-ranking.js';
import { calculateReplicaSetStatus, nextAvailableIn, sameStatus, type ManageError } from './replicaset-status.js';

/** Upstream's burstReplicas: the most pods one sync creates or deletes. */
export const burstReplicas = 500;

export class ReplicaSetController {
  private readonly queue: WorkQueue;
  private readonly stops: Array<() => void> = [];
  private readonly rsDef: ResourceDef;
  private readonly podControl: PodControl;
  private readonly index: PodIndex;

  constructor(private readonly reg: Registry, private readonly clock: Clock, private readonly log: Logger) {
    this.rsDef = reg.find('apps', 'v1', 'replicasets')!;
    this.podControl = new PodControl(reg, new EventRecorder(reg, { component: 'replicaset-controller' }));
    this.index = new PodIndex(reg.store);
    this.queue = new WorkQueue('replicaset', (key) => this.sync(key), clock, log);
    this.stops.push(reg.store.hub.subscribe('apps/replicasets', (c) => {
      if (c.type !== 'DELETED') this.queue.add(`${c.object.metadata.namespace}/${c.object.metadata.name}`);
    }));
    this.stops.push(reg.store.hub.subscribe('core/pods', (c) => this.onPod(c)));
    for (const rs of reg.store.list('apps/replicasets')) this.queue.add(`${rs.metadata.namespace}/${rs.metadata.name}`);
  }

  private onPod(c: Change): void {
    for (const k of ownerKeysFor(this.reg, c, 'ReplicaSet', 'apps/replicasets')) this.queue.add(k);
  }

  /** The active pods the ReplicaSet controls after adoption (of matching orphans) and release (of pods no longer matching). */
  private claimPods(rs: ReplicaSet, owned: Pod[]): Pod[] {
    const ns = rs.metadata?.namespace ?? '';
    const orphans = this.index.orphansIn(ns).filter((p) => labelSelectorMatches(rs.spec?.selector, p.metadata?.labels ?? {}));
    const candidates = [...owned, ...orphans].filter(isPodActive);
    const claimed = claim(this.reg, this.podControl.podsDef, rs as unknown as KObject, rs.spec?.selector, candidates as unknown as KObject[]);
    for (const p of claimed) this.index.add(rs.metadata?.uid ?? '', p);
    return claimed as unknown as Pod[];
  }

  private sync(key: string): number | void {
    const { namespace, name } = splitKey(key);
    const rs = this.reg.store.get('apps/replicasets', namespace, name) as unknown as ReplicaSet | undefined;
    if (!rs) return;
    const uid = rs.metadata?.uid;
    let owned = this.index.owned(uid, namespace);
    let manageErr: ManageError | undefined;
    if (!rs.metadata?.deletionTimestamp) {
      const before = this.reg.store.revision();
      manageErr = this.manageReplicas(rs, this.claimPods(rs, owned));
      // Reads are read-your-writes: after adoptions, creations or deletions, count what exists now.
      if (this.reg.store.revision() !== before) owned = this.index.owned(uid, namespace);
    }
    const pods = owned.filter(isPodActive);
    const terminating = owned.filter((p) => isPodTerminating(p) && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed'
      && labelSelectorMatches(rs.spec?.selector, p.metadata?.labels ?? {})).length;
    const nowMs = this.clock.nowMs();
    const status = calculateReplicaSetStatus(rs, pods, terminating, manageErr, rfc3339(this.clock.now()), nowMs);
    if (!sameStatus(rs.status, status)) {
      this.reg.guaranteedUpdate(this.rsDef, namespace, name, (cur) => ({ ...cur, status }), { subresource: 'status' });
    }
    if (manageErr) throw new Error(manageErr.message);
    return nextAvailableIn(rs, pods, nowMs);
  }

  /** Creates or deletes pods toward spec.replicas; returns the first failure. */
  private manageReplicas(rs: ReplicaSet, pods: Pod[]): ManageError | undefined {
    const want = rs.spec?.replicas ?? 1;
    const diff = pods.length - want;
    const owner = rs as unknown as KObject;
    if (diff < 0) {
      let remaining = Math.min(-diff, burstReplicas);
      let batch = 1;
      while (remaining > 0) {
        const size = Math.min(remaining, batch);
        for (let i = 0; i < size; i++) {
          try {
            const created = this.podControl.create(owner, rs.spec?.template);
            this.index.add(rs.metadata?.uid ?? '', created as unknown as KObject);
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
          this.podControl.delete(owner, p);
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
    const owner = controllerRef(rs as unknown as KObject);
    if (!owner) return [];
    const ns = rs.metadata?.namespace ?? '';
    return this.reg.store.list('apps/replicasets', ns)
      .filter((other) => controllerRef(other)?.uid === owner.uid)
      .flatMap((other) => this.index.owned(other.metadata.uid, ns).filter(isPodActive));
  }

  stop(): void {
    this.index.stop();
    this.stops.forEach((s) => s());
    this.queue.stop();
  }
}
