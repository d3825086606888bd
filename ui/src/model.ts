// What the cluster map shows, reduced from API objects: nodes, pods, and per-node pod lists (and the DRA objects kept
// for the devices, dra-state.ts). The state applies
// batches of watch events and replaces only the lists of the nodes they touched, so memoized node boxes of the
// others do not render again.
import type { Toleration } from '../../src/generated/k8s/core/v1.js';
import { quantity } from './quantity.js';
import { recordedGpus, recordedIds } from '../../src/machinery/gpu-devices.js';
import { DraState } from './dra-state.js';
import { arr, keyOf, rec, str, type Obj, type WatchEvent } from './objects.js';

export { arr, keyOf, rec, str, type Obj, type WatchEvent } from './objects.js';

export interface Resources {
  cpu: number;
  mem: number;
  gpu: number;
  pods: number;
}

export interface PodView {
  key: string;
  ns: string;
  name: string;
  node: string;
  phase: string;
  ready: boolean;
  deleting: boolean;
  /** Why it is not running yet (a waiting container's reason, or the scheduling condition's). */
  reason: string;
  /** As the object has them: read with `label()`. */
  labels: Obj;
  owner: string;
  req: Resources;
  /** Container restarts, summed. */
  restarts: number;
  /** Why it failed or a container last ended: the pod's reason, or a container's (`Error, exit 1`). */
  ended: string;
  /** creationTimestamp in ms (NaN when unknown). */
  created: number;
  /** The gang (pod group of a Workload) it belongs to, `<ns>/<workload>/<group>`, or ''. */
  gang: string;
  tolerations: Toleration[];
  /** The GPUs the kubelet handed it through the node's nvidia.com/gpu capacity (UUIDs, or indexes), as its status says. */
  gpuIds: string[];
}

export interface TaintView {
  key: string;
  value: string;
  effect: string;
  /** timeAdded in ms (NaN when the taint has none). */
  added: number;
}

/** A taint whole, as kubectl taint writes it: `key=value:effect`. */
export const taintText = (t: TaintView): string => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;

export interface NodeView {
  name: string;
  ready: string;
  stopped: boolean;
  cordoned: boolean;
  taints: TaintView[];
  /** Conditions not in their healthy state. */
  problems: string[];
  alloc: Resources;
  zone: string;
  /** Roles from `node-role.kubernetes.io/<role>` labels (as kubectl's ROLES column): `control-plane` on kind's. */
  roles: string[];
}

/** A label's value: own string properties only (labels come from JSON, which may hold any key). */
export function label(labels: Obj, key: string): string | undefined {
  if (!Object.prototype.hasOwnProperty.call(labels, key)) return undefined;
  const v = labels[key];
  return typeof v === 'string' ? v : undefined;
}

function podRequests(spec: Obj): Resources {
  const sum = { cpu: 0, mem: 0, gpu: 0, pods: 1 };
  const add = (c: unknown, into: Resources) => {
    const r = rec(rec(rec(c).resources).requests);
    const l = rec(rec(rec(c).resources).limits);
    into.cpu += quantity(r.cpu ?? l.cpu);
    into.mem += quantity(r.memory ?? l.memory);
    into.gpu += quantity(r['nvidia.com/gpu'] ?? l['nvidia.com/gpu']);
  };
  for (const c of arr(spec.containers)) add(c, sum);
  for (const c of arr(spec.initContainers)) {
    const one = { cpu: 0, mem: 0, gpu: 0, pods: 1 };
    add(c, one);
    sum.cpu = Math.max(sum.cpu, one.cpu);
    sum.mem = Math.max(sum.mem, one.mem);
    sum.gpu = Math.max(sum.gpu, one.gpu);
  }
  return sum;
}

function toleration(v: unknown): Toleration {
  const t = rec(v);
  const out: Toleration = { key: str(t.key), operator: str(t.operator), value: str(t.value), effect: str(t.effect) };
  if (typeof t.tolerationSeconds === 'number') out.tolerationSeconds = t.tolerationSeconds;
  return out;
}

const gangOf = (ns: string, ref: Obj): string => (ref.name && ref.podGroup ? `${ns}/${str(ref.name)}/${str(ref.podGroup)}` : '');

