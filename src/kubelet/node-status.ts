// What a simulated kubelet reports in a Node's status: capacity and allocatable, conditions, addresses, node info.
import { createHash } from 'node:crypto';
import type { NodeCondition, NodeStatus } from '../generated/k8s/core/v1.js';
import { quantityValue } from '../machinery/resources.js';
import { rfc3339 } from '../util/clock.js';

export const kubeletVersion = 'v1.35.0';
export const kubeletPort = 10250;

/** What a node without a declared capacity gets. */
export const defaultCapacity: Record<string, string> = { cpu: '4', memory: '16Gi', pods: '110', 'ephemeral-storage': '100Gi' };

/** The kubelet's default hard eviction thresholds, which allocatable keeps back (memory.available, nodefs.available). */
const evictionMemoryBytes = 100 * 2 ** 20;
const evictionNodefsFraction = 0.1;

/** Allocatable as the kubelet computes it from capacity with no system or kube reservation. */
export function allocatableFor(capacity: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { ...capacity };
  if (capacity.memory !== undefined) {
    const bytes = Math.max(0, quantityValue(capacity.memory) - evictionMemoryBytes);
    out.memory = bytes % 1024 === 0 ? `${bytes / 1024}Ki` : String(Math.floor(bytes));
  }
  if (capacity['ephemeral-storage'] !== undefined) {
    out['ephemeral-storage'] = String(Math.floor(quantityValue(capacity['ephemeral-storage']) * (1 - evictionNodefsFraction)));
  }
  return out;
}

/** Capacity and allocatable of a node: what the object declares, standard resources filled in when missing. */
export function resourcesOf(status: NodeStatus | undefined): { capacity: Record<string, string>; allocatable: Record<string, string> } {
  const givenCap = (status?.capacity ?? {}) as Record<string, string>;
  const givenAlloc = (status?.allocatable ?? {}) as Record<string, string>;
  const capacity: Record<string, string> = { ...defaultCapacity, ...givenAlloc, ...givenCap };
  const allocatable: Record<string, string> = { ...allocatableFor(capacity), ...givenAlloc };
  return { capacity, allocatable };
}

function hex(seed: string, len: number): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, len);
}
/** A version-4 style UUID from 32 hex digits. */
function uuidOf(h: string): string {
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

type NodeInfo = NonNullable<NodeStatus['nodeInfo']>;
/** Node infos by name and boot seed: three hashes each, asked for at every status a kubelet posts. Bounded. */
const infoMemo = new Map<string, NodeInfo>();
const maxMemo = 20_000;

export function nodeInfo(name: string, bootSeed: string): NodeInfo {
  const key = `${name}\n${bootSeed}`;
  const known = infoMemo.get(key);
  if (known) return { ...known };
  const info = computeNodeInfo(name, bootSeed);
  if (infoMemo.size >= maxMemo) infoMemo.clear();
  infoMemo.set(key, info);
  return { ...info };
}

function computeNodeInfo(name: string, bootSeed: string): NodeInfo {
  // One hash of the name gives the machine ID, the system UUID and the first boot's ID (a fleet registers thousands).
  const h = createHash('sha512').update(`node:${name}`).digest('hex');
  return {
    architecture: 'amd64', operatingSystem: 'linux', osImage: 'Ubuntu 24.04.1 LTS', kernelVersion: '6.8.0-49-generic',
    containerRuntimeVersion: 'containerd://2.0.2', kubeletVersion, kubeProxyVersion: kubeletVersion,
    machineID: h.slice(0, 32), systemUUID: uuidOf(h.slice(32, 64)), bootID: uuidOf(bootSeed ? hex(`boot:${name}:${bootSeed}`, 32) : h.slice(64, 96)),
  };
}

const conditionTemplates: Array<Pick<NodeCondition, 'type' | 'status' | 'reason' | 'message'>> = [
  { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
  { type: 'DiskPressure', status: 'False', reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
  { type: 'PIDPressure', status: 'False', reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
  { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
];

/** The kubelet's conditions; transition times carry over from `current` when a condition keeps its status. */
export function healthyConditions(current: NodeCondition[] | undefined, heartbeat: Date, now: Date): NodeCondition[] {
  const beat = rfc3339(heartbeat);
  const at = rfc3339(now);
  return conditionTemplates.map((t) => {
    const old = current?.find((c) => c.type === t.type);
    const same = old && old.status === t.status;
    return { ...t, lastHeartbeatTime: beat, lastTransitionTime: same && old.lastTransitionTime ? old.lastTransitionTime : at };
  });
}

export interface StatusInput {
  name: string;
  internalIP: string;
  bootSeed: string;
  current: NodeStatus | undefined;
  heartbeat: Date;
  now: Date;
}

/** The whole status a running kubelet posts. Addresses given in the object are kept. */
export function kubeletStatus(i: StatusInput): NodeStatus {
  const { capacity, allocatable } = resourcesOf(i.current);
  const addresses = i.current?.addresses?.length ? i.current.addresses : [{ type: 'InternalIP', address: i.internalIP }, { type: 'Hostname', address: i.name }];
  return {
    ...(i.current ?? {}),
    capacity, allocatable,
    conditions: healthyConditions(i.current?.conditions, i.heartbeat, i.now),
    addresses,
    daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } },
    nodeInfo: nodeInfo(i.name, i.bootSeed),
    runtimeHandlers: [
      { name: 'runc', features: { recursiveReadOnlyMounts: true, userNamespaces: true } },
      { name: '', features: { recursiveReadOnlyMounts: true, userNamespaces: true } },
    ],
    features: { supplementalGroupsPolicy: true },
  };
}

/** The InternalIP a status reports, if any. */
export function internalIpOf(status: NodeStatus | undefined): string | undefined {
  return status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
}
