// An in-process registry with a manual clock, one static node agent and the pod lifecycle, for kubelet tests.
import type { Event, Pod } from '../../src/generated/k8s/core/v1.js';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ManualClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { clientFor } from '../../src/client/client.js';
import { PodLifecycle } from '../../src/kubelet/pod-lifecycle.js';
import { defaultTimings, type NodeAgentView, type NodeDirectory } from '../../src/kubelet/types.js';
import type { KObject } from '../../src/machinery/types.js';
import { setCommandRunner } from '../../src/kubelet/command-runner.js';
import { newRuntime } from '../../src/exec/index.js';

export const start = Date.UTC(2026, 0, 1, 12, 0, 0);

class StaticAgent implements NodeAgentView {
  readonly hostIP = '172.18.0.3';
  private next = 2;
  readonly ips = new Map<string, string>();
  constructor(readonly nodeName: string) {}
  allocatePodIP(uid: string): string {
    let ip = this.ips.get(uid);
    if (!ip) this.ips.set(uid, (ip = `10.244.1.${this.next++}`));
    return ip;
  }
  releasePodIP(uid: string): void {
    this.ips.delete(uid);
  }
}

export class Harness implements NodeDirectory {
  readonly clock = new ManualClock(start);
  readonly store = new SqliteStore({ path: ':memory:' });
  readonly reg: Registry;
  readonly lifecycle: PodLifecycle;
  readonly agents = new Map<string, StaticAgent>();
  private readonly listeners = new Set<(n: string) => void>();

  /** A harness with one node, node-1. */
  static async start(): Promise<Harness> {
    const h = new Harness();
    try {
      await h.addNode('node-1');
    } catch (e) {
      h.close();
      throw e;
    }
    return h;
  }

  private constructor() {
    const log = createLogger('silent');
    this.reg = new Registry(this.store, allResources, this.clock, log);
    bootstrap(this.reg);
    const runtime = newRuntime();
    setCommandRunner(this.reg, (req) => runtime.runCommand(req));
    this.lifecycle = new PodLifecycle({ client: clientFor(this.reg), clock: this.clock, log, timings: defaultTimings }, this);
  }

  agent(nodeName: string): NodeAgentView | undefined {
    return this.agents.get(nodeName);
  }
  onAgentStarted(listener: (nodeName: string) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
  startAgent(name: string): void {
    this.agents.set(name, new StaticAgent(name));
    for (const l of this.listeners) l(name);
  }
  stopAgent(name: string): void {
    this.agents.delete(name);
  }

  async addNode(name: string, allocatable: Record<string, string> = { cpu: '4', memory: '8Gi', pods: '110' }): Promise<void> {
    const def = this.reg.find('', 'v1', 'nodes')!;
    await this.reg.create(def, '', { apiVersion: 'v1', kind: 'Node', metadata: { name }, status: { capacity: allocatable, allocatable } } as KObject);
    this.agents.set(name, new StaticAgent(name));
  }

  /**
   * Lets queued hub notifications and work-queue drains run, and what yields turn by turn (a container's command hands
   * the event loop back every few ms): at least 8 turns, then on while other callbacks wait in the immediate queue.
   */
  async settle(): Promise<void> {
    for (let i = 0; i < 8 || (i < 10_000 && process.getActiveResourcesInfo().includes('Immediate')); i++) await new Promise((r) => setImmediate(r));
  }

  /** Advances the clock by `ms`, stopping at every timer so each reconcile runs at its own time. */
  async run(ms: number): Promise<void> {
    const end = this.clock.nowMs() + ms;
    await this.settle();
    for (let i = 0; i < 10_000; i++) {
      const at = this.clock.nextAt();
      if (at === undefined || at > end) break;
      this.clock.advance(Math.max(0, at - this.clock.nowMs()));
      await this.settle();
    }
    this.clock.advance(Math.max(0, end - this.clock.nowMs()));
    await this.settle();
  }

  async create(pod: Record<string, unknown>, namespace = 'default'): Promise<Pod> {
    const def = this.reg.find('', 'v1', 'pods')!;
    return await this.reg.create(def, namespace, { apiVersion: 'v1', kind: 'Pod', ...pod } as KObject);
  }

  pod(name: string, namespace = 'default'): Pod | undefined {
    return this.store.get('core/pods', namespace, name);
  }

  events(name: string): Event[] {
    return (this.store.list('core/events', 'default') as Event[]).filter((e) => e.involvedObject.name === name);
  }

  close(): void {
    this.lifecycle.stop();
    this.store.close();
  }
}

/** A pod manifest bound to node-1. */
export function podSpec(name: string, spec: Record<string, unknown>, annotations?: Record<string, string>): Record<string, unknown> {
  return { metadata: { name, ...(annotations ? { annotations } : {}) }, spec: { nodeName: 'node-1', ...spec } };
}

/** Runs `fn` with a fresh harness, closed afterwards whatever happens. */
export async function withHarness(fn: (h: Harness) => Promise<void>): Promise<void> {
  const h = await Harness.start();
  try {
    await fn(h);
  } finally {
    h.close();
  }
}
