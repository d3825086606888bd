// A JobSet's Jobs sorted the way the controller acts on them: Jobs of an earlier restart attempt (to delete), and of
// the current attempt active, complete or failed; and the per-replicated-job counts the status reports.
import type { Job, JobCondition } from '../../generated/k8s/batch/v1.js';
import type { EffectiveSpec } from './defaults.js';
import { jobRestartAttemptKey } from './jobs.js';
import { labels as L, type JobSet, type ReplicatedJobStatus } from './types.js';

export interface ChildJobs {
  active: Job[];
  successful: Job[];
  failed: Job[];
  /** Jobs of an earlier restart (global or their own): deleted before their successors are created. */
  previous: Job[];
}

const label = (j: Job, key: string) => {
  const l = j.metadata?.labels;
  return l && Object.hasOwn(l, key) ? l[key] : undefined;
};

/** The Job's Complete or Failed condition type when one is True. */
export function finishedType(job: Job): 'Complete' | 'Failed' | undefined {
  for (const c of job.status?.conditions ?? []) {
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.type;
  }
  return undefined;
}

export function failureCondition(job: Job): JobCondition | undefined {
  return job.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
}

/** The restart counts of one replicated job's Jobs by index (zeros when none recorded). */
export function jobRestartsOf(js: JobSet, spec: EffectiveSpec, rjob: string, field: 'jobRestarts' | 'jobRestartsCountTowardsMax' = 'jobRestarts'): number[] {
  const replicas = spec.replicatedJobs.find((r) => r.name === rjob)?.replicas ?? 0;
  const recorded = js.status?.replicatedJobsStatus?.find((s) => s.name === rjob)?.[field];
  const out = new Array<number>(replicas).fill(0);
  recorded?.forEach((n, i) => {
    if (i < replicas) out[i] = n;
  });
  return out;
}

export function classify(js: JobSet, spec: EffectiveSpec, jobs: Job[]): ChildJobs {
  const out: ChildJobs = { active: [], successful: [], failed: [], previous: [] };
  const restarts = js.status?.restarts ?? 0;
  for (const job of jobs) {
    const attempt = Number(label(job, L.restartAttempt));
    if (!Number.isInteger(attempt) || attempt < restarts) {
      out.previous.push(job);
      continue;
    }
    const rjob = label(job, L.replicatedJobName) ?? '';
    const index = Number(label(job, L.jobIndex));
    const own = label(job, jobRestartAttemptKey);
    if (own !== undefined && Number.isInteger(index)) {
      const target = jobRestartsOf(js, spec, rjob)[index];
      if (target === undefined || Number(own) < target) {
        out.previous.push(job);
        continue;
      }
    }
    const t = finishedType(job);
    if (t === 'Complete') out.successful.push(job);
    else if (t === 'Failed') out.failed.push(job);
    else out.active.push(job);
  }
  return out;
}

/** Per replicated job: Jobs ready (all their pods ready or succeeded), active, suspended, succeeded and failed. */
export function replicatedJobStatuses(js: JobSet, spec: EffectiveSpec, jobs: ChildJobs): ReplicatedJobStatus[] {
  const byName = new Map<string, ReplicatedJobStatus>();
  for (const rj of spec.replicatedJobs) {
    const prev = js.status?.replicatedJobsStatus?.find((s) => s.name === rj.name);
    const s: ReplicatedJobStatus = { name: rj.name, ready: 0, succeeded: 0, failed: 0, active: 0, suspended: 0 };
    if (prev?.jobRestarts) s.jobRestarts = prev.jobRestarts;
    if (prev?.jobRestartsCountTowardsMax) s.jobRestartsCountTowardsMax = prev.jobRestartsCountTowardsMax;
    byName.set(rj.name, s);
  }
  const of = (j: Job) => byName.get(label(j, L.replicatedJobName) ?? '');
  for (const job of jobs.active) {
    const s = of(job);
    if (!s) continue;
    let pods = job.spec?.parallelism ?? 1;
    if (job.spec?.completions != null && job.spec.completions < pods) pods = job.spec.completions;
    if ((job.status?.succeeded ?? 0) + (job.status?.ready ?? 0) >= pods) s.ready++;
    if ((job.status?.active ?? 0) > 0) s.active++;
    if (job.spec?.suspend) s.suspended++;
  }
  for (const job of jobs.successful) {
    const s = of(job);
    if (s) s.succeeded++;
  }
  for (const job of jobs.failed) {
    const s = of(job);
    if (s) s.failed++;
  }
  return [...byName.values()];
}

/** All replicas of the replicated job have started: each is ready, succeeded or failed. */
export function allReplicasStarted(replicas: number, s: ReplicatedJobStatus | undefined): boolean {
  return !!s && replicas === s.failed + s.ready + s.succeeded;
}

/** Every dependency of the replicated job has reached its status (Ready: started; Complete: all succeeded). */
export function dependenciesReached(deps: Array<{ name: string; status: string }> | undefined, replicas: Map<string, number>, statuses: ReplicatedJobStatus[]): boolean {
  for (const d of deps ?? []) {
    const s = statuses.find((x) => x.name === d.name);
    if (!s) return false;
    const want = replicas.get(d.name);
    if (d.status === 'Complete' && want !== s.succeeded) return false;
    if (d.status === 'Ready' && want !== s.failed + s.ready + s.succeeded) return false;
  }
  return true;
}
