// The scheduler's view of the cluster: nodes with the pods bound to them, kept from the change feed.
import type { Node, Pod } from '../generated/k8s/core/v1.js';
import { NodeInfo } from './node-info.js';
import { buildPodInfo, podKey, sameSchedulingInputs, startMsOf, type PodInfo } from './pod-info.js';
import { PodIndex } from './pod-index.js';

export type PodChange = 'added' | 'removed' | 'updated' | 'none';

/** The resourceVersion recorded for an assumed pod (reserved on a node, not bound yet). */
const assumedRv = '';

export class SchedulerCache {
  readonly nodes = new Map<string, NodeInfo>();
  readonly index = new PodIndex();
  private list: NodeInfo[] | undefined;
  /** Assigned pods by key. */
  private readonly assigned = new Map<string, { pi: PodInfo; node: string; rv: string }>();

  /** Nodes that have a Node object, in a stable order. */
  nodeList(): NodeInfo[] {
    if (!this.list) this.list = [...this.nodes.values()].filter((n) => n.node !== undefined);
    return this.list;
  }

  private info(name: string): NodeInfo {
    let n = this.nodes.get(name);
    if (!n) this.nodes.set(name, (n = new NodeInfo(name)));
    return n;
  }

  /** Returns whether scheduling-relevant fields changed (or the node is new). */
  setNode(node: Node): boolean {
    const n = this.info(node.metadata?.name ?? '');
    const had = n.node !== undefined;
    if (!had) this.list = undefined;
    const changed = n.setNode(node);
    if (!had || changed) this.refile(n);
    return changed;
  }

  /** The index counts a node's pods by its labels (and only while it has a Node object): count them again. */
  private refile(n: NodeInfo): void {
    for (const pi of n.pods.values()) {
      this.index.remove(pi);
      this.index.add(pi, n);
    }
  }

  removeNode(name: string): void {
    const n = this.nodes.get(name);
    if (!n) return;
    n.node = undefined;
    this.list = undefined;
    this.refile(n);
    if (n.pods.size === 0) this.nodes.delete(name);
  }

  assignedPod(key: string): PodInfo | undefined {
    return this.assigned.get(key)?.pi;
  }

  /** Brings one assigned pod up to date from its current object (undefined: gone or not counted any more). */
  syncAssigned(key: string, pod: Pod | undefined): { change: PodChange; pi?: PodInfo; old?: PodInfo } {
    const cur = this.assigned.get(key);
    const counts = pod && pod.spec?.nodeName && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed' && !isSimulatedSystemPod(pod);
    if (!counts) {
      if (!cur) return { change: 'none' };
      // A reservation stays while its pod is still pending (the gang code forgets it when the pod goes).
      if (cur.rv === assumedRv && pod && !pod.spec?.nodeName && !pod.metadata?.deletionTimestamp && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed') {
        return { change: 'none' };
      }
      this.drop(key, cur.pi, cur.node);
      return { change: 'removed', old: cur.pi };
    }
    const rv = pod.metadata?.resourceVersion ?? '';
    const node = pod.spec!.nodeName!;
    if (cur && cur.rv === rv && cur.pi.uid === pod.metadata?.uid) return { change: 'none', pi: cur.pi };
    if (cur && cur.rv !== assumedRv && cur.node === node && sameSchedulingInputs(cur.pi, pod)) {
      // A status write (the kubelet's, most often): the counts stay, the PodInfo follows the object.
      cur.pi.pod = pod;
      cur.pi.startMs = startMsOf(pod);
      cur.rv = rv;
      return { change: 'updated', pi: cur.pi, old: cur.pi };
    }
    const pi = buildPodInfo(pod);
    if (cur) this.drop(key, cur.pi, cur.node);
    const n = this.info(node);
    n.addPod(pi);
    this.index.add(pi, n);
    this.assigned.set(key, { pi, node, rv });
    return { change: cur ? 'updated' : 'added', pi, old: cur?.pi };
  }

  /** Counts a pending pod on `node` before it is bound (a place reserved at Permit); its binding replaces it. */
  assume(pi: PodInfo, node: string): void {
    const cur = this.assigned.get(pi.key);
    if (cur) this.drop(pi.key, cur.pi, cur.node);
    const n = this.info(node);
    n.addPod(pi);
    this.index.add(pi, n);
    this.assigned.set(pi.key, { pi, node, rv: assumedRv });
  }

  /** Drops a reservation made by `assume` (a bound pod's entry is left alone); returns whether one was dropped. */
  forget(key: string): boolean {
    const cur = this.assigned.get(key);
    if (!cur || cur.rv !== assumedRv) return false;
    this.drop(key, cur.pi, cur.node);
    return true;
  }

  private drop(key: string, pi: PodInfo, node: string): void {
    this.assigned.delete(key);
    this.index.remove(pi);
    const n = this.nodes.get(node);
    if (!n) return;
    n.removePod(pi);
    if (!n.node && n.pods.size === 0) this.nodes.delete(node);
  }

  podCount(): number {
    return this.assigned.size;
  }
}

export { podKey };

/**
 * The simulated kube-system pods (CoreDNS, kube-proxy, control-plane mirror pods, marked by src/cluster/kube-system)
 * take no place on their node: user pods schedule as if they were not there.
 */
function isSimulatedSystemPod(pod: Pod): boolean {
  return pod.metadata?.namespace === 'kube-system' && pod.metadata.annotations?.['bonsai.dev/system-pod'] === 'true';
}
