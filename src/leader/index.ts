// Leader election (coordination.k8s.io Leases, client-go semantics) and the choice of which simulated kubelets a
// process runs.
export {
  LeaderElector, defaultLeaseDurationMs, defaultRenewDeadlineMs, defaultRetryPeriodMs,
  type LeaderCallbacks, type LeaderElectionConfig, type ElectorState,
} from './elector.js';
export { whileLeading, type LeaderGateConfig, type Stoppable } from './while-leading.js';
export { leaderIdentity } from './identity.js';
export { realClock } from './real-clock.js';
export { LeaseLock, recordOf, leaseResource, type LeaderRecord } from './lease-lock.js';
export { parseKubeletSelection, nodeFilterOf, shardOf, formatKubeletSelection, type KubeletSelection } from './kubelet-selection.js';
export { leaseNames } from './lease-names.js';
