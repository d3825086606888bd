// Runs a kubelet agent for every Node object (configured at start-up or created through the API), all driven by
// one timer, and answers the pod lifecycle's questions about them (NodeDirectory).
import type { Node, Pod } from '../generated/k8s/core/v1.js';
import type { KObject } from '../machinery/types.js';
import type { Client } from '../client/client.js';
import type { Change } from '../client/types.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { simAnnotations } from './annotations.js';
import { NodeAgent, type StartOptions } from './node-agent.js';
import { internalIpOf } from './node-status.js';
import { indexOfPodCidr, internalIpForIndex, podCidrForIndex } from './pod-ips.js';
import type { NodeAgentView, NodeDirectory } from './types.js';
import { nodeClient } from './node-client.js';
import { BinaryHeap } from '../util/binary-heap.js';

const tickMs = 500;
const quietStartAbove = 100;
/** How many node names the manager remembers having served (see rememberServed). */
const servedNamesMax = 100_000;

/** Labels a kubelet puts on its node whatever the node declares. */
/** The labels a kubelet always puts on its Node. */
export function kubeletLabels(name: string): Record<string, string> {
  return { 'beta.kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux' };
}

export const isStopped = (node: KObject) => node.metadata.annotations?.[simAnnotations.nodeStopped] === 'true';

export class KubeletManager implements NodeDirectory {
  private readonly agents = new Map<string, NodeAgent>();
  /**
   * The timer's work: each running agent's next due time (lease renewal or status report) in a heap, and the agents
   * whose Node someone else changed. A tick takes only what is due, so an idle fleet costs nothing between renewals.
   */
  private readonly due = new BinaryHeap<{ atMs: number; agent: NodeAgent }>((a, b) => a.atMs < b.atMs);
  private readonly dirty = new Set<NodeAgent>();
  private readonly listeners = new Set<(nodeName: string) => void>();
  private readonly usedIndexes = new Set<number>();
  private nextIndex = 0;
  private readonly stops: Array<() => void> = [];
  /** Pod IPs found in pod status at start-up, by node, so restarted agents keep handing out fresh ones. */
  private podIPsAtStart: Map<string, Pod[]> | undefined;
  private readonly servedNames = new Set<string>();

  /** `serves`: the nodes this process simulates (all when unset; others belong to other processes). */
  constructor(private readonly client: Client, private readonly clock: Clock, private readonly log: Logger, private readonly serves?: (node: KObject) => boolean) {
    for (const n of client.list('v1/nodes')) this.claimIndexOf(n);
  }

  /** The client as a node's kubelet writes through it: as system:node:NAME in system:nodes. */
  nodeClient(nodeName: string): Client {
    return nodeClient(this.client, nodeName);
  }

  /** A node index (pod CIDR and InternalIP slot) nobody uses yet. */
  allocateIndex(): number {
    while (this.usedIndexes.has(this.nextIndex)) this.nextIndex++;
    this.usedIndexes.add(this.nextIndex);
    return this.nextIndex;
  }

  /** `preferred` when nobody uses it yet, else a free index. */
  claimIndex(preferred: number): number {
    if (this.usedIndexes.has(preferred)) return this.allocateIndex();
    this.usedIndexes.add(preferred);
    return preferred;
  }

  private claimIndexOf(node: KObject): void {
    const cidr = (node as Node).spec?.podCIDR;
    const i = cidr ? indexOfPodCidr(cidr) : undefined;
    if (i !== undefined) this.usedIndexes.add(i);
  }

