// DynamicResources: a pod's ResourceClaims must exist, and those not yet allocated must be allocatable on the node
// from the ResourceSlices its drivers publish (the structured-parameters allocator in ../dra/; for the common claim
// its quick check, and the search only on the node chosen); an allocated claim must be usable on the node. Once a node is chosen (Reserve) the allocations it got are kept in memory as in flight,
// so that other attempts see their devices taken (a gang's pods hold places at Permit before any is bound); on
// binding (PreBind) they are written to the claims' status, with the pod in reservedFor and the delete-protection
// finalizer. Unreserve forgets what was in flight and takes back what PreBind wrote (a failed gang attempt leaves no
// allocation). Extended resources a DeviceClass maps (`nvidia.com/gpu: 1`) are allocated along with the claims on
// nodes that publish devices, through a claim PreBind creates (see dra-extended.ts). The allocator's CEL engine loads
// on the first pod that needs it.
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { AllocationResult, DeviceClass, ResourceClaim } from '../../generated/k8s/resource/v1.js';
import { allocate, allocatedDevices, failureText, loadDeviceCel, nodeSelectorMatches, surelyFits, type AllocateInput, type DeviceCel } from '../dra/index.js';
import type { DraLookups, Failure, FilterPlugin } from '../framework.js';
import type { NodeInfo } from '../node-info.js';
import { extendedClaimToCreate, extendedRequests, isExtendedDraft, mayUseExtended, type ExtendedRequests } from './dra-extended.js';
import { withCapacityGpus } from '../gpu-capacity.js';

export const pluginName = 'DynamicResources';

/** The allocations of the claims to allocate on one node. */
interface Found {
  claims: readonly ResourceClaim[];
  readonly allocations: AllocationResult[];
}

interface State {
  /** The pod's claims, each resolved. */
  claims: ResourceClaim[];
  /** Per claim: the allocation it has (written, or in flight for another pod), if any. */
  allocations: Array<AllocationResult | undefined>;
  /** The claims still to allocate. */
  pending: ResourceClaim[];
  /** `pending` and the extended-resource claim, allocated together on nodes with devices (one list for every node). */
  withExtended?: ResourceClaim[];
  /** The pod's extended resources that classes map, not yet served by a claim (allocated on nodes with devices). */
  extended?: ExtendedRequests;
  allocated: ReadonlySet<string>;
  classes: ReadonlyMap<string, DeviceClass>;
  /**
   * Allocations found per node (of `pending`, then the extended-resource claim where it applies), for Reserve and
   * PreBind; built when read. A node the quick check passed has none until Reserve allocates there.
   */
  found: Map<string, Found>;
  /** The claims PreBind wrote (for Unreserve): whether it wrote the allocation, or only the reservation; `created`: the uid of a claim it created. */
  written: Array<{ ns: string; name: string; allocation: boolean; created?: string }>;
}

const key = 'DynamicResources';
let cel: DeviceCel | undefined;
let loading: Promise<void> | undefined;
const unresolvable = (reason: string): Failure => ({ plugin: pluginName, code: 'UnschedulableAndUnresolvable', reasons: [reason] });
const claimKey = (c: ResourceClaim) => c.metadata.uid ?? '';

/** The name of the claim behind each of the pod's claim entries, or the reason there is none yet. */
function claimNames(pod: Pod): string[] | string {
  const out: string[] = [];
  const extended = pod.status?.extendedResourceClaimStatus?.resourceClaimName;
  if (extended) out.push(extended);
  for (const c of pod.spec?.resourceClaims ?? []) {
    if (c.resourceClaimName) out.push(c.resourceClaimName);
    else if (c.resourceClaimTemplateName) {
      const made = pod.status?.resourceClaimStatuses?.find((s) => s.name === c.name)?.resourceClaimName;
      if (!made) return `waiting for resource claim of pod claim "${c.name}" to be created`;
      out.push(made);
    }
  }
  return out;
}

/** An allocation without a node selector is usable anywhere; otherwise where its selector (the allocator's) selects. */
const matchesNode = (a: AllocationResult, n: NodeInfo): boolean =>
  !a.nodeSelector?.nodeSelectorTerms?.length || nodeSelectorMatches(a.nodeSelector, { name: n.name, labels: n.node?.metadata.labels ?? {} });

/** The devices claims hold, written or in flight (the lookups' kept set when they have one, plus what is in flight). */
export function heldDevices(dra: DraLookups): ReadonlySet<string> {
  const inFlight = [...dra.inFlight.values()].map((f) => f.allocation);
  const written = dra.allocated?.();
  if (!written) return allocatedDevices(dra.claims(), inFlight);
  if (!inFlight.length) return written;
  const out = new Set(written);
  for (const k of allocatedDevices([], inFlight)) out.add(k);
  return out;
}

