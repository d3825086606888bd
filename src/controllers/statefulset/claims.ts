// PersistentVolumeClaims of StatefulSet pods: created from volumeClaimTemplates before the pod, and owned according
// to persistentVolumeClaimRetentionPolicy (upstream isClaimOwnerUpToDate / updateClaimOwnerRefForSetAndPod):
//   Retain/Retain: no reference from the set or the pod;  whenDeleted=Delete: the set controls the claim;
//   whenScaled=Delete: the pod controls the claim once the pod is scaled away (so the claim goes with the pod).
import type { StatefulSet } from '../../generated/k8s/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from '../../generated/k8s/core/v1.js';
import type { EventRecorder } from '../../client/event-recorder.js';
import type { KObject, OwnerReference } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import type { ResourceDef } from '../../client/types.js';
import { errorMessage, statusCode } from '../workload/pod-control.js';
import { claimsFor, inOrdinalRange, ordinalOf } from './identity.js';
import type { Steps } from '../../util/steps.js';

type Policy = 'Retain' | 'Delete';

function policyOf(set: StatefulSet): { whenDeleted: Policy; whenScaled: Policy } {
  const p = set.spec?.persistentVolumeClaimRetentionPolicy;
  return { whenDeleted: p?.whenDeleted === 'Delete' ? 'Delete' : 'Retain', whenScaled: p?.whenScaled === 'Delete' ? 'Delete' : 'Retain' };
}

const refersTo = (ref: OwnerReference, kind: string, name: string | undefined) => ref.kind === kind && ref.name === name
  && (kind === 'Pod' ? ref.apiVersion === 'v1' : ref.apiVersion === 'apps/v1');

/** The owner references the policy wants, or undefined when the claim must be left alone. */
function wantedRefs(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): OwnerReference[] | undefined {
  const refs = claim.metadata?.ownerReferences ?? [];
  const mineSet = (r: OwnerReference) => refersTo(r, 'StatefulSet', set.metadata?.name);
  const minePod = (r: OwnerReference) => refersTo(r, 'Pod', pod.metadata?.name);
  // A reference to an earlier set or pod of the same name: leave the claim to the garbage collector.
  if (refs.some((r) => (mineSet(r) && r.uid !== set.metadata?.uid) || (minePod(r) && r.uid !== pod.metadata?.uid))) return undefined;
  const policy = policyOf(set);
  const others = refs.filter((r) => !mineSet(r) && !minePod(r));
  const retainAll = policy.whenDeleted === 'Retain' && policy.whenScaled === 'Retain';
  if (!retainAll && others.some((r) => r.controller)) return others; // another controller manages it
  const next = [...others];
  const add = (o: { apiVersion: string; kind: string; name?: string; uid?: string }) => {
    if (o.uid) next.push({ apiVersion: o.apiVersion, kind: o.kind, name: o.name ?? '', uid: o.uid, controller: true, blockOwnerDeletion: true });
  };
  const scaledDown = !inOrdinalRange(pod, set);
  if (policy.whenDeleted === 'Delete' && (policy.whenScaled === 'Retain' || !scaledDown)) add({ apiVersion: 'apps/v1', kind: 'StatefulSet', name: set.metadata?.name, uid: set.metadata?.uid });
  if (policy.whenScaled === 'Delete' && scaledDown) add({ apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name, uid: pod.metadata?.uid });
  return next;
}

const refsKey = (refs: OwnerReference[]) => JSON.stringify(refs.map((r) => [r.uid, !!r.controller]).sort());

export class ClaimControl {
  readonly def: ResourceDef;
  constructor(private readonly client: Client, private readonly events: EventRecorder) {
    this.def = client.resource('v1/persistentvolumeclaims')!;
  }

  private get(ns: string, name: string): PersistentVolumeClaim | undefined {
    return this.client.get('v1/persistentvolumeclaims', ns, name);
  }

  /** Creates the pod's missing claims; throws when one cannot be created or is being deleted. */
  *createMissing(set: StatefulSet, pod: Pod): Steps<void> {
    const errors: string[] = [];
    for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
      const name = claim.metadata?.name ?? '';
      const existing = this.get(set.metadata?.namespace ?? '', name);
      if (existing) {
        if (existing.metadata?.deletionTimestamp) errors.push(`pvc ${name} is being deleted`);
        continue;
      }
      try {
        yield this.client.create(this.def, set.metadata?.namespace ?? '', claim);
        this.events.event(set, 'Normal', 'SuccessfulCreate', `create Claim ${name} Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name} success`);
      } catch (err) {
        if (statusCode(err) === 409) continue;
        errors.push(`failed to create PVC ${name}: ${errorMessage(err)}`);
        this.events.event(set, 'Warning', 'FailedCreate', `create Claim ${name} for Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name} failed error: ${errorMessage(err)}`);
      }
    }
    if (errors.length) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  }

  /** Whether the existing claims of the pod carry the owner references the retention policy asks for. */
  matchesPolicy(set: StatefulSet, pod: Pod): boolean {
    for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
      const cur = this.get(set.metadata?.namespace ?? '', claim.metadata?.name ?? '');
      if (!cur) continue;
      const want = wantedRefs(cur, set, pod);
      if (want && refsKey(want) !== refsKey(cur.metadata?.ownerReferences ?? [])) return false;
    }
    return true;
  }

  /** Rewrites the claims' owner references to match the retention policy. */
  *applyPolicy(set: StatefulSet, pod: Pod): Steps<void> {
    for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
      const name = claim.metadata?.name ?? '';
      const cur = this.get(set.metadata?.namespace ?? '', name);
      if (!cur) continue;
      const others = (cur.metadata?.ownerReferences ?? []).filter((r) => r.controller && !refersTo(r, 'StatefulSet', set.metadata?.name) && !refersTo(r, 'Pod', pod.metadata?.name));
      const policy = policyOf(set);
      if (others.length && (policy.whenDeleted === 'Delete' || policy.whenScaled === 'Delete')) {
        this.events.event(set, 'Warning', 'ConflictingController',
          `PersistentVolumeClaim ${name} has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim`);
      }
      const want = wantedRefs(cur, set, pod);
      if (!want || refsKey(want) === refsKey(cur.metadata?.ownerReferences ?? [])) continue;
      yield this.client.guaranteedUpdate(this.def, set.metadata?.namespace ?? '', name, (c) => {
        const next = wantedRefs(c, set, pod) ?? c.metadata.ownerReferences ?? [];
        const { ownerReferences: _old, ...rest } = c.metadata;
        return { ...c, metadata: next.length ? { ...rest, ownerReferences: next } : rest };
      });
    }
  }

  /** With whenScaled=Delete, a claim still owned by an earlier pod of the same name blocks creating the pod. */
  isStale(set: StatefulSet, pod: Pod): boolean {
    if (policyOf(set).whenScaled === 'Retain') return false;
    for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
      const cur = this.get(set.metadata?.namespace ?? '', claim.metadata?.name ?? '');
      const ref = cur?.metadata?.ownerReferences?.find((r) => refersTo(r, 'Pod', pod.metadata?.name));
      if (ref && ref.uid !== pod.metadata?.uid) return true;
    }
    return false;
  }
}
