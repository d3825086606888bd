// What the scheduler needs from a pod, computed once per pod version: requests, affinity terms, ports.
import type { Pod, PodAffinityTerm, Toleration, NodeSelectorTerm } from '../generated/k8s/core/v1.js';
import { fromLabelSelector, matchesSelector, type Requirement, type Selector } from '../machinery/labels.js';
import { podRequests, type ResourceAmounts } from '../machinery/resources.js';

/** Requests of pods without cpu/memory requests, as upstream counts them when scoring. */
export const defaultMilliCpu = 100;
export const defaultMemory = 200 * 1024 * 1024;

export interface AffinityTerm {
  /** undefined: a null selector, which selects nothing. */
  selector: Selector | undefined;
  namespaces: Set<string>;
  /** A namespaceSelector; an empty one selects every namespace. */
  nsSelector: Selector | undefined;
  topologyKey: string;
  weight: number;
}

export type NamespaceLabels = (ns: string) => Record<string, string> | undefined;

export interface PodInfo {
  key: string;
  uid: string;
  ns: string;
  name: string;
  pod: Pod;
  labels: Record<string, string>;
  priority: number;
  /** Scaled requests: cpu in millicores, everything else in whole units. */
  requests: ResourceAmounts;
  /** cpu (millicores) and memory with upstream's defaults for missing requests. */
  nonZeroCpu: number;
  nonZeroMem: number;
  requiredAffinity: AffinityTerm[];
  requiredAntiAffinity: AffinityTerm[];
  preferredAffinity: AffinityTerm[];
  preferredAntiAffinity: AffinityTerm[];
  tolerations: Toleration[];
  /** `protocol/port/hostIP` for each container hostPort. */
  hostPorts: string[];
  terminating: boolean;
  startMs: number;
  /** A pending pod counted on a node because a place is reserved for it (a gang waiting at Permit). */
  assumed?: boolean;
}

export function podKey(ns: string | undefined, name: string | undefined): string {
  return `${ns ?? ''}/${name ?? ''}`;
}

/** Requests in the units the scheduler compares: millicores for cpu, rounded up like resource.Quantity. */
export function scaledRequests(raw: ResourceAmounts): ResourceAmounts {
  const out: ResourceAmounts = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === 0) continue;
    out[k] = k === 'cpu' ? Math.ceil(v * 1000 - 1e-9) : Math.ceil(v - 1e-9);
  }
  return out;
}

function affinityTerms(terms: PodAffinityTerm[] | undefined, ns: string, weight: number, out: AffinityTerm[]): void {
  for (const t of terms ?? []) {
    let namespaces = new Set(t.namespaces ?? []);
    const nsSelector = t.namespaceSelector ? fromLabelSelector(t.namespaceSelector) : undefined;
    if (namespaces.size === 0 && !t.namespaceSelector) namespaces = new Set([ns]);
    out.push({ selector: fromLabelSelector(t.labelSelector), namespaces, nsSelector, topologyKey: t.topologyKey, weight });
  }
}

/** Shared by the pods without such terms or host ports (most of them): never written to. */
const none: never[] = Object.freeze([]) as never[];

