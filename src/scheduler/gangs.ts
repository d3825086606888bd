// The scheduler's view of Workloads (scheduling.k8s.io/v1alpha1) and of the pods that name them in
// spec.workloadRef: which pod group (and replica) each pod belongs to, the group's policy, and the PreEnqueue
// verdict of KEP-4671's GangScheduling plugin (the group's Workload exists and at least minCount pods exist).
import type { Pod } from '../generated/k8s/core/v1.js';
import { isRecord } from '../machinery/types.js';
import { getOwn } from '../util/own.js';

export const workloadsKey = 'scheduling.k8s.io/v1alpha1/workloads';
/** How long placed gang pods wait at Permit for the rest of their group (upstream's fixed 5 minutes). */
export const defaultGangTimeoutMs = 5 * 60_000;
/** Bonsai's own knob on a Workload: the Permit timeout of its gangs, in seconds (upstream has none). */
export const gangTimeoutAnnotation = 'bonsai.dev/gang-scheduling-timeout-seconds';

export type GroupPolicy =
  | { kind: 'none' }
  | { kind: 'basic' }
  | { kind: 'gang'; minCount: number; timeoutMs: number }
  /** PreEnqueue rejects the pod with `message` until the Workload (or its group) appears. */
  | { kind: 'missing'; message: string };

export interface WorkloadRef {
  name: string;
  podGroup: string;
  podGroupReplicaKey?: string;
}

export function workloadRefOf(pod: Pod): WorkloadRef | undefined {
  const ref = (pod.spec as { workloadRef?: unknown } | undefined)?.workloadRef;
  if (!isRecord(ref) || typeof ref.name !== 'string' || typeof ref.podGroup !== 'string') return undefined;
  return { name: ref.name, podGroup: ref.podGroup, podGroupReplicaKey: typeof ref.podGroupReplicaKey === 'string' ? ref.podGroupReplicaKey : undefined };
}

/** One replica of one pod group: namespace, Workload, group and replica key. */
export function groupKeyOf(pod: Pod): string | undefined {
  const ref = workloadRefOf(pod);
  if (!ref) return undefined;
  return JSON.stringify([pod.metadata?.namespace ?? '', ref.name, ref.podGroup, ref.podGroupReplicaKey ?? '']);
}

const workloadKeyOf = (ns: string, name: string) => `${ns}/${name}`;

/** Whether a pod still counts as a member of its group (terminal and deleting pods do not). */
function counts(pod: Pod | undefined): pod is Pod {
  const phase = pod?.status?.phase;
  return !!pod && !pod.metadata?.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed';
}

function timeoutOf(annotations: Record<string, string> | undefined): number {
  const raw = annotations ? getOwn(annotations, gangTimeoutAnnotation) : undefined;
  const n = typeof raw === 'string' && /^\d{1,7}(\.\d{1,3})?$/.test(raw) ? Number(raw) : NaN;
  return Number.isFinite(n) ? Math.round(n * 1000) : defaultGangTimeoutMs;
}

interface Member {
  group: string;
  workload: string;
  bound: boolean;
}

export class GangTracker {
  private readonly members = new Map<string, Member>();
  private readonly groups = new Map<string, { all: Set<string>; bound: Set<string> }>();
  private readonly byWorkload = new Map<string, Set<string>>();

  /** `getWorkload(ns, name)` reads the current Workload object (the client's cache). */
  constructor(private readonly getWorkload: (ns: string, name: string) => { metadata?: { annotations?: Record<string, string> }; spec?: unknown } | undefined) {}

  /**
   * Takes in the current state of one pod (undefined: gone); returns its group key when the group's member count
   * changed (PreEnqueue verdicts of its pods may change).
   */
  sync(key: string, pod: Pod | undefined): string | undefined {
    const old = this.members.get(key);
    const group = counts(pod) ? groupKeyOf(pod) : undefined;
    if (!group) {
      if (old) this.drop(key, old);
      return old?.group;
    }
    const ns = pod!.metadata?.namespace ?? '';
    const workload = workloadKeyOf(ns, workloadRefOf(pod!)!.name);
    const bound = !!pod!.spec?.nodeName;
    if (old && old.group === group) {
      if (old.bound !== bound) {
        old.bound = bound;
        const g = this.groups.get(group)!;
        if (bound) g.bound.add(key);
        else g.bound.delete(key);
      }
      return undefined;
    }
    if (old) this.drop(key, old);
    const m: Member = { group, workload, bound };
    this.members.set(key, m);
    let g = this.groups.get(group);
    if (!g) this.groups.set(group, (g = { all: new Set(), bound: new Set() }));
    g.all.add(key);
    if (bound) g.bound.add(key);
    let w = this.byWorkload.get(workload);
    if (!w) this.byWorkload.set(workload, (w = new Set()));
    w.add(key);
    return group;
  }

  private drop(key: string, m: Member): void {
    this.members.delete(key);
    const g = this.groups.get(m.group);
    if (g) {
      g.all.delete(key);
      g.bound.delete(key);
      if (!g.all.size) this.groups.delete(m.group);
    }
    const w = this.byWorkload.get(m.workload);
    if (w) {
      w.delete(key);
      if (!w.size) this.byWorkload.delete(m.workload);
    }
  }

  groupOf(key: string): string | undefined {
    return this.members.get(key)?.group;
  }

  /** Keys of the group's member pods. */
  membersOf(group: string): Iterable<string> {
    return this.groups.get(group)?.all ?? [];
  }

  /** Members already bound to a node. */
  boundCount(group: string): number {
    return this.groups.get(group)?.bound.size ?? 0;
  }

  /** Keys of the pods that name a Workload. */
  podsOfWorkload(ns: string, name: string): Iterable<string> {
    return this.byWorkload.get(workloadKeyOf(ns, name)) ?? [];
  }

  /** The policy of the pod's group, read from its Workload now. */
  policy(pod: Pod): GroupPolicy {
    const ref = workloadRefOf(pod);
    if (!ref) return { kind: 'none' };
    const wl = this.getWorkload(pod.metadata?.namespace ?? '', ref.name);
    if (!wl) return { kind: 'missing', message: `waiting for pods's workload "${ref.name}" to appear in scheduling queue` };
    const groups = isRecord(wl.spec) && Array.isArray(wl.spec.podGroups) ? (wl.spec.podGroups as unknown[]) : [];
    const pg = groups.find((g) => isRecord(g) && g.name === ref.podGroup);
    const policy = isRecord(pg) && isRecord(pg.policy) ? pg.policy : undefined;
    if (!policy) return { kind: 'missing', message: `pod group "${ref.podGroup}" doesn't exist for a workload "${ref.name}"` };
    if (isRecord(policy.gang)) {
      const min = typeof policy.gang.minCount === 'number' && policy.gang.minCount > 0 ? policy.gang.minCount : 1;
      return { kind: 'gang', minCount: min, timeoutMs: timeoutOf(wl.metadata?.annotations) };
    }
    return { kind: 'basic' };
  }

  /** GangScheduling's PreEnqueue: undefined lets the pod into the active queue; otherwise why it waits. */
  preEnqueue(pod: Pod, key: string): string | undefined {
    const p = this.policy(pod);
    if (p.kind === 'missing') return p.message;
    if (p.kind !== 'gang') return undefined;
    const group = this.members.get(key)?.group ?? groupKeyOf(pod);
    const n = group ? (this.groups.get(group)?.all.size ?? 0) : 0;
    return n < p.minCount ? 'waiting for minCount pods from a gang to appear in scheduling queue' : undefined;
  }
}
