// Provisioning as a simulation: where would these pods go, on the nodes there are (and those launching) and on
// NodeClaims the NodePools could create? Pods go largest first; each tries the existing nodes, then the claims
// planned so far, then a new claim from the NodePools by descending weight (within their limits). A claim keeps
// every instance type that still fits all its pods, so packing continues until the largest type is full; the
// launch then takes the cheapest type and offering left. The provisioner launches the plans; the disruption half
// asks whether a node's pods fit elsewhere (with maxNewClaims 0 or 1).
import type { Pod } from '../../../generated/k8s/core/v1.js';
import { amounts, type ResourceAmounts } from '../../../machinery/resources.js';
import { getOwn, setOwn } from '../../../util/own.js';
import type { InstanceType } from '../catalog.js';
import { labels as wk, type NodePool } from '../types.js';
import { cheapestOffering, fits, minValuesMet, podData, sum, tolerated, typeCompatible, typeData, type PodData } from './fit.js';
import { add, fromLabels, fromNodeSelector, incompatibility, matchesLabels, merge, requirement, type Requirements } from './requirements.js';
import { antiAffinityAllows, spreadsOf, Topology } from './topology.js';
import type { ClaimPlan, SimInput, SimNode, SimResult } from './types.js';

export type { ClaimPlan, SimInput, SimNode, SimResult } from './types.js';

interface Draft {
  id: string;
  pool: NodePool;
  reqs: Requirements;
  types: InstanceType[];
  requests: ResourceAmounts;
  pods: Pod[];
  /** The largest allocatable of each resource among `types` (a quick "cannot fit" test). */
  maxAlloc?: ResourceAmounts;
}

function maxAllocOf(types: readonly InstanceType[]): ResourceAmounts {
  const out: ResourceAmounts = {};
  for (const t of types) for (const [k, v] of Object.entries(typeData(t).allocatable)) setOwn(out, k, Math.max(amt(out, k), v));
  return out;
}

interface PoolInfo {
  pool: NodePool;
  reqs: Requirements;
  types: InstanceType[];
  overhead: ResourceAmounts;
  limits?: ResourceAmounts;
}

const amt = (m: ResourceAmounts | undefined, k: string) => (m ? (getOwn(m, k) as number | undefined) ?? 0 : 0);

/** The requirements a NodePool's template puts on its claims: its requirements, its labels, its own name. */
export function poolRequirements(pool: NodePool): Requirements {
  const reqs = merge(fromNodeSelector(pool.spec?.template?.spec?.requirements), fromLabels(pool.spec?.template?.metadata?.labels));
  add(reqs, requirement({ key: wk.nodePool, operator: 'In', values: [pool.metadata.name ?? ''] }));
  return reqs;
}

function poolOrder(a: NodePool, b: NodePool): number {
  return (b.spec?.weight ?? 0) - (a.spec?.weight ?? 0) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
}

function bySizeDescending(a: PodData, b: PodData): number {
  return amt(b.requests, 'cpu') - amt(a.requests, 'cpu') || amt(b.requests, 'memory') - amt(a.requests, 'memory') || a.key.localeCompare(b.key);
}