export function buildPodInfo(pod: Pod): PodInfo {
  const meta = pod.metadata ?? {};
  const spec = pod.spec;
  const ns = meta.namespace ?? '';
  const requests = scaledRequests(podRequests(pod));
  const aff = spec?.affinity;
  let requiredAffinity: AffinityTerm[] = none;
  let requiredAntiAffinity: AffinityTerm[] = none;
  let preferredAffinity: AffinityTerm[] = none;
  let preferredAntiAffinity: AffinityTerm[] = none;
  // Only a pod with inter-pod terms builds them (a restart adds 100,000 bound pods, nearly all without).
  if (aff?.podAffinity || aff?.podAntiAffinity) {
    requiredAffinity = [];
    requiredAntiAffinity = [];
    preferredAffinity = [];
    preferredAntiAffinity = [];
    affinityTerms(aff.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution, ns, 1, requiredAffinity);
    affinityTerms(aff.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution, ns, 1, requiredAntiAffinity);
    for (const w of aff.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) affinityTerms([w.podAffinityTerm], ns, w.weight, preferredAffinity);
    for (const w of aff.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) affinityTerms([w.podAffinityTerm], ns, w.weight, preferredAntiAffinity);
  }
  let hostPorts: string[] = none;
  for (const list of [spec?.containers, spec?.initContainers]) {
    for (const c of list ?? []) {
      for (const p of c.ports ?? []) {
        if (!p.hostPort) continue;
        if (hostPorts === none) hostPorts = [];
        hostPorts.push(`${p.protocol ?? 'TCP'}/${p.hostPort}/${p.hostIP || '0.0.0.0'}`);
      }
    }
  }
  return {
    key: podKey(ns, meta.name), uid: meta.uid ?? '', ns, name: meta.name ?? '', pod,
    labels: ownLabels(meta.labels),
    priority: spec?.priority ?? 0,
    requests,
    nonZeroCpu: requests.cpu ?? defaultMilliCpu,
    nonZeroMem: requests.memory ?? defaultMemory,
    requiredAffinity, requiredAntiAffinity, preferredAffinity, preferredAntiAffinity,
    tolerations: spec?.tolerations ?? [],
    hostPorts,
    terminating: !!meta.deletionTimestamp,
    startMs: startMsOf(pod),
  };
}

/** When the pod started (its creation until the kubelet reports a start time), for preemption's ordering. */
export function startMsOf(pod: Pod): number {
  const start = pod.status?.startTime ?? pod.metadata?.creationTimestamp;
  return start ? Date.parse(start) : 0;
}

/**
 * Whether `pod` is a later version of `pi`'s pod that the scheduler counts the same way: the same spec and labels
 * (the very objects: stored versions share the subtrees a write left alone, as a status write leaves the spec),
 * creation and deletion marks. Then only `pod` and `startMs` need to follow it.
 */
export function sameSchedulingInputs(pi: PodInfo, pod: Pod): boolean {
  const was = pi.pod;
  return pod.spec === was.spec && pod.metadata?.uid === pi.uid && pod.metadata?.labels === was.metadata?.labels &&
    pod.metadata?.deletionTimestamp === was.metadata?.deletionTimestamp && pod.metadata?.creationTimestamp === was.metadata?.creationTimestamp;
}

/** Whether `pod` is selected by an affinity term of a pod in some namespace. */
export function termMatches(term: AffinityTerm, pod: PodInfo, nsLabels: NamespaceLabels): boolean {
  if (!term.selector || !matchesSelector(term.selector, pod.labels)) return false;
  if (term.namespaces.has(pod.ns)) return true;
  return term.nsSelector !== undefined && matchesSelector(term.nsSelector, nsLabels(pod.ns));
}

/** A NodeSelectorTerm: every expression on labels and every field requirement (metadata.name) must hold. */
export interface NodeTerm {
  labels: Requirement[];
  fields: Requirement[];
}

export function nodeTerms(terms: NodeSelectorTerm[] | undefined): NodeTerm[] {
  const conv = (e: { key: string; operator: string; values?: string[] }): Requirement => ({ key: e.key, op: e.operator as Requirement['op'], values: e.values ?? [] });
  return (terms ?? []).map((t) => ({ labels: (t.matchExpressions ?? []).map(conv), fields: (t.matchFields ?? []).map(conv) }));
}

export function nodeTermMatches(t: NodeTerm, labels: Record<string, string>, nodeName: string): boolean {
  if (t.labels.length === 0 && t.fields.length === 0) return false;
  if (t.labels.length && !matchesSelector(t.labels, labels)) return false;
  for (const f of t.fields) {
    if (f.key !== 'metadata.name') return false;
    if (!matchesSelector([{ ...f, key: 'n' }], { n: nodeName })) return false;
  }
  return true;
}

/**
 * Labels as a map without a prototype: a topology key or selector key such as `constructor` (a valid label
 * key) must find only a label of that name, never a member of Object.prototype.
 */
export function ownLabels(labels: Record<string, string> | undefined): Record<string, string> {
  return Object.assign(Object.create(null) as Record<string, string>, labels ?? {});
}
