// One node as the scheduler sees it: allocatable, the summed requests of its pods, its pods and ports.
import type { Node, Taint } from '../generated/k8s/core/v1.js';
import { amounts, type ResourceAmounts } from '../machinery/resources.js';
import { ownLabels, scaledRequests, type PodInfo } from './pod-info.js';

export class NodeInfo {
  node: Node | undefined;
  labels: Record<string, string> = {};
  taints: Taint[] = [];
  unschedulable = false;
  allocatable: ResourceAmounts = {};
  allowedPods = 0;
  readonly requested: ResourceAmounts = {};
  nonZeroCpu = 0;
  nonZeroMem = 0;
  readonly pods = new Map<string, PodInfo>();
  /** Pods with any affinity or anti-affinity term (InterPodAffinity looks only at these). */
  readonly podsWithAffinity = new Set<PodInfo>();
  readonly podsWithRequiredAnti = new Set<PodInfo>();
  readonly usedPorts = new Map<string, number>();
  /** Bumped on every change, so per-attempt caches can tell. */
  generation = 0;

  constructor(readonly name: string) {}

  /** Sets the Node object; returns whether anything scheduling depends on changed. */
  setNode(node: Node): boolean {
    const labels = ownLabels(node.metadata?.labels);
    const taints = node.spec?.taints ?? [];
    const unschedulable = !!node.spec?.unschedulable;
    const alloc = scaledRequests(amounts((node.status?.allocatable ?? node.status?.capacity) as Record<string, unknown> | undefined));
    const relevant = !this.node || JSON.stringify([labels, taints, unschedulable, alloc]) !== JSON.stringify([this.labels, this.taints, this.unschedulable, this.allocatable]);
    this.node = node;
    if (relevant) {
      this.labels = labels;
      this.taints = taints;
      this.unschedulable = unschedulable;
      this.allocatable = alloc;
      this.allowedPods = alloc.pods ?? 0;
      this.generation++;
    }
    return relevant;
  }

  addPod(pi: PodInfo): void {
    this.pods.set(pi.key, pi);
    for (const k in pi.requests) if (Object.prototype.hasOwnProperty.call(pi.requests, k)) this.requested[k] = (this.requested[k] ?? 0) + pi.requests[k];
    this.nonZeroCpu += pi.nonZeroCpu;
    this.nonZeroMem += pi.nonZeroMem;
    if (pi.requiredAffinity.length || pi.requiredAntiAffinity.length || pi.preferredAffinity.length || pi.preferredAntiAffinity.length) this.podsWithAffinity.add(pi);
    if (pi.requiredAntiAffinity.length) this.podsWithRequiredAnti.add(pi);
    for (const p of pi.hostPorts) this.usedPorts.set(p, (this.usedPorts.get(p) ?? 0) + 1);
    this.generation++;
  }

  removePod(pi: PodInfo): void {
    if (this.pods.get(pi.key) !== pi) return;
    this.pods.delete(pi.key);
    for (const [k, v] of Object.entries(pi.requests)) this.requested[k] = (this.requested[k] ?? 0) - v;
    this.nonZeroCpu -= pi.nonZeroCpu;
    this.nonZeroMem -= pi.nonZeroMem;
    this.podsWithAffinity.delete(pi);
    this.podsWithRequiredAnti.delete(pi);
    for (const p of pi.hostPorts) {
      const n = (this.usedPorts.get(p) ?? 0) - 1;
      if (n > 0) this.usedPorts.set(p, n);
      else this.usedPorts.delete(p);
    }
    this.generation++;
  }
}
