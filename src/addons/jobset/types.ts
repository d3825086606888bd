// The JobSet API (jobset.x-k8s.io/v1alpha2) as the controller reads it, and the keys it stamps on Jobs and pods.
import type { Job, JobSpec } from '../../generated/k8s/batch/v1.js';
import type { ObjectMeta } from '../../generated/k8s/meta/v1.js';
import type { Condition } from '../../machinery/conditions.js';

export const group = 'jobset.x-k8s.io';
export const version = 'v1alpha2';
export const apiVersion = `${group}/${version}`;
export const jobSetsRef = `${group}/${version}/jobsets`;
export const jobsRef = 'batch/v1/jobs';
export const servicesRef = 'v1/services';

/** `spec.managedBy` of JobSets this controller reconciles (unset means the same). */
export const controllerName = 'jobset.sigs.k8s.io/jobset-controller';

export const labels = {
  jobSetName: 'jobset.sigs.k8s.io/jobset-name',
  jobSetUid: 'jobset.sigs.k8s.io/jobset-uid',
  replicatedJobReplicas: 'jobset.sigs.k8s.io/replicatedjob-replicas',
  globalReplicas: 'jobset.sigs.k8s.io/global-replicas',
  replicatedJobName: 'jobset.sigs.k8s.io/replicatedjob-name',
  jobIndex: 'jobset.sigs.k8s.io/job-index',
  jobGlobalIndex: 'jobset.sigs.k8s.io/job-global-index',
  jobKey: 'jobset.sigs.k8s.io/job-key',
  restartAttempt: 'jobset.sigs.k8s.io/restart-attempt',
  groupName: 'jobset.sigs.k8s.io/group-name',
  groupReplicas: 'jobset.sigs.k8s.io/group-replicas',
  jobGroupIndex: 'jobset.sigs.k8s.io/job-group-index',
  coordinator: 'jobset.sigs.k8s.io/coordinator',
  exclusiveTopology: 'alpha.jobset.sigs.k8s.io/exclusive-topology',
  nodeSelectorStrategy: 'alpha.jobset.sigs.k8s.io/node-selector',
  namespacedJob: 'alpha.jobset.sigs.k8s.io/namespaced-job',
  noScheduleTaint: 'alpha.jobset.sigs.k8s.io/no-schedule',
} as const;

export type FailurePolicyAction = 'FailJobSet' | 'RestartJobSet' | 'RestartJobSetAndIgnoreMaxRestarts' | 'RestartJob' | 'RestartJobAndIgnoreMaxRestarts';

export interface FailurePolicyRule {
  name: string;
  action: FailurePolicyAction;
  onJobFailureReasons?: string[];
  onJobFailureMessagePatterns?: string[];
  targetReplicatedJobs?: string[];
}

export interface ReplicatedJob {
  name: string;
  groupName?: string;
  replicas?: number;
  template: { metadata?: ObjectMeta; spec?: JobSpec };
  dependsOn?: Array<{ name: string; status: 'Ready' | 'Complete' }>;
}

export interface JobSetSpec {
  replicatedJobs?: ReplicatedJob[];
  network?: { enableDNSHostnames?: boolean; subdomain?: string; publishNotReadyAddresses?: boolean };
  successPolicy?: { operator: 'All' | 'Any'; targetReplicatedJobs?: string[] };
  failurePolicy?: { maxRestarts?: number; restartStrategy?: 'Recreate' | 'BlockingRecreate' | 'InPlaceRestart'; rules?: FailurePolicyRule[] };
  startupPolicy?: { startupPolicyOrder: 'AnyOrder' | 'InOrder' };
  suspend?: boolean;
  coordinator?: { replicatedJob: string; jobIndex?: number; podIndex?: number };
  managedBy?: string;
  ttlSecondsAfterFinished?: number;
}

export type { Condition };

export interface ReplicatedJobStatus {
  name: string;
  ready: number;
  succeeded: number;
  failed: number;
  active: number;
  suspended: number;
  jobRestarts?: number[];
  jobRestartsCountTowardsMax?: number[];
}

export interface JobSetStatus {
  conditions?: Condition[];
  restarts?: number;
  restartsCountTowardsMax?: number;
  terminalState?: string;
  replicatedJobsStatus?: ReplicatedJobStatus[];
}

export interface JobSet {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: JobSetSpec;
  status?: JobSetStatus;
}

export type { Job };

/** Condition types, reasons and messages as upstream writes them. */
export const cond = {
  completed: 'Completed',
  failed: 'Failed',
  suspended: 'Suspended',
  restarting: 'RestartingJobSet',
  startupInProgress: 'StartupPolicyInProgress',
  startupCompleted: 'StartupPolicyCompleted',
} as const;

export const reasons = {
  reachedMaxRestarts: ['ReachedMaxRestarts', 'jobset failed due to reaching max number of restarts'],
  failedJobs: ['FailedJobs', 'jobset failed due to one or more job failures'],
  allJobsCompleted: ['AllJobsCompleted', 'jobset completed successfully'],
  inOrderInProgress: ['InOrderStartupPolicyInProgress', 'in order startup policy is in progress'],
  inOrderCompleted: ['InOrderStartupPolicyCompleted', 'in order startup policy has completed'],
  suspended: ['SuspendedJobs', 'jobset is suspended'],
  resumed: ['ResumeJobs', 'jobset is resumed'],
  failJobSet: ['FailJobSetFailurePolicyAction', 'applying FailJobSet failure policy action'],
  restartJobSet: ['RestartJobSetFailurePolicyAction', 'applying RestartJobSet failure policy action'],
  restartJobSetIgnoreMax: ['RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction', 'applying RestartJobSetAndIgnoreMaxRestarts failure policy action'],
  restartJob: ['RestartJobFailurePolicyAction', 'applying RestartJob failure policy action'],
  restartJobIgnoreMax: ['RestartJobAndIgnoreMaxRestartsFailurePolicyAction', 'applying RestartJobAndIgnoreMaxRestarts failure policy action'],
} as const;

export const jobCreationFailedReason = 'JobCreationFailed';
export const headlessServiceCreationFailedReason = 'HeadlessServiceCreationFailed';
export const restartingReasonDefault = 'DefaultFailurePolicy';
export const restartingJobsReady = ['JobsReady', 'all jobs are ready'] as const;
export const restartingJobSetFailed = ['JobSetFailed', 'jobset failed'] as const;
export const restartingJobSetCompleted = 'JobSetCompleted';
export const restartingJobSetSuspended = 'JobSetSuspended';
