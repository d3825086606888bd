// Dynamic Resource Allocation for the scheduler: the structured-parameters allocator and its helpers.
// Usage: `const cel = await loadDeviceCel();` once, then `allocate({ node, slices, classes, claims, allocated }, cel)`
// per node (synchronous), with `allocated = allocatedDevices(allocatedClaims)`; `surelyFits` with the same input answers
// the common claim without the search where it can (then allocate on the node chosen).
export { allocate } from './allocator.js';
export { loadDeviceCel, type CompiledSelector, type DeviceCel, type SelectorResult } from './cel-env.js';
export { allocatedDevices } from './claims.js';
export { nodeSelectorMatches } from './pools.js';
export { surelyFits } from './quick-fit.js';
export { allocationResultsMaxSize } from './requests.js';
export { toleratesTaint } from './constraints.js';
export { failureText } from './explain.js';
export {
  cannotAllocateAllClaims, defaultLimits, deviceKey, selectorMaxCost, selectorMaxLength,
  type AllocateInput, type AllocateOutcome, type AllocatorLimits, type AllocatorNode, type DeviceId, type FailureKind, type RequestFailure,
} from './types.js';
