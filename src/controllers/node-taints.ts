// Taints and tolerations: matching as upstream's v1 helpers do, and writing a node controller's taints.
import type { Node, Taint } from '../generated/k8s/core/v1.js';
import type { KObject } from '../machinery/types.js';
import type { Client } from '../client/client.js';
import { rfc3339 } from '../util/clock.js';

export const taintKeys = {
  notReady: 'node.kubernetes.io/not-ready',
  unreachable: 'node.kubernetes.io/unreachable',
  unschedulable: 'node.kubernetes.io/unschedulable',
  memoryPressure: 'node.kubernetes.io/memory-pressure',
  diskPressure: 'node.kubernetes.io/disk-pressure',
  pidPressure: 'node.kubernetes.io/pid-pressure',
  networkUnavailable: 'node.kubernetes.io/network-unavailable',
  outOfService: 'node.kubernetes.io/out-of-service',
} as const;

export type TaintRef = Pick<Taint, 'key' | 'effect'>;

export const sameTaint = (a: TaintRef, b: TaintRef) => a.key === b.key && a.effect === b.effect;

export function nodeTaints(node: KObject | Node | undefined): Taint[] {
  return ((node as Node | undefined)?.spec?.taints ?? []) as Taint[];
}

/**
 * Adds `add` (stamped with timeAdded now; an existing taint with the same key and effect is kept) and removes
 * `remove` on the node through the main resource. Returns false when the node is gone.
 */
export async function swapTaints(client: Client, nodeName: string, add: TaintRef[], remove: TaintRef[]): Promise<boolean> {
  const def = client.resource('v1/nodes')!;
  if (!client.get('v1/nodes', '', nodeName)) return false;
  const now = rfc3339(client.clock.now());
  await client.guaranteedUpdate(def, '', nodeName, (cur) => {
    let taints = nodeTaints(cur).filter((t) => !remove.some((r) => sameTaint(r, t)));
    for (const a of add) {
      if (!taints.some((t) => sameTaint(t, a))) taints = [...taints, { key: a.key, effect: a.effect, timeAdded: now }];
    }
    const spec = { ...(cur.spec as Record<string, unknown>) };
    if (taints.length) spec.taints = taints;
    else delete spec.taints;
    return { ...cur, spec };
  });
  return true;
}