export function simulate(input: SimInput): SimResult {
  const { catalog } = input;
  const zones = [...new Set(catalog.all().flatMap((t) => t.offerings.map((o) => o.zone)))].sort();
  const topology = new Topology(input.nodes, zones);
  const pools: PoolInfo[] = [...input.pools].sort(poolOrder).filter((p) => !p.metadata.deletionTimestamp).map((pool) => {
    const reqs = poolRequirements(pool);
    const types = catalog.all().filter((t) => typeCompatible(t, reqs));
    const taints = pool.spec?.template?.spec?.taints ?? [];
    let overhead: ResourceAmounts = {};
    for (const ds of input.daemonSets ?? []) {
      const d = podData(ds);
      if (tolerated(taints, d.tolerations) && d.options.some((o) => !incompatibility(reqs, o))) overhead = sum(overhead, d.requests);
    }
    return { pool, reqs, types, overhead, limits: pool.spec?.limits ? amounts(pool.spec.limits) : undefined };
  });
  const used = new Map<string, ResourceAmounts>();
  for (const n of input.nodes) {
    let u: ResourceAmounts = {};
    for (const p of n.pods) u = sum(u, podData(p).requests);
    used.set(n.name, u);
  }
  const existing = new Map<string, Pod[]>();
  const drafts: Draft[] = [];
  const failures = new Map<string, string>();
  const maxNew = input.maxNewClaims ?? Infinity;

  const onNode = (d: PodData): boolean => {
    const spreads = spreadsOf(d.pod);
    for (const n of input.nodes) {
      if (n.unschedulable || !tolerated(n.taints, d.tolerations)) continue;
      const u = used.get(n.name)!;
      if (!fits(n.allocatable, u, d.requests)) continue;
      if (!d.options.some((o) => matchesLabels(o, n.labels))) continue;
      const zone = getOwn(n.labels, wk.zone) as string | undefined;
      if (spreads.length && !topology.allows(spreads, d.options[0]!, zone, n.name, false)) continue;
      const here = existing.get(n.name) ?? [];
      if (!antiAffinityAllows(d.pod, [...n.pods, ...here])) continue;
      used.set(n.name, sum(u, d.requests));
      here.push(d.pod);
      existing.set(n.name, here);
      topology.record(d.pod, zone, n.name);
      return true;
    }
    return false;
  };

  /** Tries the pod on a draft; on success the draft is updated and true returned, else a reason. */
  const tryDraft = (draft: Draft, d: PodData, isNew: boolean): true | string => {
    if (!tolerated(draft.pool.spec?.template?.spec?.taints, d.tolerations)) return `incompatible with nodepool "${draft.pool.metadata.name}", did not tolerate taints`;
    if (!isNew && !fits((draft.maxAlloc ??= maxAllocOf(draft.types)), draft.requests, d.requests)) return 'full';
    if (!isNew && !antiAffinityAllows(d.pod, draft.pods)) return 'pod anti-affinity';
    const spreads = spreadsOf(d.pod);
    let reason = '';
    for (const opt of d.options) {
      const why = incompatibility(draft.reqs, opt);
      if (why) {
        reason = `incompatible with nodepool "${draft.pool.metadata.name}", incompatible requirements, ${why}`;
        continue;
      }
      const reqs = merge(draft.reqs, opt);
      let zone: string | undefined;
      const zr = reqs.get(wk.zone);
      const pinned = zr && !zr.complement && zr.values.size === 1 ? [...zr.values][0] : undefined;
      if (spreads.length) {
        if (pinned) {
          if (!topology.allows(spreads, opt, pinned, draft.id, isNew)) { reason = 'would violate topology spread constraints'; continue; }
          zone = pinned;
        } else if (spreads.some((s) => s.key === wk.zone)) {
          const candidates = zones.filter((z) => draft.types.some((t) => typeCompatible(t, merge(reqs, new Map([[wk.zone, requirement({ key: wk.zone, operator: 'In', values: [z] })]])))));
          zone = topology.pickZone(spreads, opt, candidates);
          if (!zone) { reason = 'would violate topology spread constraints'; continue; }
          add(reqs, requirement({ key: wk.zone, operator: 'In', values: [zone] }));
        }
        if (!topology.allows(spreads.filter((s) => s.key === wk.hostname), opt, zone, draft.id, isNew)) { reason = 'would violate topology spread constraints'; continue; }
      } else {
        zone = pinned;
      }
      const requests = sum(draft.requests, d.requests);
      const types = draft.types.filter((t) => fits(typeData(t).allocatable, {}, requests) && typeCompatible(t, reqs));
      if (!types.length) {
        reason = `incompatible with nodepool "${draft.pool.metadata.name}", no instance type satisfied resources ${resourcesString(requests)} and requirements`;
        continue;
      }
      if (!minValuesMet(reqs, types)) {
        reason = `incompatible with nodepool "${draft.pool.metadata.name}", minValues requirement is not met`;
        continue;
      }
      Object.assign(draft, { reqs, types, requests, maxAlloc: types.length === draft.types.length ? draft.maxAlloc : undefined });
      draft.pods.push(d.pod);
      topology.record(d.pod, zone, draft.id);
      return true;
    }
    return reason || 'incompatible';
  };

  const remaining = (info: PoolInfo): ResourceAmounts | undefined => {
    if (!info.limits) return undefined;
    const name = info.pool.metadata.name ?? '';
    const out: ResourceAmounts = {};
    const usage = input.poolUsage?.get(name);
    for (const [k, v] of Object.entries(info.limits)) {
      let left = v - amt(usage, k);
      for (const dr of drafts) if (dr.pool === info.pool) left -= Math.max(0, ...dr.types.map((t) => amt(typeData(t).capacity, k)));
      setOwn(out, k, left);
    }
    return out;
  };

  const onNewDraft = (d: PodData): true | string => {
    if (drafts.length >= maxNew) return 'no more new nodes may be created';
    if (!pools.length) return 'no nodepools found';
    const errs: string[] = [];
    for (const info of pools) {
      const left = remaining(info);
      const withinLimits = left ? info.types.filter((t) => Object.entries(left).every(([k, v]) => amt(typeData(t).capacity, k) <= v)) : info.types;
      if (!withinLimits.length) {
        errs.push(`all available instance types exceed limits for nodepool (NodePool=${info.pool.metadata.name})`);
        continue;
      }
      const draft: Draft = { id: `draft-${drafts.length}`, pool: info.pool, reqs: new Map(info.reqs), types: withinLimits, requests: { ...info.overhead }, pods: [] };
      const r = tryDraft(draft, d, true);
      if (r === true) {
        drafts.push(draft);
        return true;
      }
      if (withinLimits.length < info.types.length) {
        const unlimited: Draft = { ...draft, reqs: new Map(info.reqs), types: info.types, requests: { ...info.overhead }, pods: [] };
        if (tryDraft(unlimited, d, true) === true) {
          errs.push(`all available instance types exceed limits for nodepool (NodePool=${info.pool.metadata.name})`);
          continue;
        }
      }
      errs.push(r);
    }
    return errs.join('; ');
  };

  const pods = input.pods.map(podData).sort(bySizeDescending);
  for (const d of pods) {
    if (onNode(d)) continue;
    if (drafts.some((dr) => tryDraft(dr, d, false) === true)) continue;
    const r = onNewDraft(d);
    if (r !== true) failures.set(d.key, r);
  }
  return { existing, newClaims: drafts.map(toPlan), failures };
}

function toPlan(dr: Draft): ClaimPlan {
  const priced = dr.types.map((t) => ({ t, price: cheapestOffering(t, dr.reqs)?.price ?? Infinity }));
  priced.sort((a, b) => a.price - b.price || a.t.name.localeCompare(b.t.name));
  return { pool: dr.pool, pods: dr.pods, requirements: dr.reqs, instanceTypes: priced.map((p) => p.t), price: priced[0]?.price ?? Infinity, requests: dr.requests };
}

export function resourcesString(r: ResourceAmounts): string {
  return `{${Object.entries(r).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `"${k}":"${k === 'cpu' ? `${Math.round(v * 1000)}m` : String(Math.round(v))}"`).join(',')}}`;
}
