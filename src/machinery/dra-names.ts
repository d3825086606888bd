// Names the DRA components agree on: the scheduler's finalizer on the claims it allocates (the resourceclaim
// controller removes it on deallocation), the annotation tying a generated claim to its pod's claim entry, and the
// simulated GPU driver with the extended resource that counts the same GPUs.
export const claimFinalizer = 'resource.kubernetes.io/delete-protection';
export const podClaimAnnotation = 'resource.kubernetes.io/pod-claim-name';
/**
 * The simulated GPU driver, and the extended resource the simulated kubelet advertises for the same GPUs (as NVIDIA's
 * device plugin would): a node's `nvidia.com/gpu` capacity and the driver's whole-GPU devices are one set of GPUs.
 */
export const simulatedGpuDriver = 'gpu.bonsai.dev';
export const gpuResourceName = 'nvidia.com/gpu';
