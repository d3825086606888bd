// Which pools a node can take devices from: the slices that target it (by nodeName, allNodes, a nodeSelector, or
// per device), grouped by driver and pool, keeping only each pool's newest generation. A pool whose newest
// generation has fewer slices than it announces is being updated and is not used; one that names a device twice
// is invalid. Counter sets come from every slice of the pool, also slices that target other nodes.
import type { NodeSelector } from '../../generated/k8s/core/v1.js';
import type { Device, ResourceSlice } from '../../generated/k8s/resource/v1.js';
import { parseQuantity } from '../../machinery/quantity.js';
import { nodeTermMatches, nodeTerms, ownLabels } from '../pod-info.js';
import { deviceKey, poolKey, type AllocatorNode, type Candidate, type PoolInfo } from './types.js';

/** True when a NodeSelector (any of its terms) selects the node. */
export function nodeSelectorMatches(sel: NodeSelector | undefined, node: AllocatorNode): boolean {
  if (!sel) return false;
  const labels = ownLabels(node.labels);
  return nodeTerms(sel.nodeSelectorTerms).some((t) => nodeTermMatches(t, labels, node.name));
}

/** Whether a slice (or, with perDeviceNodeSelection, a device) with these node fields is available on the node. */
export function targetsNode(t: { nodeName?: string; allNodes?: boolean; nodeSelector?: NodeSelector }, node: AllocatorNode): boolean {
  if (t.nodeName) return t.nodeName === node.name;
  if (t.allNodes) return true;
  return nodeSelectorMatches(t.nodeSelector, node);
}

/** A quantity as a number of base units; 0 for a value that does not parse (API validation rejects those). */
export function quantityValue(q: string | undefined): number {
  if (q === undefined) return 0;
  const r = parseQuantity(q);
  return 'value' in r ? r.value : 0;
}

/** The pools that have at least one slice targeting the node, in the order their first slice appears. */
export function gatherPools(slices: readonly ResourceSlice[], node: AllocatorNode): PoolInfo[] {
  // Newest generation per pool, over all slices (a pool spans nodes when its slices do).
  const newest = new Map<string, number>();
  for (const s of slices) {
    const k = poolKey(s.spec.driver, s.spec.pool.name);
    newest.set(k, Math.max(newest.get(k) ?? Number.NEGATIVE_INFINITY, s.spec.pool.generation));
  }
  const groups = new Map<string, ResourceSlice[]>();
  for (const s of slices) {
    const k = poolKey(s.spec.driver, s.spec.pool.name);
    if (s.spec.pool.generation !== newest.get(k)) continue;
    const g = groups.get(k);
    if (g) g.push(s);
    else groups.set(k, [s]);
  }
  const pools: PoolInfo[] = [];
  for (const [key, group] of groups) {
    const targeting = group.filter((s) => s.spec.perDeviceNodeSelection || targetsNode(s.spec, node));
    if (!targeting.length) continue;
    const first = group[0].spec;
    const pool: PoolInfo = {
      driver: first.driver, name: first.pool.name, key, generation: first.pool.generation,
      incomplete: group.length < first.pool.resourceSliceCount, candidates: [], devices: new Map(), counterSets: new Map(),
    };
    for (const s of group) {
      for (const d of s.spec.devices ?? []) {
        if (pool.devices.has(d.name)) pool.invalid ??= `duplicate device name ${d.name}`;
        pool.devices.set(d.name, d);
      }
      for (const cs of s.spec.sharedCounters ?? []) {
        if (pool.counterSets.has(cs.name)) pool.invalid ??= `duplicate counter set name ${cs.name}`;
        pool.counterSets.set(cs.name, new Map(Object.entries(cs.counters ?? {}).map(([n, c]) => [n, quantityValue(c.value)])));
      }
    }
    for (const s of targeting) {
      for (const d of s.spec.devices ?? []) {
        if (s.spec.perDeviceNodeSelection && !targetsNode(d, node)) continue;
        pool.candidates.push(candidate(d, s, pool));
      }
    }
    pools.push(pool);
  }
  return pools;
}

function candidate(device: Device, slice: ResourceSlice, pool: PoolInfo): Candidate {
  const id = { driver: pool.driver, pool: pool.name, device: device.name };
  return { id, key: deviceKey(id), device, slice, pool };
}

/** Pools by node for slice lists that target nodes by name or all nodes only (the node's labels play no part). */
const byList = new WeakMap<readonly ResourceSlice[], Map<string, PoolInfo[]>>();
const labelFree = (slices: readonly ResourceSlice[]) => slices.every((s) => !s.spec.perDeviceNodeSelection && !s.spec.nodeSelector);

/**
 * gatherPools, kept per slice list and node while the list is the same array (the scheduler's lookups hand out one
 * array per node until a slice changes); pools are read, never changed, by the allocator.
 */
export function nodePools(slices: readonly ResourceSlice[], node: AllocatorNode): PoolInfo[] {
  let perNode = byList.get(slices);
  if (!perNode) {
    if (!labelFree(slices)) return gatherPools(slices, node);
    byList.set(slices, (perNode = new Map()));
  }
  let pools = perNode.get(node.name);
  if (!pools) perNode.set(node.name, (pools = gatherPools(slices, node)));
  return pools;
}
