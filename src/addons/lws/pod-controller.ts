// The pod reconciler of LeaderWorkerSet, as upstream's: applies the restart policy (a restarted container, a failed
// or deleted pod recreates its whole group by deleting the leader in the foreground, which takes the worker
// StatefulSet and its pods with it), and for a leader creates its group's worker StatefulSet once the startup policy
// allows (LeaderCreated: at once; LeaderReady: when the leader is Ready), plus its own Service under UniquePerReplica.
import type { Node, Pod } from '../../generated/k8s/core/v1.js';
import type { StatefulSet } from '../../generated/k8s/apps/v1.js';
import type { KObject } from '../../machinery/types.js';
import { annotations as A, labels as L, lwsResource, parentAndOrdinal, restartPolicyOf, sizeOf, uniquePerReplica, type LeaderWorkerSet } from './types.js';
import { applyRevision, getRevision } from './revisions.js';
import { workerStatefulSet } from './statefulsets.js';
import { podReady } from './status.js';
import { asObject, ensureHeadlessService, podRes, stsRes, type LwsContext } from './context.js';

const revisionOf = (o: { metadata?: { labels?: Record<string, string> } } | undefined) => o?.metadata?.labels?.[L.revision] ?? '';
const isLeader = (p: Pod) => p.metadata?.labels?.[L.workerIndex] === '0';
const controllerOf = (o: { metadata?: { ownerReferences?: Array<{ controller?: boolean; kind: string; name: string; uid: string }> } }) =>
  o.metadata?.ownerReferences?.find((r) => r.controller);

/** A container has restarted (the pod still Pending or Running), or the pod has failed. */
export function podBroken(p: Pod): boolean {
  const phase = p.status?.phase;
  if (phase === 'Failed') return true;
  if (phase !== 'Running' && phase !== 'Pending') return false;
  return [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])].some((s) => (s.restartCount ?? 0) > 0);
}

/** Whether some pod of the group is missing or still Pending. */
function groupPending(ctx: LwsContext, pod: Pod, size: number): boolean {
  const l = pod.metadata?.labels ?? {};
  const members = ctx.pods.byIndex('group', `${pod.metadata?.namespace ?? ''}/${l[L.setName]}/${l[L.groupIndex]}`);
  return members.length !== size || members.some((m) => m.status?.phase === 'Pending');
}

/** A worker belongs to the leader's current group: its StatefulSet (or the pod itself) is owned by this leader. */
function belongsTo(ctx: LwsContext, worker: Pod, leader: Pod): boolean {
  const owner = controllerOf(worker);
  if (!owner) return false;
  if (owner.kind === 'Pod') return owner.name === leader.metadata?.name && owner.uid === leader.metadata?.uid;
  if (owner.kind !== 'StatefulSet') return false;
  const sts = ctx.client.get<StatefulSet>(stsRes, worker.metadata?.namespace ?? '', owner.name);
  if (!sts || sts.metadata?.uid !== owner.uid) return false;
  const so = controllerOf(sts);
  return !!so && so.kind === 'Pod' && so.name === leader.metadata?.name && so.uid === leader.metadata?.uid;
}

/** Applies the restart policy; true when the group is being recreated (nothing else to do for this pod). */
async function restartGroup(ctx: LwsContext, pod: Pod, lws: LeaderWorkerSet, deleted = false): Promise<boolean> {
  const policy = restartPolicyOf(lws);
  if (policy !== 'RecreateGroupOnPodRestart' && policy !== 'RecreateGroupAfterStart') return false;
  if (!deleted && !podBroken(pod) && !pod.metadata?.deletionTimestamp) return false;
  const afterStart = policy === 'RecreateGroupAfterStart' || Object.hasOwn(lws.metadata.annotations ?? {}, A.recreateGroupAfterStart);
  if (afterStart && groupPending(ctx, pod, sizeOf(lws))) return false;
  const ns = pod.metadata?.namespace ?? '';
  let leader = pod;
  if (!isLeader(pod)) {
    const [leaderName, ordinal] = parentAndOrdinal(pod.metadata?.name ?? '');
    if (ordinal < 0) return false;
    const found = ctx.client.get<Pod>(podRes, ns, leaderName);
    if (!found || revisionOf(found) !== revisionOf(pod) || !belongsTo(ctx, pod, found)) return false;
    leader = found;
  }
  if (leader.metadata?.deletionTimestamp) return true;
  try {
    await ctx.client.delete(podRes, ns, leader.metadata?.name ?? '', { propagationPolicy: 'Foreground', preconditions: { uid: leader.metadata?.uid } });
  } catch {
    return false; // gone or replaced meanwhile: the next pass sees the new state
  }
  const group = leader.metadata?.labels?.[L.groupIndex] ?? '';
  ctx.recorder.event(lws as KObject, 'Normal', 'RecreateGroup', `Worker pod ${pod.metadata?.name} failed, deleted leader pod ${leader.metadata?.name} to recreate group ${group}`);
  return true;
}