  /** Starts agents for the nodes there are (`fresh`: how to start some of them) and follows Node changes from now on. */
  start(fresh: ReadonlyMap<string, StartOptions> = new Map()): void {
    this.podIPsAtStart = new Map();
    for (const p of this.client.list('v1/pods')) {
      const node = p.spec?.nodeName;
      if (!node || !p.status?.podIP || !p.metadata?.uid) continue;
      let list = this.podIPsAtStart.get(node);
      if (!list) this.podIPsAtStart.set(node, (list = []));
      list.push(p);
    }
    this.stops.push(this.client.watch('v1/nodes', (c) => this.onNodeChange(c)));
    const nodes = this.client.list('v1/nodes');
    // A large fleet starting at once records no kubelet start-up events: they would flood the event list.
    const quiet = nodes.length > quietStartAbove;
    // Nodes not registered just now were served by an earlier run: their fresh status and valid Lease are adopted.
    let leasesSoon = false;
    for (const n of nodes) {
      const opts = fresh.get(n.metadata.name ?? '');
      leasesSoon ||= !!opts?.leaseSoon;
      this.ensureAgent(n, { quiet, adopt: !opts, ...opts });
    }
    this.podIPsAtStart = undefined;
    this.stops.push(this.clock.setInterval(() => this.tick(), tickMs));
    if (leasesSoon) {
      // The fresh fleet's Leases, once its Nodes are written (and listed) first.
      const soon = setImmediate(() => this.tick());
      this.stops.push(() => clearImmediate(soon));
    }
  }

  agent(nodeName: string): NodeAgentView | undefined {
    const a = this.agents.get(nodeName);
    return a?.running ? a : undefined;
  }

