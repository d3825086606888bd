// The simulated kubelet's pod side: every pod bound to a node with a running agent goes through its lifecycle
// stages (sandbox, init containers, pull, create, start, probes, exit, restart, graceful termination).
// (Skeleton: filled in by the pod lifecycle work.)
import type { KubeletContext, NodeDirectory } from './types.js';

export class PodLifecycle {
  constructor(private readonly ctx: KubeletContext, private readonly nodes: NodeDirectory) {}
  stop(): void {}
}