/** What the allocator is asked on node `n`: the claims still to allocate there, or undefined when there are none. */
function allocateInput(st: State, n: NodeInfo, dra: DraLookups): AllocateInput | undefined {
  // A node without devices serves extended resources as capacity (NodeResourcesFit counts them there).
  const claims = st.withExtended && dra.nodeHasDevices(n.name) ? st.withExtended : st.pending;
  if (!claims.length || !n.node) return undefined;
  const slices = dra.slicesFor(n.name);
  // The node's GPUs that pods hold through its nvidia.com/gpu capacity are taken too (see ../gpu-capacity.ts).
  const allocated = withCapacityGpus(slices, st.allocated, n, dra);
  return { node: { name: n.name, labels: n.node.metadata.labels ?? {} }, slices, classes: st.classes, claims, allocated };
}

/**
 * The allocation on the chosen node when Filter left it to Reserve (kept for PreBind); undefined when there is
 * nothing to allocate, or should the allocator not agree (PreBind then refuses the pod, which is tried again).
 */
function allocateOn(st: State, host: NodeInfo, dra: DraLookups): Found | undefined {
  const input = allocateInput(st, host, dra);
  if (!input || !cel) return undefined;
  const out = allocate(input, cel);
  if (!out.ok) return undefined;
  const found = { claims: input.claims, allocations: out.allocations };
  st.found.set(host.name, found);
  return found;
}

