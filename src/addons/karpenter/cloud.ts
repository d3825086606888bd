// The simulated "kwok cloud": launching a NodeClaim picks the cheapest instance type and offering its requirements
// and requests allow (as the kwok provider's Create does), and the instance shows up as a Node object whose name is
// the claim's, with the instance's labels, capacity and the taints a booting Karpenter node carries.
import type { Node, Taint } from '../../generated/k8s/core/v1.js';
import { amounts } from '../../machinery/resources.js';
import { instanceTypeLabels, type Catalog, type InstanceType, type Offering } from './catalog.js';
import { fits, typeCompatible, typeData } from './scheduling/fit.js';
import { fromNodeSelector, type Requirements } from './scheduling/requirements.js';
import { labels as wk, unregisteredTaint, type NodeClaim } from './types.js';
import { cheapestOffering } from './scheduling/fit.js';

export const imageId = 'kwok://bonsai-kwok-image';

export interface Launch {
  type: InstanceType;
  offering: Offering;
}

/** The cheapest (type, offering) satisfying the claim's requirements that holds its requested resources. */
export function chooseLaunch(claim: NodeClaim, catalog: Catalog): Launch | undefined {
  const reqs: Requirements = fromNodeSelector(claim.spec?.requirements);
  const requests = amounts(claim.spec?.resources?.requests as Record<string, unknown> | undefined);
  let best: Launch | undefined;
  for (const t of catalog.all()) {
    if (!fits(typeData(t).allocatable, {}, requests) || !typeCompatible(t, reqs)) continue;
    const o = cheapestOffering(t, reqs);
    if (o && (!best || o.price < best.offering.price)) best = { type: t, offering: o };
  }
  return best;
}

/** The labels a launched claim and its node carry: the claim's own, plus the instance's and the offering's. */
export function launchedLabels(claim: NodeClaim, l: Launch): Record<string, string> {
  return { ...(claim.metadata.labels ?? {}), ...instanceTypeLabels(l.type), [wk.zone]: l.offering.zone, [wk.capacityType]: l.offering.capacityType };
}

/** The Node the cloud creates for a launched claim (named as the claim; the kubelet fills in the rest). */
export function nodeFor(claim: NodeClaim): Node {
  const name = claim.metadata.name ?? '';
  const taints: Taint[] = [{ ...unregisteredTaint }, ...(claim.spec.taints ?? []).map((t) => ({ ...t })), ...(claim.spec.startupTaints ?? []).map((t) => ({ ...t }))];
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: {
      name,
      labels: { ...(claim.metadata.labels ?? {}), [wk.hostname]: name, 'kwok.x-k8s.io/node': 'fake' },
      annotations: { 'kwok.x-k8s.io/node': 'fake' },
    },
    spec: { providerID: claim.status?.providerID ?? `kwok://${name}`, taints },
    status: { capacity: { ...(claim.status?.capacity ?? {}) }, allocatable: { ...(claim.status?.allocatable ?? {}) } },
  };
}