  onAgentStarted(listener: (nodeName: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops or starts a node's kubelet and records it in the node's bonsai.dev/stopped annotation. */
  async setStopped(name: string, stopped: boolean): Promise<void> {
    const node = this.client.get('v1/nodes', '', name);
    if (!node) return;
    if (isStopped(node) !== stopped) {
      const updated = await this.client.guaranteedUpdate('v1/nodes', '', name, (cur) => {
        const annotations = { ...(cur.metadata.annotations ?? {}) };
        if (stopped) annotations[simAnnotations.nodeStopped] = 'true';
        else delete annotations[simAnnotations.nodeStopped];
        return { ...cur, metadata: { ...cur.metadata, annotations } };
      });
      this.ensureAgent(updated);
    }
  }

  private onNodeChange(c: Change): void {
    const name = c.object.metadata.name ?? '';
    if (c.type === 'DELETED') {
      const a = this.agents.get(name);
      if (a && a.uid === c.object.metadata.uid) {
        a.stop();
        this.agents.delete(name);
      }
      return;
    }
    // Work from the current object: the change may already be superseded.
    const cur = this.client.get('v1/nodes', '', name);
    if (!cur) return;
    const a = this.agents.get(name);
    if (a && a.uid === cur.metadata.uid && c.object.metadata.resourceVersion !== a.lastWrittenRv) {
      a.dirty = true;
      this.dirty.add(a);
    }
    // A Node object seen being added whose name no agent of this process has served: no pod can hold an IP of its
    // kubelet yet, so the agent is made without scanning every pod (which made each added node cost O(pods)).
    this.ensureAgent(cur, {}, c.type === 'ADDED' && !this.servedNames.has(name));
  }

  /** Creates, starts or stops the agent of a node so that it matches the node (and its stop annotation). */
  ensureAgent(node: KObject, opts: StartOptions = {}, newNode = false): void {
    const name = node.metadata.name ?? '';
    let a = this.agents.get(name);
    if (this.serves && !this.serves(node)) {
      // Another process's node (or one that no longer matches this process's selector).
      if (a) {
        a.stop();
        this.agents.delete(name);
      }
      return;
    }
    if (a && a.uid !== node.metadata.uid) {
      a.stop();
      this.agents.delete(name);
      a = undefined;
    }
    if (!a) {
      a = this.createAgent(node, newNode);
      if (!a) return;
      this.agents.set(name, a);
    }
    const stopped = isStopped(node);
    if (stopped && a.running) {
      a.stop();
      this.log.debug({ node: name }, 'kubelet stopped');
    } else if (!stopped && !a.running) {
      a.start(this.clock.nowMs(), opts);
      this.schedule(a);
      this.log.debug({ node: name }, 'kubelet started');
      for (const l of [...this.listeners]) {
        try {
          l(name);
        } catch (err) {
          this.log.warn({ err, node: name }, 'agent start listener failed');
        }
      }
    }
  }

  private createAgent(node: KObject, newNode: boolean): NodeAgent | undefined {
    const name = node.metadata.name ?? '';
    const cur = node as Node;
    let podCIDR = cur.spec?.podCIDR;
    let index = podCIDR ? indexOfPodCidr(podCIDR) : undefined;
    const labels = kubeletLabels(name);
    const missingLabels = Object.keys(labels).some((k) => cur.metadata?.labels?.[k] === undefined);
    if (!podCIDR || missingLabels) {
      // A pod CIDR (the node IPAM controller's job: one /24, set once) and the labels a kubelet always sets.
      if (!podCIDR) {
        index = this.allocateIndex();
        podCIDR = podCidrForIndex(index);
      }
      const cidr = podCIDR;
      // The agent needs nothing this write changes (its pod CIDR is the one chosen here): it starts at once, and a
      // write refused (the node deleted meanwhile, a webhook's denial) is left to the next change of the node.
      this.nodeClient(name).guaranteedUpdate('v1/nodes', '', name, (o) => ({
        ...o,
        metadata: { ...o.metadata, labels: { ...labels, ...o.metadata.labels } },
        spec: (o.spec as Node['spec'])?.podCIDR ? o.spec : { ...(o.spec as object), podCIDR: cidr, podCIDRs: [cidr] },
      })).catch((err: unknown) => this.log.debug({ err, node: name }, 'registering the node failed'));
    }
    const internalIP = internalIpOf(cur.status) ?? internalIpForIndex(index ?? this.allocateIndex());
    const agent = new NodeAgent(this.nodeClient(name), this.log, { name, uid: cur.metadata?.uid ?? '', internalIP, podCIDR });
    // The pods found at start on this node (filed by start(): each has a uid and a pod IP), else a scan.
    const atStart = this.podIPsAtStart?.get(name);
    this.rememberServed(name);
    if (atStart) for (const p of atStart) agent.adoptPodIP(p.metadata!.uid!, p.status!.podIP!);
    else if (!this.podIPsAtStart && !newNode) for (const [uid, ip] of this.scanPodIPs(name)) agent.adoptPodIP(uid, ip);
    return agent;
  }

  /** Names of nodes this process has run an agent for, the oldest forgotten past `servedNamesMax` (node churn). */
  private rememberServed(name: string): void {
    this.servedNames.delete(name);
    this.servedNames.add(name);
    if (this.servedNames.size > servedNamesMax) this.servedNames.delete(this.servedNames.values().next().value as string);
  }

  private scanPodIPs(nodeName: string): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    for (const p of this.client.list('v1/pods')) {
      if (p.spec?.nodeName === nodeName && p.status?.podIP && p.metadata?.uid) out.push([p.metadata.uid, p.status.podIP]);
    }
    return out;
  }

  /** Puts the agent's next due time in the heap (an entry whose time is no longer the agent's is dropped when popped). */
  private schedule(a: NodeAgent): void {
    if (!a.running) return;
    const atMs = a.nextDueMs();
    if (a.scheduledMs === atMs) return;
    a.scheduledMs = atMs;
    this.due.push({ atMs, agent: a });
  }

  private tickAgent(a: NodeAgent, now: number): void {
    try {
      a.tick(now);
    } catch (err) {
      this.log.warn({ err, node: a.nodeName }, 'kubelet tick failed');
    }
  }

  private tick(): void {
    const now = this.clock.nowMs();
    for (const a of this.dirty) if (this.agents.get(a.nodeName) === a && a.running) this.tickAgent(a, now);
    for (const a of this.dirty) this.schedule(a);
    this.dirty.clear();
    // Agents ticked here are scheduled again after the pass: one still due (its report waiting on an asynchronous
    // write) is ticked on the next timer, not again and again within this one.
    const ticked: NodeAgent[] = [];
    for (let top = this.due.peek(); top && top.atMs <= now; top = this.due.peek()) {
      this.due.pop();
      const a = top.agent;
      if (a.scheduledMs !== top.atMs) continue;
      a.scheduledMs = undefined;
      if (this.agents.get(a.nodeName) !== a || !a.running) continue;
      this.tickAgent(a, now);
      ticked.push(a);
    }
    for (const a of ticked) this.schedule(a);
  }

  stop(): void {
    this.stops.forEach((s) => s());
    this.stops.length = 0;
    for (const a of this.agents.values()) a.stop();
    this.agents.clear();
    this.due.clear();
    this.dirty.clear();
    this.listeners.clear();
  }
}
