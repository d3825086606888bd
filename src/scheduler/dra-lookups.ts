// What the DynamicResources plugin reads and writes through the scheduler's client: claims, slices and classes, and
// a claim's allocation and reservation (the delete-protection finalizer first, then the status).
import type { Pod } from '../generated/k8s/core/v1.js';
import type { KObject } from '../machinery/types.js';
import type { DeviceClass, ResourceClaim, ResourceSlice } from '../generated/k8s/resource/v1.js';
import type { Client } from '../client/client.js';
import { claimFinalizer } from '../machinery/dra-names.js';
import type { DraLookups } from './framework.js';
import { allocatedDevices } from './dra/index.js';

export const draClaimsRef = 'resource.k8s.io/v1/resourceclaims';
const claimsRef = draClaimsRef;
export const draSlicesRef = 'resource.k8s.io/v1/resourceslices';
export const draRefs = [claimsRef, draSlicesRef, 'resource.k8s.io/v1/deviceclasses'];
export { pluginName as draPlugin } from './plugins/dynamic-resources.js';

/**
 * The devices allocated claims hold, kept up to date claim by claim (from the claims' changes and from the
 * scheduler's own reservations, which it sees before their changes arrive: a change older than what a claim's entry
 * was last set from is skipped), so a pod's attempt does not walk every claim.
 */
class HeldDevices {
  private readonly byClaim = new Map<string, { rv: number; keys: readonly string[] }>();
  private readonly holders = new Map<string, number>();
  readonly set = new Set<string>();

  observe(claim: ResourceClaim, gone = false): void {
    const key = `${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}`;
    const rv = Number(claim.metadata.resourceVersion);
    const cur = this.byClaim.get(key);
    if (cur && rv < cur.rv) return;
    const keys = gone ? [] : [...allocatedDevices([claim])];
    for (const k of cur?.keys ?? []) {
      const n = (this.holders.get(k) ?? 1) - 1;
      if (n > 0) this.holders.set(k, n);
      else {
        this.holders.delete(k);
        this.set.delete(k);
      }
    }
    for (const k of keys) {
      this.holders.set(k, (this.holders.get(k) ?? 0) + 1);
      this.set.add(k);
    }
    if (gone) this.byClaim.delete(key);
    else this.byClaim.set(key, { rv: Number.isFinite(rv) ? rv : 0, keys });
  }
}

/** The DRA lookups, with the slices grouped by node until `invalidate` (a slice changed). */
export function draLookups(client: Client, engineLoaded: () => void): DraLookups & { invalidate(): void; claimChanged(claim: ResourceClaim, gone: boolean): void } {
  let held: HeldDevices | undefined;
  const heldDevices = () => {
    if (!held) {
      held = new HeldDevices();
      for (const c of client.list<ResourceClaim>(claimsRef)) held.observe(c);
    }
    return held;
  };
  let byNode: Map<string, ResourceSlice[]> | undefined;
  let shared: ResourceSlice[] = [];
  /** A node's slices with the shared ones, one array per node (the allocator keeps its pools per array). */
  let withShared = new Map<string, readonly ResourceSlice[]>();
  const group = () => {
    byNode = new Map();
    shared = [];
    withShared = new Map();
    for (const sl of client.list<ResourceSlice>(draSlicesRef)) {
      const node = sl.spec.nodeName;
      if (!node) shared.push(sl);
      else {
        const list = byNode.get(node);
        if (list) list.push(sl);
        else byNode.set(node, [sl]);
      }
    }
    return byNode;
  };
  return {
    invalidate: () => { byNode = undefined; },
    slicesFor(node) {
      const own = (byNode ?? group()).get(node) ?? [];
      if (!shared.length) return own;
      let all = withShared.get(node);
      if (!all) withShared.set(node, (all = [...own, ...shared]));
      return all;
    },
    nodeHasDevices: (node) => (byNode ?? group()).has(node),
    claim: (ns, name) => client.get<ResourceClaim>(claimsRef, ns, name),
    createClaim: (claim) => client.create<ResourceClaim>(claimsRef, claim.metadata.namespace ?? '', claim),
    deleteClaim: (ns, name, uid) => client.delete(claimsRef, ns, name, { preconditions: { uid } }),
    setExtendedClaimStatus(pod, status) {
      const ns = pod.metadata.namespace ?? '';
      return client.guaranteedUpdate<Pod>('v1/pods', ns, pod.metadata.name ?? '', (obj) => {
        const cur = obj as Pod;
        if (cur.metadata.uid !== pod.metadata.uid) throw new Error(`pod ${ns}/${pod.metadata.name ?? ''} was replaced`);
        const { extendedResourceClaimStatus: _old, ...rest } = cur.status ?? {};
        return { ...cur, status: { ...rest, ...(status ? { extendedResourceClaimStatus: status } : {}) } } as KObject;
      }, { subresource: 'status' });
    },
    claims: () => client.list<ResourceClaim>(claimsRef),
    allocated: () => heldDevices().set,
    claimChanged: (claim, gone) => held?.observe(claim, gone),
    classes: () => new Map(client.list<DeviceClass>('resource.k8s.io/v1/deviceclasses').map((c) => [c.metadata.name ?? '', c])),
    reserve(claim, status) {
      // Held at once unless an admission webhook is called (then once it answers): the next pod's filter sees it.
      const ns = claim.metadata.namespace ?? '';
      const name = claim.metadata.name ?? '';
      const writeStatus = (cur: ResourceClaim) => {
        const written = client.updateNowOrWait<ResourceClaim>(claimsRef, ns, name, () => ({ ...cur, status }) as KObject, { subresource: 'status' });
        if (written instanceof Promise) return written.then((c) => held?.observe(c));
        held?.observe(written);
      };
      if (!status.allocation || claim.metadata.finalizers?.includes(claimFinalizer)) return writeStatus(claim);
      const withFinalizer = { ...claim, metadata: { ...claim.metadata, finalizers: [...(claim.metadata.finalizers ?? []), claimFinalizer] } };
      const cur = client.updateNowOrWait<ResourceClaim>(claimsRef, ns, name, () => withFinalizer as KObject);
      return cur instanceof Promise ? cur.then(writeStatus) : writeStatus(cur);
    },
    engineLoaded,
    inFlight: new Map(),
  };
}