export function podView(o: Obj): PodView {
  const m = rec(o.metadata);
  const spec = rec(o.spec);
  const st = rec(o.status);
  const conds = arr(st.conditions).map(rec);
  const ready = conds.some((c) => c.type === 'Ready' && c.status === 'True');
  let reason = '';
  let restarts = 0;
  let ended = str(st.reason);
  for (const cs of arr(st.containerStatuses)) {
    const w = rec(rec(rec(cs).state).waiting);
    if (w.reason) reason = str(w.reason);
    if (typeof rec(cs).restartCount === 'number') restarts += rec(cs).restartCount as number;
    const t = rec(rec(rec(cs).state).terminated);
    const lt = rec(rec(rec(cs).lastState).terminated);
    const term = t.reason ? t : lt;
    if (!ended && term.reason && term.reason !== 'Completed') ended = `${str(term.reason)}, exit ${String(term.exitCode ?? '?')}`;
  }
  const sched = conds.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  if (!reason && sched) reason = str(sched.reason);
  const owner = rec(arr(m.ownerReferences)[0]);
  return {
    key: keyOf(o), ns: str(m.namespace), name: str(m.name), node: str(spec.nodeName), phase: str(st.phase) || 'Pending', ready,
    deleting: !!m.deletionTimestamp, reason, labels: rec(m.labels), owner: owner.kind ? `${str(owner.kind)}/${str(owner.name)}` : '',
    req: podRequests(spec), restarts, ended, created: Date.parse(str(m.creationTimestamp)), gang: gangOf(str(m.namespace), rec(spec.workloadRef)),
    tolerations: arr(spec.tolerations).map(toleration), gpuIds: [...recordedIds(recordedGpus(st))],
  };
}

const healthy: Record<string, string> = { Ready: 'True', MemoryPressure: 'False', DiskPressure: 'False', PIDPressure: 'False', NetworkUnavailable: 'False' };

const rolePrefix = 'node-role.kubernetes.io/';

export function nodeView(o: Obj): NodeView {
  const m = rec(o.metadata);
  const spec = rec(o.spec);
  const st = rec(o.status);
  const alloc = rec(st.allocatable);
  const conds = arr(st.conditions).map(rec);
  return {
    name: str(m.name),
    ready: str(conds.find((c) => c.type === 'Ready')?.status) || 'Unknown',
    stopped: rec(m.annotations)['bonsai.dev/stopped'] === 'true',
    cordoned: spec.unschedulable === true,
    taints: arr(spec.taints).map(rec).map((t) => ({ key: str(t.key), value: str(t.value), effect: str(t.effect), added: Date.parse(str(t.timeAdded)) })),
    problems: conds.filter((c) => str(c.type) in healthy && healthy[str(c.type)] !== c.status).map((c) => `${str(c.type)}=${str(c.status)}`),
    alloc: { cpu: quantity(alloc.cpu), mem: quantity(alloc.memory), gpu: quantity(alloc['nvidia.com/gpu']), pods: quantity(alloc.pods) },
    zone: label(rec(m.labels), 'topology.kubernetes.io/zone') ?? '',
    roles: Object.keys(rec(m.labels)).filter((k) => k.startsWith(rolePrefix) && k.length > rolePrefix.length).map((k) => k.slice(rolePrefix.length)).sort(),
  };
}

/**
 * Dates the taints that have no timeAdded (kubectl taint writes none): as before when the node had them already,
 * `now` when it did not (the taint eviction controller counts tolerationSeconds from the moment it sees them too).
 */
function taintsSeen(next: NodeView, before: NodeView | undefined, now?: number): NodeView {
  if (!next.taints.some((t) => Number.isNaN(t.added))) return next;
  const taints = next.taints.map((t) => {
    if (!Number.isNaN(t.added)) return t;
    const old = before?.taints.find((b) => b.key === t.key && b.effect === t.effect);
    if (old) return { ...t, added: old.added };
    return before && now !== undefined ? { ...t, added: now } : t;
  });
  return { ...next, taints };
}

const noPods: PodView[] = [];
const terminal = (p: PodView) => p.phase === 'Succeeded' || p.phase === 'Failed';

