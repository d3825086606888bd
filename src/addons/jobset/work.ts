// The state one JobSet reconcile works on, shared by the controller (controller.ts) and the Job start-up steps
// (startup.ts).
import type { ChildJobs } from './child-jobs.js';
import type { StatusUpdate } from './conditions.js';
import type { EffectiveSpec } from './defaults.js';
import type { JobSet, ReplicatedJobStatus } from './types.js';

/** The state one reconcile works on: the stored JobSet with a status copy the reconcile may change. */
export interface Work {
  js: JobSet;
  spec: EffectiveSpec;
  jobs: ChildJobs;
  statuses: ReplicatedJobStatus[];
  update: StatusUpdate;
  now: Date;
}
