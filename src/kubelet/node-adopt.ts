// A kubelet process restarting on nodes it already ran (a restart of Bonsai on its data dir): what the previous run
// left in the Node status and the node's Lease is taken over instead of being written again at once, so thousands
// of node agents starting together do not write thousands of statuses and Leases in the same instant. A status that
// is still what the kubelet reports (heartbeat aside) and fresh is next reported when its report period ends; a Lease
// still valid is renewed at a random point of the renewal interval (the fleet's renewals spread as upstream's jitter
// spreads them). Anything stale, changed or missing is written at once, as a fresh start does.
import type { Lease } from '../generated/k8s/coordination/v1.js';
import type { Node, NodeStatus } from '../generated/k8s/core/v1.js';
import type { KObject } from '../machinery/types.js';
import { kubeletStatus } from './node-status.js';

export interface AdoptedNode {
  /** Clock ms at which the adopted status is due for its periodic report. */
  nextReportMs: number;
}

/**
 * Whether the stored status can be kept as it is: Ready, posted by this kubelet less than `reportMs` ago, and equal to
 * what the kubelet would report now with the same heartbeat. Returns when the next report falls due.
 */
export function adoptNodeStatus(node: KObject, id: { name: string; internalIP: string; bootSeed: string }, nowMs: number, reportMs: number): AdoptedNode | undefined {
  const current = (node as Node).status as NodeStatus | undefined;
  const ready = current?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True' || !ready.lastHeartbeatTime) return undefined;
  const beatMs = Date.parse(ready.lastHeartbeatTime);
  if (!(beatMs <= nowMs) || nowMs - beatMs >= reportMs) return undefined;
  const kept = kubeletStatus({ name: id.name, internalIP: id.internalIP, bootSeed: id.bootSeed, current, heartbeat: new Date(beatMs), now: new Date(nowMs) });
  if (JSON.stringify(kept) !== JSON.stringify(current)) return undefined;
  return { nextReportMs: beatMs + reportMs };
}

/**
 * When a node's stored Lease, held by its kubelet, still runs for more than `spreadMs`: the first renewal after the
 * restart is put at a random point of the next `spreadMs` (undefined: renew at once).
 */
export function adoptLease(lease: KObject | undefined, holder: string, nowMs: number, spreadMs: number): number | undefined {
  const spec = (lease as Lease | undefined)?.spec;
  if (!spec || spec.holderIdentity !== holder || !spec.renewTime || !spec.leaseDurationSeconds) return undefined;
  const renewedMs = Date.parse(spec.renewTime);
  if (!(renewedMs <= nowMs) || renewedMs + spec.leaseDurationSeconds * 1000 <= nowMs + spreadMs) return undefined;
  return nowMs + Math.floor(Math.random() * spreadMs) + 1;
}