export const dynamicResources: FilterPlugin = {
  name: pluginName,
  preFilter(s) {
    const pod = s.pi.pod;
    const dra = s.lookups.dra;
    const made = pod.status?.extendedResourceClaimStatus;
    const maybeExtended = !made && mayUseExtended(s.pi.requests);
    if (!pod.spec?.resourceClaims?.length && !made && !maybeExtended) return;
    if (!dra) return pod.spec?.resourceClaims?.length ? unresolvable('resource.k8s.io is not served') : undefined;
    const names = claimNames(pod);
    if (typeof names === 'string') return unresolvable(names);
    const claims: ResourceClaim[] = [];
    for (const n of names) {
      const c = dra.claim(s.pi.ns, n);
      if (!c) return unresolvable(`resourceclaim "${n}" not found`);
      if (c.metadata.deletionTimestamp) return unresolvable(`resourceclaim "${n}" is being deleted`);
      const reserved = c.status?.reservedFor ?? [];
      if (c.status?.allocation && reserved.length >= 256 && !reserved.some((r) => r.uid === pod.metadata.uid)) return unresolvable(`resourceclaim "${n}" is in use`);
      claims.push(c);
    }
    const classes = dra.classes();
    const extended = maybeExtended ? extendedRequests(pod, classes) : undefined;
    if (made) s.draExtended = new Set(made.requestMappings.map((m) => m.resourceName));
    else if (extended) s.draExtended = extended.resources;
    if (!claims.length && !extended) return;
    const allocations = claims.map((c) => c.status?.allocation ?? dra.inFlight.get(claimKey(c))?.allocation);
    const pending = claims.filter((_, i) => !allocations[i]);
    const toAllocate = pending.length || extended;
    if (toAllocate && !cel) {
      loading ??= loadDeviceCel().then((c) => { cel = c; });
      // Every server whose pods waited hears of it (the engine is shared by the process, the queues are not).
      void loading.then(() => dra.engineLoaded());
      return { plugin: pluginName, code: 'Unschedulable', reasons: ['waiting for the device selector engine to load'] };
    }
    const state: State = {
      claims, allocations, pending, extended, found: new Map(), written: [], classes,
      ...(extended ? { withExtended: [...pending, extended.claim] } : {}),
      allocated: toAllocate ? heldDevices(dra) : new Set(),
    };
    s.data.set(key, state);
  },
  skips: (s) => !s.data.has(key),
  filter(s, n) {
    const st = s.get<State>(key);
    const dra = s.lookups.dra;
    if (!st || !n.node || !dra) return undefined;
    for (const a of st.allocations) {
      if (a && !matchesNode(a, n)) return unresolvable('resourceclaim not available on the node');
    }
    const input = allocateInput(st, n, dra);
    if (!input || !cel) return undefined;
    // Most nodes the scheduler filters are never chosen: where the quick check is sure, allocation waits for Reserve.
    if (surelyFits(input, cel)) return undefined;
    const out = allocate(input, cel);
    if (out.ok) {
      st.found.set(n.name, { claims: input.claims, get allocations() { return out.allocations; } });
      return undefined;
    }
    const detail = failureText(out.message, out.requests);
    return {
      plugin: pluginName, code: out.kind === 'unschedulable' ? 'Unschedulable' : 'UnschedulableAndUnresolvable', reasons: [out.message],
      ...(detail !== out.message ? { details: [detail] } : {}),
    };
  },
  reserve(s, host) {
    const st = s.get<State>(key);
    const dra = s.lookups.dra;
    if (!st || !dra) return;
    const found = st.found.get(host.name) ?? allocateOn(st, host, dra);
    if (!found) return;
    const pod = s.pi.pod.metadata.uid ?? '';
    found.claims.forEach((c, i) => dra.inFlight.set(claimKey(c), { allocation: found.allocations[i], pod }));
  },
  async preBind(s, host) {
    const st = s.get<State>(key);
    const dra = s.lookups.dra;
    if (!st || !dra) return;
    const pod = s.pi.pod;
    const mine = { resource: 'pods', name: s.pi.name, uid: pod.metadata.uid ?? '' };
    const found = st.found.get(host.name);
    const ours = new Map(found?.claims.map((c, i) => [claimKey(c), found.allocations[i]]));
    for (const seen of st.claims) {
      // As stored now: a claim shared within a gang may have been written by a member bound before this one.
      const ns = seen.metadata.namespace ?? '';
      const name = seen.metadata.name ?? '';
      const c = dra.claim(ns, name);
      if (!c || c.metadata.uid !== seen.metadata.uid) throw new Error(`resourceclaim "${name}" is gone`);
      const k = claimKey(c);
      const reservedFor = [...(c.status?.reservedFor ?? []), mine];
      if (c.status?.allocation) {
        if (c.status.reservedFor?.some((r) => r.uid === mine.uid)) continue;
        await dra.reserve(c, { ...c.status, reservedFor });
        st.written.push({ ns, name, allocation: false });
      } else {
        const allocation = ours.get(k) ?? dra.inFlight.get(k)?.allocation;
        if (!allocation) throw new Error(`no allocation of resourceclaim "${name}" on ${host.name}`);
        await dra.reserve(c, { ...c.status, allocation, reservedFor });
        st.written.push({ ns, name, allocation: true });
      }
      dra.inFlight.delete(k);
    }
    const draft = found?.claims.find(isExtendedDraft);
    if (st.extended && draft) {
      const mappings = st.extended.mappings;
      const created = await dra.createClaim(extendedClaimToCreate(pod, draft));
      const name = created.metadata.name ?? '';
      st.written.push({ ns: s.pi.ns, name, allocation: true, created: created.metadata.uid ?? '' });
      await dra.reserve(created, { allocation: ours.get(claimKey(draft))!, reservedFor: [mine] });
      dra.inFlight.delete(claimKey(draft));
      await dra.setExtendedClaimStatus(pod, { resourceClaimName: name, requestMappings: mappings });
    }
  },
  unreserve(s) {
    const st = s.get<State>(key);
    const dra = s.lookups.dra;
    if (!st || !dra) return;
    const pod = s.pi.pod;
    const uid = pod.metadata.uid ?? '';
    for (const { claims } of st.found.values()) for (const c of claims) if (dra.inFlight.get(claimKey(c))?.pod === uid) dra.inFlight.delete(claimKey(c));
    for (const w of st.written.splice(0)) {
      try {
        // Writes whose refusal leaves things as written (see below): never waited for here.
        if (w.created) {
          settle(dra.setExtendedClaimStatus(pod, undefined));
          settle(dra.deleteClaim(w.ns, w.name, w.created));
        }
        const cur = dra.claim(w.ns, w.name);
        if (!cur?.status) continue;
        const { reservedFor: had, allocation, ...rest } = cur.status;
        const reservedFor = (had ?? []).filter((r) => r.uid !== uid);
        const keepAllocation = allocation && !(w.allocation && !reservedFor.length);
        settle(dra.reserve(cur, { ...rest, ...(keepAllocation ? { allocation } : {}), ...(reservedFor.length ? { reservedFor } : {}) }));
      } catch {
        // Left as written: the resourceclaim controller drops reservations of pods that are gone.
      }
    }
  },
};

/** A write whose refusal changes nothing for the caller (unreserve never throws): its rejection is dropped. */
function settle(write: void | Promise<unknown>): void {
  if (write) write.catch(() => undefined);
}
