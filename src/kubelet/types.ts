// The seams between the node agents (leases, node status, pod IPs) and the pod lifecycle simulation.
import type { Client } from '../client/client.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { ImageRegistry } from './registry/image-registry.js';

/** Delays of the simulated pod lifecycle stages, in clock milliseconds. */
export interface KubeletTimings {
  /** Scheduled -> sandbox ready (PodReadyToStartContainers) and image pull starts. */
  sandboxMs: number;
  /** Image pull (Pulling -> Pulled). */
  pullMs: number;
  /** Container create + start (Created -> Started). */
  startMs: number;
  /** How long a container of a Never/OnFailure pod runs when nothing else says so. */
  defaultRunMs: number;
}

export const defaultTimings: KubeletTimings = { sandboxMs: 50, pullMs: 200, startMs: 100, defaultRunMs: 1000 };

/** What the pod lifecycle needs from the agent of the node a pod is bound to. */
export interface NodeAgentView {
  readonly nodeName: string;
  /** The node's InternalIP, reported as the pod's hostIP. */
  readonly hostIP: string;
  /** An IP from the node's podCIDR for this pod; the same pod uid always gets the same IP until released. */
  allocatePodIP(podUid: string): string;
  /** As allocatePodIP, for a caller that does not need the address (not formatted); allocatePodIP when absent. */
  holdPodIP?(podUid: string): void;
  releasePodIP(podUid: string): void;
}

/** The running node agents, as the pod lifecycle sees them. */
export interface NodeDirectory {
  /** The running agent of a node; undefined when the node has no agent or its kubelet is stopped. */
  agent(nodeName: string): NodeAgentView | undefined;
  /** Called with a node's name whenever its agent starts (at registration and after a stop). */
  onAgentStarted(listener: (nodeName: string) => void): () => void;
}

export interface KubeletContext {
  client: Client;
  clock: Clock;
  log: Logger;
  timings: KubeletTimings;
  /** The simulated registry image pulls ask (default: the well-known images, unknown repositories pull). */
  registry?: ImageRegistry;
}
