// A claim's status.allocation from the devices the search took: one result per device (request or
// `request/subrequest`, driver, pool, device, adminAccess, tolerations), the configuration that applies (each
// class's config once, naming the requests that use the class, then the claim's config for requests that were
// allocated; a config naming every request names none), and the node selector the devices imply.
import type { NodeSelector, NodeSelectorTerm } from '../../generated/k8s/core/v1.js';
import type { AllocationResult, DeviceAllocationConfiguration, DeviceRequestAllocationResult, ResourceClaim } from '../../generated/k8s/resource/v1.js';
import type { RequestData } from './requests.js';
import type { Candidate } from './types.js';

export interface Pick {
  request: RequestData;
  candidate: Candidate;
}

const maxCombinedTerms = 64;

export function buildAllocation(claim: ResourceClaim, plan: RequestData[][], chosen: number[], picks: Pick[], nodeName: string): AllocationResult {
  const results = picks.map(({ request: r, candidate: c }): DeviceRequestAllocationResult => ({
    request: r.name, driver: c.id.driver, pool: c.id.pool, device: c.id.device,
    ...(r.adminAccess ? { adminAccess: true } : {}),
    ...(r.tolerations.length ? { tolerations: r.tolerations } : {}),
  }));
  const taken = plan.map((alts, i) => alts[chosen[i]]).filter((r): r is RequestData => r !== undefined);
  const config = configOf(claim, taken);
  const nodeSelector = nodeSelectorOf(picks.map((p) => p.candidate), nodeName);
  return { devices: { results, ...(config.length ? { config } : {}) }, ...(nodeSelector ? { nodeSelector } : {}) };
}

function configOf(claim: ResourceClaim, taken: RequestData[]): DeviceAllocationConfiguration[] {
  const out: DeviceAllocationConfiguration[] = [];
  const byClass = new Map<string, DeviceAllocationConfiguration[]>();
  for (const r of taken) {
    const seen = byClass.get(r.className);
    if (seen) {
      for (const c of seen) c.requests!.push(r.name);
      continue;
    }
    const added = (r.class.spec.config ?? []).map((c): DeviceAllocationConfiguration => ({ source: 'FromClass', requests: [r.name], ...(c.opaque ? { opaque: c.opaque } : {}) }));
    byClass.set(r.className, added);
    out.push(...added);
  }
  const names = new Set(taken.flatMap((r) => [r.base, r.name]));
  for (const c of claim.spec.devices?.config ?? []) {
    if (c.requests?.length && !c.requests.some((n) => names.has(n))) continue;
    out.push({ source: 'FromClaim', ...(c.requests?.length ? { requests: [...c.requests] } : {}), ...(c.opaque ? { opaque: c.opaque } : {}) });
  }
  const requestCount = claim.spec.devices?.requests?.length ?? 0;
  for (const c of out) if (c.requests && c.requests.length === requestCount) delete c.requests;
  return out;
}

/**
 * Devices of slices local to the node pin the claim to it (metadata.name); slices with a nodeSelector add their
 * terms (several selectors must all hold: their terms are combined pairwise); slices for all nodes add nothing.
 * Only slices for all nodes: no selector.
 */
function nodeSelectorOf(devices: Candidate[], nodeName: string): NodeSelector | undefined {
  let local = false;
  const selectors: NodeSelectorTerm[][] = [];
  const seen = new Set<string>();
  for (const c of devices) {
    const s = c.slice.spec.perDeviceNodeSelection ? c.device : c.slice.spec;
    if (s.nodeName) local = true;
    else if (!s.allNodes && s.nodeSelector) {
      const key = JSON.stringify(s.nodeSelector);
      if (!seen.has(key)) {
        seen.add(key);
        selectors.push(s.nodeSelector.nodeSelectorTerms);
      }
    }
  }
  const pinned: NodeSelector = { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }] };
  if (local) return pinned;
  if (!selectors.length) return undefined;
  let terms = selectors[0];
  for (const next of selectors.slice(1)) {
    // The combination grows as the product of the term counts: past a bound, the node itself is the selector.
    if (terms.length * next.length > maxCombinedTerms) return pinned;
    terms = terms.flatMap((a) => next.map((b): NodeSelectorTerm => ({
      ...(a.matchExpressions || b.matchExpressions ? { matchExpressions: [...(a.matchExpressions ?? []), ...(b.matchExpressions ?? [])] } : {}),
      ...(a.matchFields || b.matchFields ? { matchFields: [...(a.matchFields ?? []), ...(b.matchFields ?? [])] } : {}),
    })));
  }
  return { nodeSelectorTerms: terms };
}
