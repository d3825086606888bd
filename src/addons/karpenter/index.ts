// The Karpenter add-on (kubernetes-sigs/karpenter v1 with its kwok provider): the karpenter.sh NodePool and
// NodeClaim CRDs, the karpenter.kwok.sh KWOKNodeClass, and the controllers: provisioning, the NodeClaim lifecycle on
// a simulated cloud, NodePool/NodeClass status, termination, and (from ./disruption) consolidation and friends.
import type { Addon } from '../types.js';
import { startKarpenter } from './start.js';

export const karpenterCrds = [
  'src/addons/karpenter/crds/karpenter.sh_nodepools.yaml',
  'src/addons/karpenter/crds/karpenter.sh_nodeclaims.yaml',
  'src/addons/karpenter/crds/karpenter.kwok.sh_kwoknodeclasses.yaml',
];

export const karpenterAddon: Addon = {
  name: 'karpenter',
  crds: karpenterCrds,
  start(ctx) {
    // The controllers, and the place the disruption controller is started, are in ./start.ts.
    return startKarpenter(ctx);
  },
};

export const addon = karpenterAddon;
