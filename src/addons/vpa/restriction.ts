// How many pods of one replica group the updater may disrupt at once (upstream's pods restriction): a group below
// minReplicas is left alone; otherwise at most `evictionTolerance` of its configured replicas may be down for an
// update (at least one when every replica runs), counting evictions and in-place resizes started this round.
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { Client } from '../../client/client.js';

export interface GroupStats {
  configured: number;
  evictionTolerance: number;
  running: number;
  evicted: number;
  inPlaceStarted: number;
}

export function disruptable(s: GroupStats): boolean {
  const shouldBeAlive = s.configured - s.evictionTolerance;
  const alive = s.running - (s.evicted + s.inPlaceStarted);
  return alive > shouldBeAlive || (s.configured === s.running && s.evictionTolerance === 0 && s.evicted === 0 && s.inPlaceStarted === 0);
}

const creatorKinds: Record<string, string> = {
  ReplicaSet: 'apps/v1/replicasets',
  StatefulSet: 'apps/v1/statefulsets',
  ReplicationController: 'v1/replicationcontrollers',
  DaemonSet: 'apps/v1/daemonsets',
  Job: 'batch/v1/jobs',
};

/** The pod's creator (its controller owner reference), keyed by kind and name. */
export function creatorOf(pod: Pod): { kind: string; name: string; key: string } | undefined {
  const ref = pod.metadata?.ownerReferences?.find((r) => r?.controller === true);
  return ref ? { kind: ref.kind, name: ref.name, key: `${pod.metadata?.namespace ?? ''}/${ref.kind}/${ref.name}` } : undefined;
}

function configuredReplicas(client: Client, ns: string, kind: string, name: string): number {
  const ref = creatorKinds[kind];
  if (!ref) return 0;
  const obj = client.get<{ spec?: { replicas?: number }; status?: { numberReady?: number } }>(ref, ns, name);
  if (!obj) return 0;
  if (kind === 'DaemonSet') return obj.status?.numberReady ?? 0;
  if (kind === 'Job') return 0;
  return typeof obj.spec?.replicas === 'number' ? obj.spec.replicas : 0;
}

/** Stats per creator for the pods one VPA controls; groups below `required` live pods are left out. */
export function groupStats(client: Client, pods: Pod[], required: number, tolerance: number): Map<string, GroupStats> {
  const byCreator = new Map<string, Pod[]>();
  for (const p of pods) {
    const c = creatorOf(p);
    if (!c) continue;
    const list = byCreator.get(c.key) ?? [];
    list.push(p);
    byCreator.set(c.key, list);
  }
  const out = new Map<string, GroupStats>();
  for (const [key, list] of byCreator) {
    if (list.length < required) continue;
    const c = creatorOf(list[0])!;
    const configured = configuredReplicas(client, list[0].metadata?.namespace ?? '', c.kind, c.name) || list.length;
    const pending = list.filter((p) => p.status?.phase === 'Pending').length;
    out.set(key, { configured, evictionTolerance: Math.floor(configured * tolerance), running: list.length - pending, evicted: 0, inPlaceStarted: 0 });
  }
  return out;
}
