// The figures metrics.k8s.io serves, computed on demand from the simulated usage of running containers, in the
// shapes and formats metrics-server produces (cpu in nanocores, memory in bytes with binary suffixes).
import type { Container, Node, Pod } from '../generated/k8s/core/v1.js';
import type { KObject } from '../machinery/types.js';
import { formatScaled, quantityValue } from '../machinery/resources.js';
import { simAnnotation } from './annotations.js';
import { containerUsage } from './usage.js';
import { rfc3339, type Clock } from '../util/clock.js';

/** What the metrics pipeline reads: stored objects by storage key and the clock (the registry's read API gives it). */
export interface MetricsReader {
  readonly clock: Clock;
  getStored(key: string, namespace: string, name: string): KObject | undefined;
  listStored(key: string, namespace?: string): KObject[];
}

/** metrics-server's default --metric-resolution: one scrape every 15 s. */
export const scrapeIntervalMs = 15_000;
/** What the system (kubelet, runtime, OS) of a node uses when no pod runs: a fixed part and a share of capacity. */
export const systemUsage = { cpuCores: 0.1, cpuShare: 0.01, memoryBytes: 256 * 2 ** 20, memoryShare: 0.02 };
/** The working set is counted in whole memory pages. */
const pageBytes = 4096;

export interface Usage {
  /** Whole nanocores. */
  nanoCores: number;
  /** Bytes. */
  bytes: number;
}

export interface ContainerMetrics {
  name: string;
  usage: { cpu: string; memory: string };
}

export interface PodMetrics extends KObject {
  timestamp: string;
  window: string;
  containers: ContainerMetrics[];
}

export interface NodeMetrics extends KObject {
  timestamp: string;
  window: string;
  usage: { cpu: string; memory: string };
}

/** A cpu quantity as resource.Quantity prints a DecimalSI value of nanocores: `123456789n`, `250m`, `2`. */
export function formatNanoCores(nanoCores: number): string {
  return formatScaled(Math.max(0, Math.round(nanoCores)), 1000, ['n', 'u', 'm', '', 'k', 'M', 'G']);
}

/** A memory quantity as resource.Quantity prints a BinarySI value: `12345Ki`, `300Mi`, or plain bytes. */
export function formatBytes(bytes: number): string {
  return formatScaled(Math.max(0, Math.round(bytes)), 1024, ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi']);
}

/** A Go duration string for a window of up to a minute (`15.042s`, `15s`). */
function formatWindow(ms: number): string {
  const whole = Math.floor(ms / 1000);
  const frac = String(ms % 1000).padStart(3, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}s` : `${whole}s`;
}

/** The last scrape before `nowMs`, and the window the scrape measured (15 s and a few ms of jitter, as scrapes drift). */
function scrape(nowMs: number, key: string): { timestamp: string; window: string } {
  const tick = Math.floor(nowMs / scrapeIntervalMs);
  let h = tick;
  for (const ch of key) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return { timestamp: rfc3339(new Date(tick * scrapeIntervalMs)), window: formatWindow(scrapeIntervalMs + (Math.abs(h) % 100)) };
}

const conditionStatus = (n: Node, type: string) => n.status?.conditions?.find((c) => c.type === type)?.status;

/** A node's kubelet answers scrapes unless it is stopped or known not to be Ready. */
export function nodeReports(node: Node): boolean {
  if (simAnnotation(node, 'nodeStopped') === 'true') return false;
  const ready = conditionStatus(node, 'Ready');
  return ready === undefined || ready === 'True';
}

/** The containers of a pod that are running now: from its status, or every app container when no status says otherwise. */
function runningContainers(pod: Pod): Container[] {
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
  if (!pod.status?.containerStatuses?.length) return pod.spec?.containers ?? [];
  const running = new Set(statuses.filter((s) => s.state?.running).map((s) => s.name));
  const sidecars = (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always');
  return [...sidecars, ...(pod.spec?.containers ?? [])].filter((c) => running.has(c.name));
}

function pageRound(bytes: number): number {
  return Math.round(bytes / pageBytes) * pageBytes;
}

/** Per-container usage of a pod that has metrics (Running, on a node whose kubelet reports); undefined otherwise. */
export function podUsageNow(reg: MetricsReader, pod: Pod): Array<{ name: string } & Usage> | undefined {
  if (pod.status?.phase !== 'Running' || !pod.spec?.nodeName) return undefined;
  const node = reg.getStored('core/nodes', '', pod.spec.nodeName);
  if (!node || !nodeReports(node)) return undefined;
  const containers = runningContainers(pod);
  if (!containers.length) return undefined;
  return containers.map((c) => {
    const u = containerUsage(pod, c);
    return { name: c.name, nanoCores: Math.round(u.cpu * 1e9), bytes: pageRound(u.memory) };
  });
}

export function podMetrics(reg: MetricsReader, pod: Pod): PodMetrics | undefined {
  const usage = podUsageNow(reg, pod);
  if (!usage) return undefined;
  const name = pod.metadata?.name ?? '';
  const ns = pod.metadata?.namespace ?? '';
  const now = reg.clock.nowMs();
  return {
    metadata: { name, namespace: ns, creationTimestamp: rfc3339(new Date(now)), ...(pod.metadata?.labels ? { labels: pod.metadata.labels } : {}) },
    ...scrape(now, `${ns}/${name}`),
    containers: usage.map((u) => ({ name: u.name, usage: { cpu: formatNanoCores(u.nanoCores), memory: formatBytes(u.bytes) } })),
  };
}

/** The summed usage of the pods running on each node (one pass over all pods). */
export function podUsageByNode(reg: MetricsReader): Map<string, Usage> {
  const out = new Map<string, Usage>();
  for (const p of reg.listStored('core/pods') as Pod[]) {
    const node = p.spec?.nodeName;
    if (!node) continue;
    for (const u of podUsageNow(reg, p) ?? []) {
      const sum = out.get(node) ?? { nanoCores: 0, bytes: 0 };
      sum.nanoCores += u.nanoCores;
      sum.bytes += u.bytes;
      out.set(node, sum);
    }
  }
  return out;
}

/** A node's usage: what its system uses plus the usage of every pod running on it. */
export function nodeUsageNow(reg: MetricsReader, node: Node, byNode = podUsageByNode(reg)): Usage | undefined {
  if (!nodeReports(node)) return undefined;
  const capacity = (node.status?.capacity ?? node.status?.allocatable ?? {}) as Record<string, unknown>;
  const pods = byNode.get(node.metadata?.name ?? '') ?? { nanoCores: 0, bytes: 0 };
  return {
    nanoCores: Math.round((systemUsage.cpuCores + quantityValue(capacity.cpu ?? 0) * systemUsage.cpuShare) * 1e9) + pods.nanoCores,
    bytes: pageRound(systemUsage.memoryBytes + quantityValue(capacity.memory ?? 0) * systemUsage.memoryShare) + pods.bytes,
  };
}

export function nodeMetrics(reg: MetricsReader, node: Node, byNode?: Map<string, Usage>): NodeMetrics | undefined {
  const usage = nodeUsageNow(reg, node, byNode);
  if (!usage) return undefined;
  const name = node.metadata?.name ?? '';
  const now = reg.clock.nowMs();
  return {
    metadata: { name, creationTimestamp: rfc3339(new Date(now)), ...(node.metadata?.labels ? { labels: node.metadata.labels } : {}) },
    ...scrape(now, name),
    usage: { cpu: formatNanoCores(usage.nanoCores), memory: formatBytes(usage.bytes) },
  };
}
