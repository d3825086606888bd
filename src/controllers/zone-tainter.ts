// Rate limits for the node lifecycle controller's NoExecute tainting, one queue per zone, and the zone states
// (normal, partial or full disruption) that set those rates, as upstream's RateLimitedTimedQueue and zone logic do.
import type { Node } from '../generated/k8s/core/v1.js';

export type ZoneState = 'Initial' | 'Normal' | 'PartialDisruption' | 'FullDisruption';

export const evictionQps = 0.1;
export const secondaryEvictionQps = 0.01;
export const largeClusterThreshold = 50;
export const unhealthyZoneThreshold = 0.55;

/** The zone key upstream uses: region and zone joined with ":\0:". */
export function zoneKey(node: Node): string {
  const l = node.metadata?.labels ?? {};
  const region = l['topology.kubernetes.io/region'] ?? l['failure-domain.beta.kubernetes.io/region'] ?? '';
  const zone = l['topology.kubernetes.io/zone'] ?? l['failure-domain.beta.kubernetes.io/zone'] ?? '';
  return region || zone ? `${region}:\u0000:${zone}` : '';
}

/** Counts not-ready nodes of a zone (statuses of their Ready condition) and classifies it. */
export function computeZoneState(readyStatuses: Array<string | undefined>): { unhealthy: number; state: ZoneState } {
  let ready = 0;
  let notReady = 0;
  for (const s of readyStatuses) {
    if (s === 'True') ready++;
    else notReady++;
  }
  if (ready === 0 && notReady > 0) return { unhealthy: notReady, state: 'FullDisruption' };
  if (notReady > 2 && notReady / (notReady + ready) >= unhealthyZoneThreshold) return { unhealthy: notReady, state: 'PartialDisruption' };
  return { unhealthy: notReady, state: 'Normal' };
}

/** The tainting rate for a zone in a state. */
export function qpsFor(state: ZoneState, zoneSize: number): number {
  if (state === 'PartialDisruption') return zoneSize > largeClusterThreshold ? secondaryEvictionQps : 0;
  return evictionQps;
}

/** Node names waiting to be tainted in one zone, released at most `qps` a second (burst 1). */
export class ZoneTainter {
  private readonly queue = new Map<string, { uid: string; notBefore: number }>();
  private tokens = 1;
  private lastRefill: number;

  constructor(private qps: number, now: number) {
    this.lastRefill = now;
  }

  setQps(qps: number, now: number): void {
    this.refill(now);
    this.qps = qps;
    if (qps <= 0) this.tokens = 0;
  }

  /** Adds a node; false when it is already queued. */
  add(name: string, uid: string): boolean {
    if (this.queue.has(name)) return false;
    this.queue.set(name, { uid, notBefore: 0 });
    return true;
  }

  remove(name: string): boolean {
    return this.queue.delete(name);
  }

  private refill(now: number): void {
    if (this.qps > 0) this.tokens = Math.min(1, this.tokens + ((now - this.lastRefill) / 1000) * this.qps);
    this.lastRefill = now;
  }

  /** Offers queued nodes to `fn` while the rate allows; fn returns true when done with the node, else a retry delay. */
  process(now: number, fn: (name: string, uid: string) => true | number): void {
    this.refill(now);
    for (const [name, item] of [...this.queue]) {
      if (item.notBefore > now) continue;
      if (this.tokens < 1) return;
      this.tokens -= 1;
      const r = fn(name, item.uid);
      if (r === true) this.queue.delete(name);
      else item.notBefore = now + r;
    }
  }
}
