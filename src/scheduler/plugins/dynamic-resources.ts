// DynamicResources: a pod's ResourceClaims must exist, and those not yet allocated must be allocatable on the node
// from the ResourceSlices its drivers publish (the structured-parameters allocator in ../dra/); an allocated claim
// must be usable on the node. On binding, the allocations the chosen node got are written to the claims' status,
// with the pod in reservedFor and the delete-protection finalizer, before the pod is bound (upstream's Reserve and
// PreBind). The allocator's CEL engine loads on the first pod with claims.
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { AllocationResult, DeviceClass, ResourceClaim } from '../../generated/k8s/resource/v1.js';
import { allocate, allocatedDevices, loadDeviceCel, nodeSelectorMatches, type DeviceCel } from '../dra/index.js';
import type { Failure, FilterPlugin } from '../framework.js';
import type { NodeInfo } from '../node-info.js';

export const pluginName = 'DynamicResources';


interface State {
  /** The pod's claims, each resolved. */
  claims: ResourceClaim[];
  /** Those still to allocate. */
  pending: ResourceClaim[];
  allocated: ReadonlySet<string>;
  classes: ReadonlyMap<string, DeviceClass>;
  /** Allocations found per node, for the binding (built when read). */
  found: Map<string, { readonly allocations: AllocationResult[] }>;
}

const key = 'DynamicResources';
let cel: DeviceCel | undefined;
let loading: Promise<void> | undefined;
const unresolvable = (reason: string): Failure => ({ plugin: pluginName, code: 'UnschedulableAndUnresolvable', reasons: [reason] });

/** The name of the claim behind each of the pod's claim entries, or the reason there is none yet. */
function claimNames(pod: Pod): string[] | string {
  const out: string[] = [];
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

export const dynamicResources: FilterPlugin = {
  name: pluginName,
  preFilter(s) {
    const pod = s.pi.pod;
    const dra = s.lookups.dra;
    if (!pod.spec?.resourceClaims?.length) return;
    if (!dra) return unresolvable('resource.k8s.io is not served');
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
    const pending = claims.filter((c) => !c.status?.allocation);
    if (pending.length && !cel) {
      loading ??= loadDeviceCel().then((c) => { cel = c; });
      // Every server whose pods waited hears of it (the engine is shared by the process, the queues are not).
      void loading.then(() => dra.engineLoaded());
      return { plugin: pluginName, code: 'Unschedulable', reasons: ['waiting for the device selector engine to load'] };
    }
    const state: State = {
      claims, pending, found: new Map(),
      allocated: pending.length ? dra.allocated?.() ?? allocatedDevices(dra.claims()) : new Set(),
      classes: pending.length ? dra.classes() : new Map(),
    };
    s.data.set(key, state);
  },
  skips: (s) => !s.data.has(key),
  filter(s, n) {
    const st = s.get<State>(key);
    if (!st || !n.node) return undefined;
    for (const c of st.claims) {
      if (c.status?.allocation && !matchesNode(c.status.allocation, n)) return unresolvable('resourceclaim not available on the node');
    }
    if (!st.pending.length || !cel) return undefined;
    const out = allocate({ node: { name: n.name, labels: n.node.metadata.labels ?? {} }, slices: s.lookups.dra?.slicesFor(n.name) ?? [], classes: st.classes, claims: st.pending, allocated: st.allocated }, cel);
    if (out.ok) {
      st.found.set(n.name, out);
      return undefined;
    }
    return { plugin: pluginName, code: out.kind === 'unschedulable' ? 'Unschedulable' : 'UnschedulableAndUnresolvable', reasons: [out.message] };
  },
  preBind(s, host) {
    const st = s.get<State>(key);
    const dra = s.lookups.dra;
    if (!st || !dra) return;
    const pod = s.pi.pod;
    const mine = { resource: 'pods', name: s.pi.name, uid: pod.metadata.uid ?? '' };
    const allocations = st.found.get(host.name)?.allocations ?? [];
    st.pending.forEach((c, i) => {
      const allocation = allocations[i];
      if (!allocation) throw new Error(`no allocation of resourceclaim "${c.metadata.name}" on ${host.name}`);
      dra.reserve(c, { ...c.status, allocation, reservedFor: [...(c.status?.reservedFor ?? []), mine] });
    });
    for (const c of st.claims) {
      if (!c.status?.allocation || c.status.reservedFor?.some((r) => r.uid === mine.uid)) continue;
      dra.reserve(c, { ...c.status, reservedFor: [...(c.status.reservedFor ?? []), mine] });
    }
  },
};
