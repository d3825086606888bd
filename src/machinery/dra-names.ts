// Names the DRA components agree on: the scheduler's finalizer on the claims it allocates (the resourceclaim
// controller removes it on deallocation), and the annotation tying a generated claim to its pod's claim entry.
export const claimFinalizer = 'resource.kubernetes.io/delete-protection';
export const podClaimAnnotation = 'resource.kubernetes.io/pod-claim-name';
