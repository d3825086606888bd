// Creating, fixing and deleting StatefulSet pods, with the events upstream's StatefulPodControl records
// ("create Pod web-0 in StatefulSet web successful", reason SuccessfulCreate, and so on).
import type { Steps } from '../../util/steps.js';
import type { StatefulSet } from '../../generated/k8s/apps/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { EventRecorder } from '../../client/event-recorder.js';
import type { KObject } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import type { ResourceDef } from '../../client/types.js';
import { errorMessage, statusCode } from '../workload/pod-control.js';
import { ClaimControl } from './claims.js';
import { identityMatches, storageMatches, updateIdentity, updateStorage } from './identity.js';

type Verb = 'create' | 'update' | 'delete';
const title = (v: Verb) => v[0].toUpperCase() + v.slice(1);

export class StatefulPodOps {
  readonly claims: ClaimControl;
  private readonly podsDef: ResourceDef;
  constructor(private readonly client: Client, private readonly events: EventRecorder) {
    this.claims = new ClaimControl(client, events);
    this.podsDef = client.resource('v1/pods')!;
  }

  private record(verb: Verb, set: StatefulSet, pod: Pod, err?: unknown): void {
    const owner = set;
    if (err === undefined) {
      this.events.event(owner, 'Normal', `Successful${title(verb)}`, `${verb} Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name} successful`);
    } else {
      this.events.event(owner, 'Warning', `Failed${title(verb)}`, `${verb} Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name} failed error: ${errorMessage(err)}`);
    }
  }

  /** Creates the pod's claims, then the pod, then sets the claims' owners for the retention policy. Steps: see util/steps.ts. */
  *create(set: StatefulSet, pod: Pod): Steps<void> {
    try {
      yield* this.claims.createMissing(set, pod);
    } catch (err) {
      this.record('create', set, pod, err);
      throw err;
    }
    let created: Pod;
    try {
      created = (yield this.client.create(this.podsDef, set.metadata?.namespace ?? '', pod)) as Pod;
    } catch (err) {
      if (statusCode(err) === 409) throw err;
      this.record('create', set, pod, err);
      throw err;
    }
    try {
      yield* this.claims.applyPolicy(set, created);
    } catch (err) {
      this.record('update', set, created, err);
      throw err;
    }
    this.record('create', set, created);
  }

  /** Creates claims a pending pod lost, and fixes their owners. */
  *createMissingClaims(set: StatefulSet, pod: Pod): Steps<void> {
    yield* this.claims.createMissing(set, pod);
    try {
      yield* this.claims.applyPolicy(set, pod);
    } catch (err) {
      this.record('update', set, pod, err);
      throw err;
    }
  }

  /** Restores the pod's identity labels, claim volumes and claim owners when they drifted from the set. */
  *update(set: StatefulSet, pod: Pod): Steps<void> {
    const identity = identityMatches(set, pod);
    const storage = storageMatches(set, pod);
    try {
      if (!storage) yield* this.claims.createMissing(set, pod);
      if (!this.claims.matchesPolicy(set, pod)) yield* this.claims.applyPolicy(set, pod);
    } catch (err) {
      this.record('update', set, pod, err);
      throw err;
    }
    if (identity && storage) return;
    try {
      yield this.client.guaranteedUpdate(this.podsDef, set.metadata?.namespace ?? '', pod.metadata?.name ?? '', (cur) => {
        const p = structuredClone(cur);
        if (!identityMatches(set, p)) updateIdentity(set, p);
        if (!storageMatches(set, p)) updateStorage(set, p);
        return p;
      });
      this.record('update', set, pod);
    } catch (err) {
      this.record('update', set, pod, err);
      throw err;
    }
  }

  /** Deletes the pod (its claims stay, unless the retention policy made the pod their owner). */
  *delete(set: StatefulSet, pod: Pod): Steps<void> {
    try {
      yield this.client.delete(this.podsDef, set.metadata?.namespace ?? '', pod.metadata?.name ?? '', { preconditions: { uid: pod.metadata?.uid } });
      this.record('delete', set, pod);
    } catch (err) {
      if (statusCode(err) === 404) return;
      this.record('delete', set, pod, err);
      throw err;
    }
  }
}