export function usage(pods: PodView[]): Resources {
  const u = { cpu: 0, mem: 0, gpu: 0, pods: 0 };
  for (const p of pods) {
    if (terminal(p)) continue;
    u.cpu += p.req.cpu;
    u.mem += p.req.mem;
    u.gpu += p.req.gpu;
    u.pods += 1;
  }
  return u;
}

/** Nodes and pods as the map draws them; `version` changes whenever anything did. */
export class ClusterState {
  nodes = new Map<string, NodeView>();
  /** ResourceSlices and ResourceClaims (the node panel's devices, and the GPUs claims hold for the map's GPU bar). */
  readonly dra = new DraState();
  pods = new Map<string, PodView>();
  private byNode = new Map<string, PodView[]>();
  pending: PodView[] = [];
  version = 0;
  /** Whether the first lists of nodes and pods arrived (the map is then meaningful). */
  listed = { nodes: false, pods: false };
  private dirty = new Set<string>();
  private pendingDirty = false;

  podsOn(node: string): PodView[] {
    return this.byNode.get(node) ?? noPods;
  }

  resetNodes(items: Obj[]): void {
    this.nodes = new Map(items.map((o) => [keyOf(o), taintsSeen(nodeView(o), this.nodes.get(keyOf(o)))]));
    this.listed.nodes = true;
    this.version++;
  }

  resetPods(items: Obj[]): void {
    this.pods = new Map();
    for (const o of items) this.pods.set(keyOf(o), podView(o));
    this.listed.pods = true;
    this.rebuildAll();
  }

  /** GPUs held through ResourceClaims, by node (the map's GPU bar adds them to the pods' nvidia.com/gpu requests). */
  get claimGpus(): ReadonlyMap<string, number> {
    return this.dra.claimGpus;
  }

  resetClaims(items: Obj[]): void {
    this.dra.resetClaims(items);
    this.version++;
  }

  applyClaims(events: WatchEvent[]): void {
    this.dra.applyClaims(events);
    this.version++;
  }

  resetSlices(items: Obj[]): void {
    this.dra.resetSlices(items);
    this.version++;
  }

  applySlices(events: WatchEvent[]): void {
    this.dra.applySlices(events);
    this.version++;
  }

  /** `now`: the simulated time the events arrived, which dates taints that come without a timeAdded. */
  applyNodes(events: WatchEvent[], now?: number): void {
    for (const e of events) {
      const k = keyOf(e.object);
      if (e.type === 'DELETED') this.nodes.delete(k);
      else if (e.type === 'ADDED' || e.type === 'MODIFIED') this.nodes.set(k, taintsSeen(nodeView(e.object), this.nodes.get(k), now));
    }
    this.version++;
  }

  applyPods(events: WatchEvent[]): void {
    for (const e of events) {
      if (e.type !== 'ADDED' && e.type !== 'MODIFIED' && e.type !== 'DELETED') continue;
      const k = keyOf(e.object);
      const before = this.pods.get(k);
      if (before) this.touch(before.node);
      if (e.type === 'DELETED') this.pods.delete(k);
      else {
        const p = podView(e.object);
        this.pods.set(k, p);
        this.touch(p.node);
      }
    }
    this.flush();
  }

  private touch(node: string): void {
    if (node) this.dirty.add(node);
    else this.pendingDirty = true;
  }

  private flush(): void {
    if (!this.dirty.size && !this.pendingDirty) return;
    const lists = new Map<string, PodView[]>();
    for (const n of this.dirty) lists.set(n, []);
    const pending: PodView[] = [];
    for (const p of this.pods.values()) {
      if (!p.node) {
        if (this.pendingDirty && !terminal(p)) pending.push(p);
      } else lists.get(p.node)?.push(p);
    }
    for (const [n, l] of lists) this.byNode.set(n, l);
    if (this.pendingDirty) this.pending = pending;
    this.dirty.clear();
    this.pendingDirty = false;
    this.version++;
  }

  private rebuildAll(): void {
    this.byNode = new Map();
    const pending: PodView[] = [];
    for (const p of this.pods.values()) {
      if (!p.node) {
        if (!terminal(p)) pending.push(p);
        continue;
      }
      let l = this.byNode.get(p.node);
      if (!l) this.byNode.set(p.node, (l = []));
      l.push(p);
    }
    this.pending = pending;
    this.dirty.clear();
    this.pendingDirty = false;
    this.version++;
  }
}
