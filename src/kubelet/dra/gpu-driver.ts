// The simulated GPU driver's kubelet plugin: when a node's kubelet starts, its pool of ResourceSlices is published
// (or replaced under a new pool generation when the node's GPUs changed), owned by the Node so that deleting the Node
// removes them; a stopped node keeps its slices, as a real driver's stay until the Node goes. The DeviceClasses its
// installation brings are created once, if absent.
import type { Logger } from 'pino';
import type { Node } from '../../generated/k8s/core/v1.js';
import type { ResourceSlice, ResourceSliceSpec } from '../../generated/k8s/resource/v1.js';
import type { Client } from '../../client/client.js';
import type { NodeDirectory } from '../types.js';
import { canonicalJson } from '../../controllers/workload/hash.js';
import { gpuDeviceClasses, gpuDriver, gpuSliceSpecs } from './gpu-slices.js';

const slicesRef = 'resource.k8s.io/v1/resourceslices';
const classesRef = 'resource.k8s.io/v1/deviceclasses';

/** A spec's text without its pool generation, to compare what is published with what should be (in any order). */
const specText = (s: ResourceSliceSpec) => canonicalJson({ ...s, pool: { ...s.pool, generation: 0 } });

export class GpuDriver {
  /** This driver's slices by node, read once and kept up to date by its own writes. */
  private byNode: Map<string, ResourceSlice[]> | undefined;
  private readonly stops: Array<() => void> = [];
  private readonly publishing = new Map<string, Promise<void>>();

  constructor(private readonly client: Client, private readonly log: Logger, nodes: NodeDirectory) {
    this.stops.push(nodes.onAgentStarted((name) => this.publish(name)));
  }

  stop(): void {
    for (const s of this.stops.splice(0)) s();
  }

  /** Creates the driver's DeviceClasses that do not exist (a user's edits of them are kept). */
  installClasses(): void {
    for (const cls of gpuDeviceClasses()) {
      if (this.client.get(classesRef, '', cls.metadata.name ?? '')) continue;
      this.client.create(classesRef, '', cls).catch((err: unknown) => this.log.debug({ err, deviceClass: cls.metadata.name }, 'device class not installed'));
    }
  }

  private slices(): Map<string, ResourceSlice[]> {
    if (!this.byNode) {
      this.byNode = new Map();
      for (const s of this.client.list<ResourceSlice>(slicesRef)) {
        if (s.spec.driver !== gpuDriver || !s.spec.nodeName) continue;
        const list = this.byNode.get(s.spec.nodeName) ?? [];
        list.push(s);
        this.byNode.set(s.spec.nodeName, list);
      }
    }
    return this.byNode;
  }

  /** Brings the node's published pool in line with its GPUs. */
  publish(nodeName: string): void {
    // One publication per node at a time: the next starts from the slices the last one made.
    const run = () => this.publishNow(nodeName).catch((err: unknown) => this.log.debug({ err, node: nodeName }, 'publishing GPU resource slices failed'));
    const prev = this.publishing.get(nodeName);
    const p = prev ? prev.then(run) : run();
    this.publishing.set(nodeName, p);
    void p.then(() => {
      if (this.publishing.get(nodeName) === p) this.publishing.delete(nodeName);
    });
  }

  private async publishNow(nodeName: string): Promise<void> {
    const node = this.client.get('v1/nodes', '', nodeName);
    if (node) await this.sync(node);
  }

  private async sync(node: Node): Promise<void> {
    const name = node.metadata.name ?? '';
    const byNode = this.slices();
    const current = byNode.get(name) ?? [];
    const generation = Math.max(0, ...current.map((s) => s.spec.pool.generation));
    const desired = gpuSliceSpecs(node, Math.max(1, generation));
    const have = current.map((s) => specText(s.spec)).sort();
    const want = desired.map(specText).sort();
    if (have.length === want.length && have.every((t, i) => t === want[i])) return;
    const next = desired.map((spec) => ({ ...spec, pool: { ...spec.pool, generation: generation + 1 } }));
    const owner = { apiVersion: 'v1', kind: 'Node', name, uid: node.metadata.uid ?? '', controller: true };
    const created = await Promise.all(next.map((spec) => this.client.create<ResourceSlice>(slicesRef, '', {
      apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: { generateName: `${name}-${gpuDriver}-`, ownerReferences: [owner] }, spec,
    })));
    for (const s of current) {
      try {
        await this.client.delete(slicesRef, '', s.metadata.name ?? '');
      } catch (err) {
        this.log.debug({ err, slice: s.metadata.name }, 'old resource slice not deleted');
      }
    }
    if (created.length) byNode.set(name, created);
    else byNode.delete(name);
    this.log.debug({ node: name, slices: created.length, generation: generation + 1 }, 'GPU resource slices published');
  }
}
