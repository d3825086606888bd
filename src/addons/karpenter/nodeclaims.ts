// NodeClaims from plans, and what a launched claim or node costs: the NodeClaim a ClaimPlan becomes (named
// `<nodepool>-<5 lowercase alnum>`, labels, annotations, taints, requirements and requests from the NodePool
// template and the plan, owned by the NodePool), the NodePool template hash drift compares, and prices.
import type { Node } from '../../generated/k8s/core/v1.js';
import { formatScaled, type ResourceAmounts } from '../../machinery/resources.js';
import { getOwn, setOwn } from '../../util/own.js';
import { rfc3339 } from '../../util/clock.js';
import type { Catalog } from './catalog.js';
import type { ClaimPlan } from './scheduling/types.js';
import { describeAll, singleValueLabels, type Requirements } from './scheduling/requirements.js';
import { annotations as ann, apiVersion, labels as wk, nodePoolHashVersion, type NodeClaim, type NodePool, type NodeSelectorRequirementWithMinValues } from './types.js';

/** Upstream writes at most this many instance types into a NodeClaim's requirement. */
export const maxInstanceTypesInClaim = 60;

const alnum = 'bcdfghjklmnpqrstvwxz2456789';

export function randomSuffix(n = 5): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alnum[Math.floor(Math.random() * alnum.length)];
  return s;
}

/** Quantities as the API prints them (cpu in cores -> `1500m`, memory in bytes -> `3Gi`, counts as integers). */
export function formatAmounts(a: ResourceAmounts): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(a)) {
    if (k === 'cpu') setOwn(out, k, formatScaled(Math.round(v * 1000), 1000, ['m', '']));
    else if (k === 'memory' || k === 'ephemeral-storage') setOwn(out, k, formatScaled(Math.round(v), 1024, ['', 'Ki', 'Mi', 'Gi', 'Ti']));
    else setOwn(out, k, String(Math.round(v * 1000) / 1000));
  }
  return out;
}

/** FNV-1a over a string, 64-bit, printed as decimal (the shape of upstream's hash annotation values). */
function fnv64(text: string): string {
  let h = 0xcbf29ce484222325n;
  const p = 0x100000001b3n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * p) & 0xffffffffffffffffn;
  }
  return h.toString(10);
}

function stable(v: unknown, depth = 0): unknown {
  if (depth > 32 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => stable(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) setOwn(out, k, stable(getOwn(v, k), depth + 1));
  return out;
}

/**
 * The NodePool template hash (`karpenter.sh/nodepool-hash`): the template's labels, annotations, taints, startup
 * taints, expireAfter, terminationGracePeriod and nodeClassRef. Requirements are left out: drift checks them
 * against the NodeClaim's labels instead, as upstream does.
 */
export function nodePoolHash(pool: NodePool): string {
  const t = pool.spec?.template;
  return fnv64(JSON.stringify(stable({
    labels: t?.metadata?.labels ?? {}, annotations: t?.metadata?.annotations ?? {}, taints: t?.spec?.taints ?? [], startupTaints: t?.spec?.startupTaints ?? [],
    expireAfter: t?.spec?.expireAfter ?? '720h', terminationGracePeriod: t?.spec?.terminationGracePeriod ?? '', nodeClassRef: t?.spec?.nodeClassRef ?? {},
  })));
}

function requirementsList(reqs: Requirements, plan: ClaimPlan): NodeSelectorRequirementWithMinValues[] {
  const out: NodeSelectorRequirementWithMinValues[] = [];
  for (const r of reqs.values()) {
    if (r.key === wk.instanceType) continue;
    const values = [...r.values].sort();
    let req: NodeSelectorRequirementWithMinValues;
    if (r.gt !== undefined) req = { key: r.key, operator: 'Gt', values: [String(r.gt)] };
    else if (r.lt !== undefined) req = { key: r.key, operator: 'Lt', values: [String(r.lt)] };
    else if (r.complement) req = values.length ? { key: r.key, operator: 'NotIn', values } : { key: r.key, operator: 'Exists' };
    else req = values.length ? { key: r.key, operator: 'In', values } : { key: r.key, operator: 'DoesNotExist' };
    if (r.minValues) req.minValues = r.minValues;
    out.push(req);
  }
  const itReq = reqs.get(wk.instanceType);
  const types: NodeSelectorRequirementWithMinValues = { key: wk.instanceType, operator: 'In', values: plan.instanceTypes.slice(0, maxInstanceTypesInClaim).map((t) => t.name) };
  if (itReq?.minValues) types.minValues = itReq.minValues;
  out.push(types);
  return out;
}

/** The NodeClaim a plan becomes (not yet created: the caller creates it). */
export function nodeClaimFor(plan: ClaimPlan, clockNow: Date): NodeClaim {
  const pool = plan.pool;
  const poolName = pool.metadata.name ?? '';
  const tmpl = pool.spec.template;
  const labels: Record<string, string> = { ...(tmpl.metadata?.labels ?? {}), ...singleValueLabels(plan.requirements), [wk.nodePool]: poolName };
  delete labels[wk.instanceType];
  const annotations: Record<string, string> = { ...(tmpl.metadata?.annotations ?? {}), [ann.nodePoolHash]: nodePoolHash(pool), [ann.nodePoolHashVersion]: nodePoolHashVersion };
  const spec: NodeClaim['spec'] = {
    nodeClassRef: { ...tmpl.spec.nodeClassRef },
    requirements: requirementsList(plan.requirements, plan),
    resources: { requests: formatAmounts(plan.requests) },
    expireAfter: tmpl.spec.expireAfter ?? '720h',
  };
  if (tmpl.spec.taints?.length) spec.taints = tmpl.spec.taints.map((t) => ({ ...t }));
  if (tmpl.spec.startupTaints?.length) spec.startupTaints = tmpl.spec.startupTaints.map((t) => ({ ...t }));
  if (tmpl.spec.terminationGracePeriod) spec.terminationGracePeriod = tmpl.spec.terminationGracePeriod;
  return {
    apiVersion, kind: 'NodeClaim',
    metadata: {
      name: `${poolName}-${randomSuffix()}`, labels, annotations, creationTimestamp: rfc3339(clockNow),
      ownerReferences: [{ apiVersion, kind: 'NodePool', name: poolName, uid: pool.metadata.uid ?? '', blockOwnerDeletion: true }],
    },
    spec,
  };
}

/** A short summary of a plan for logs and events. */
export function describePlan(plan: ClaimPlan): string {
  return `nodepool=${plan.pool.metadata.name} pods=${plan.pods.length} types=${plan.instanceTypes.length} cheapest=${plan.instanceTypes[0]?.name ?? '-'} price=${plan.price} requirements=${describeAll(plan.requirements)}`;
}

/**
 * The $/h of the offering a NodeClaim or Node was launched with (its instance-type, capacity-type and zone labels);
 * undefined when the catalog has no such offering (a node Karpenter does not manage, or a type the catalog lost).
 */
export function priceOf(obj: NodeClaim | Node, catalog: Catalog): number | undefined {
  const l = obj.metadata?.labels ?? {};
  const type = getOwn(l, wk.instanceType);
  if (typeof type !== 'string') return undefined;
  const it = catalog.get(type);
  const ct = getOwn(l, wk.capacityType);
  const zone = getOwn(l, wk.zone);
  const off = it?.offerings.find((o) => o.capacityType === ct && o.zone === zone);
  return off?.price;
}