/** The node-selector pinning workers to the leader's topology domain, or 'wait' while the leader is unscheduled. */
function exclusiveSelector(ctx: LwsContext, leader: Pod, lws: LeaderWorkerSet): Record<string, string> | 'wait' | undefined {
  const topologyKey = lws.metadata.annotations?.[A.exclusiveTopology];
  if (!topologyKey) return undefined;
  const nodeName = leader.spec?.nodeName;
  if (!nodeName) return 'wait';
  const node = ctx.client.get<Node>('v1/nodes', '', nodeName);
  const value = node?.metadata?.labels?.[topologyKey];
  if (value === undefined) throw new Error(`node does not have topology label: ${topologyKey}`);
  return { [topologyKey]: value };
}

/** The set a pod belongs to, when it carries the labels every LWS pod has. */
function setOf(ctx: LwsContext, pod: Pod): LeaderWorkerSet | undefined {
  const lwsName = pod.metadata?.labels?.[L.setName];
  if (!lwsName || pod.metadata?.labels?.[L.workerIndex] === undefined) return undefined;
  return ctx.client.get<LeaderWorkerSet>(lwsResource, pod.metadata?.namespace ?? '', lwsName);
}

export async function reconcilePod(ctx: LwsContext, namespace: string, name: string): Promise<number | void> {
  // A pod deleted since the last pass (its successor may exist already): its deletion applies the restart policy,
  // as upstream's does when it sees the pod terminating. A pod of an earlier group no longer matches its leader.
  const key = `${namespace}/${name}`;
  const gone = ctx.deletedPods.get(key);
  if (gone) {
    ctx.deletedPods.delete(key);
    const set = setOf(ctx, gone);
    if (set && (await restartGroup(ctx, gone, set, true))) return;
  }
  const pod = ctx.client.get<Pod>(podRes, namespace, name);
  if (!pod) return;
  const lws = setOf(ctx, pod);
  if (!lws) return;
  const lwsName = lws.metadata.name ?? '';
  if (await restartGroup(ctx, pod, lws)) return;
  if (!isLeader(pod) || pod.metadata?.deletionTimestamp) return;
  if (pod.metadata?.annotations?.[A.leaderName]) {
    ctx.recorder.event(lws as KObject, 'Warning', 'FailedCreate', `leader pod ${namespace}/${name} contains mistake annotation '${A.leaderName}': requires Kubernetes ≥v1.27 or v1.26 with StatefulSetStartOrdinal feature`);
    return;
  }
  if (uniquePerReplica(lws)) {
    await ensureHeadlessService(ctx, lws, name, { [L.setName]: lwsName, [L.groupIndex]: pod.metadata?.labels?.[L.groupIndex] ?? '' }, asObject(pod));
  }
  if (sizeOf(lws) === 1) return;
  if (lws.spec?.startupPolicy === 'LeaderReady' && !podReady(pod)) return;
  if (ctx.client.get(stsRes, namespace, name)) return;
  const revision = getRevision(ctx.client, lws, revisionOf(pod));
  if (!revision) return 1000;
  const selector = exclusiveSelector(ctx, pod, lws);
  if (selector === 'wait') return;
  const sts = workerStatefulSet(pod, applyRevision(lws, revision), lws, selector);
  try {
    await ctx.client.create(stsRes, namespace, asObject(sts));
  } catch (err) {
    if (err instanceof Error && (err as { code?: number }).code === 409) return;
    ctx.recorder.event(lws as KObject, 'Warning', 'FailedCreate', `Failed to create worker statefulset for leader pod ${name}: ${err instanceof Error ? err.message : String(err)}`);
    throw err;
  }
  ctx.recorder.event(lws as KObject, 'Normal', 'GroupsProgressing', `Created worker statefulset for leader pod ${name}`);
}
