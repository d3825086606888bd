// Resource metrics as the HPA reads them from metrics.k8s.io: per pod, the sum over its containers (or one
// container) of cpu in millicores or memory in milli-bytes, stamped with the last scrape. Pods without metrics
// (not running, node not reporting) are simply absent, as they are from metrics-server.
import { formatScaled } from '../../machinery/resources.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import { scrapeIntervalMs } from '../../kubelet/metrics-data.js';
import type { Client } from '../../client/client.js';
import type { PodMetrics } from './replica-calculator.js';

export function resourceMetrics(client: Client, pods: Pod[], resource: string, container = ''): PodMetrics {
  const out: PodMetrics = new Map();
  if (resource !== 'cpu' && resource !== 'memory') throw new Error(`unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`);
  const nowMs = client.clock.nowMs();
  const timestampMs = Math.floor(nowMs / scrapeIntervalMs) * scrapeIntervalMs;
  for (const pod of pods) {
    const usage = client.services.podUsageNow(pod);
    if (!usage) continue;
    const counted = container ? usage.filter((u) => u.name === container) : usage;
    if (counted.length === 0) continue;
    let value = 0;
    for (const u of counted) value += resource === 'cpu' ? Math.ceil(u.nanoCores / 1e6) : u.bytes * 1000;
    out.set(pod.metadata?.name ?? '', { value, timestampMs, windowMs: scrapeIntervalMs });
  }
  if (out.size === 0) throw new Error(`unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`);
  return out;
}

/** A milli-unit value as resource.Quantity prints it in DecimalSI: `250m`, `1`, `64M`... */
export function formatMilli(milli: number): string {
  return formatScaled(Math.round(milli), 1000, ['m', '', 'k', 'M', 'G', 'T', 'P', 'E']);
}
