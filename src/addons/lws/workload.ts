// Gang scheduling for LeaderWorkerSets (a Bonsai default; upstream leaves it to Kueue or Volcano): a Workload named after
// the set whose pod group `group` is a gang of one group's size, each group its own replica (its group index). Only
// with LeaderCreated: under LeaderReady a group's workers wait for a Ready leader, which a gang would never let run.
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { Client } from '../../client/client.js';
import type { KObject } from '../../machinery/types.js';
import { labels as L, type LeaderWorkerSet } from './types.js';

export const workloadRes = 'scheduling.k8s.io/v1alpha1/workloads';
export const gangGroup = 'group';

const sizeOf = (lws: LeaderWorkerSet) => lws.spec?.leaderWorkerTemplate?.size ?? 1;
export const ganged = (lws: LeaderWorkerSet) => lws.spec?.startupPolicy !== 'LeaderReady' && sizeOf(lws) > 1;

/** Creates (or, when the group size changed, replaces) the set's Workload; removes it when the set is not ganged. */
export async function ensureWorkload(client: Client, lws: LeaderWorkerSet): Promise<void> {
  const ns = lws.metadata.namespace ?? '';
  const name = lws.metadata.name ?? '';
  const cur = client.get(workloadRes, ns, name);
  const mine = cur?.metadata.ownerReferences?.some((r) => r.uid === lws.metadata.uid);
  if (cur && !mine) return; // someone else's Workload of that name: left alone, and the pods are not ganged
  const minCount = (cur?.spec as { podGroups?: Array<{ policy?: { gang?: { minCount?: number } } }> } | undefined)?.podGroups?.[0]?.policy?.gang?.minCount;
  if (cur && (!ganged(lws) || minCount !== sizeOf(lws))) {
    await client.delete(workloadRes, ns, name);
    if (!ganged(lws)) return;
  } else if (cur || !ganged(lws)) return;
  const owner = lws as KObject;
  await client.create(workloadRes, ns, {
    apiVersion: 'scheduling.k8s.io/v1alpha1', kind: 'Workload',
    metadata: { name, namespace: ns, labels: { [L.setName]: name }, ownerReferences: [{ apiVersion: owner.apiVersion ?? '', kind: owner.kind ?? '', name, uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }] },
    spec: { podGroups: [{ name: gangGroup, policy: { gang: { minCount: sizeOf(lws) } } }] },
  } as KObject);
}

/** Joins a new pod of a ganged set to its group's gang (the group index is the replica key). */
export function joinGang(client: Client, pod: Pod, namespace: string): void {
  const labels = pod.metadata?.labels ?? {};
  const set = labels[L.setName];
  const group = labels[L.groupIndex];
  const spec = pod.spec as (Pod['spec'] & { workloadRef?: unknown }) | undefined;
  if (!set || group === undefined || !spec || spec.workloadRef) return;
  const wl = client.get(workloadRes, namespace, set);
  if (!wl || wl.metadata.deletionTimestamp || !wl.metadata.ownerReferences?.some((r) => r.kind === 'LeaderWorkerSet' && r.name === set)) return;
  pod.spec = { ...spec, workloadRef: { name: set, podGroup: gangGroup, podGroupReplicaKey: group } } as Pod['spec'];
}
