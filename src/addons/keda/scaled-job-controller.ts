// The ScaledJob reconciler and its scale loop (controllers/keda/scaledjob_controller.go, executor/scale_jobs.go):
// every pollingInterval the scalers' values become a queue length; Jobs from jobTargetRef are created for it, minus
// the running ones, by the scaling strategy, up to maxReplicaCount; finished Jobs beyond the history limits go.
import type { Job } from '../../generated/k8s/batch/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { Client } from '../../client/client.js';
import { EventRecorder } from '../../client/event-recorder.js';
import { defineController } from '../../controllers/runtime/index.js';
import { ApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import type { Clock } from '../../util/clock.js';
import { rfc3339 } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { getOwn } from '../../util/own.js';
import { areInitialized, getCondition, initialConditions, setCondition } from './conditions.js';
import { combine, jobsToCreate, queueOf, type Strategy } from './job-strategy.js';
import { ScaleLoop, type Reading } from './scale-loop.js';
import { buildScalers } from './scalers/build.js';
import type { ScalerEnv } from './scalers/scaler.js';
import { needsPause, readTriggers, type Trigger } from './spec.js';
import { patchStatus } from './status.js';
import { apiVersion, defaults, jobsRef, kedaVersion, msg, podsRef, scaledJobNameLabel, scaledJobsRef, type KedaCondition, type ScaledJob, type ScaledJobStatus } from './types.js';
import { parseQuantityString } from './value-location.js';
import { splitKey } from '../../machinery/object-key.js';

const maxJobsPerPoll = 500;

interface JobSpecView {
  pollingIntervalS: number;
  minReplicaCount: number;
  maxReplicaCount: number;
  successfulLimit: number;
  failedLimit: number;
  strategy: Strategy & { pendingPodConditions: string[]; multipleScalersCalculation: string };
  triggers: Trigger[];
  jobTargetRef?: Record<string, unknown>;
}

const o = (v: unknown): object => (v && typeof v === 'object' && !Array.isArray(v) ? v : {});
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function scaledJobSpec(spec: unknown): JobSpecView {
  const s = o(spec);
  const st = o(getOwn(s, 'scalingStrategy'));
  const ppc = getOwn(st, 'pendingPodConditions');
  const jt = getOwn(s, 'jobTargetRef');
  return {
    pollingIntervalS: int(getOwn(s, 'pollingInterval')) ?? defaults.pollingIntervalS,
    minReplicaCount: int(getOwn(s, 'minReplicaCount')) ?? 0,
    maxReplicaCount: int(getOwn(s, 'maxReplicaCount')) ?? defaults.hpaMaxReplicas,
    successfulLimit: int(getOwn(s, 'successfulJobsHistoryLimit')) ?? defaults.jobsHistoryLimit,
    failedLimit: int(getOwn(s, 'failedJobsHistoryLimit')) ?? defaults.jobsHistoryLimit,
    strategy: {
      strategy: str(getOwn(st, 'strategy')) || 'default',
      customScalingQueueLengthDeduction: int(getOwn(st, 'customScalingQueueLengthDeduction')),
      customScalingRunningJobPercentage: typeof getOwn(st, 'customScalingRunningJobPercentage') === 'string' ? str(getOwn(st, 'customScalingRunningJobPercentage')) : undefined,
      pendingPodConditions: Array.isArray(ppc) ? ppc.filter((x): x is string => typeof x === 'string').slice(0, 32) : [],
      multipleScalersCalculation: str(getOwn(st, 'multipleScalersCalculation')),
    },
    triggers: readTriggers(getOwn(s, 'triggers')),
    jobTargetRef: jt && typeof jt === 'object' && !Array.isArray(jt) ? jt as Record<string, unknown> : undefined,
  };
}

const finishedType = (j: Job) => j.status?.conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type;

export const scaledJobController = defineController({
  name: 'scaledjob',
  for: scaledJobsRef,
  setup: ({ client, clock, log }) => new ScaledJobController(client, clock, log),
});

export class ScaledJobController {
  readonly events: EventRecorder;
  readonly env: ScalerEnv;
  private readonly loops = new Map<string, ScaleLoop>();

  constructor(readonly client: Client, readonly clock: Clock, readonly log: Logger) {
    this.events = new EventRecorder(client, { component: 'keda-operator' });
    this.env = { client, clock };
  }

  stop(): void {
    for (const l of this.loops.values()) l.stop();
    this.loops.clear();
  }

  private stopLoop(key: string): void {
    this.loops.get(key)?.stop();
    this.loops.delete(key);
  }

  async reconcile(key: string): Promise<void> {
    const { namespace: ns, name } = splitKey(key);
    const sj = this.client.get<ScaledJob>(scaledJobsRef, ns, name);
    if (!sj || sj.metadata.deletionTimestamp) {
      this.stopLoop(key);
      return;
    }
    const spec = scaledJobSpec(sj.spec);
    const conditions: KedaCondition[] = structuredClone(areInitialized(sj.status?.conditions) ? sj.status!.conditions! : initialConditions());
    let failure: string | undefined;
    let message = 'ScaledJob is defined correctly and is ready to scaling';
    const pausedWas = getCondition(conditions, 'Paused')?.status === 'True';
    const typesOf = [...new Set(spec.triggers.map((t) => t.type))].join(',');
    if (!spec.jobTargetRef) failure = 'ScaledJob.spec.jobTargetRef not found';
    else if (needsPause(sj.metadata.annotations)) {
      this.stopLoop(key);
      if (!pausedWas) this.events.event(sj, 'Normal', 'ScaledJobPaused', 'ScaledJob is paused');
      setCondition(conditions, 'Paused', 'True', 'ScaledJobPaused', 'ScaledJob is paused');
      message = 'ScaledJob is paused, skipping reconcile loop';
    } else {
      if (pausedWas) {
        setCondition(conditions, 'Paused', 'False', 'ScaledJobUnpaused', 'ScaledJob is unpaused');
        this.events.event(sj, 'Normal', 'ScaledJobUnpaused', 'ScaledJob is unpaused');
      }
      if (!spec.triggers.length) failure = "ScaledJob doesn't have correct triggers specification";
      else if (spec.triggers.some((t) => t.metricType !== '')) failure = 'Cannot set metricType in ScaledJob triggers';
      else {
        const gen = sj.metadata.generation ?? 0;
        const loop = this.loops.get(key);
        if (!loop || !loop.isFor(sj)) {
          try {
            const scalers = buildScalers(this.client, ns, name, spec.triggers);
            for (const b of scalers) this.events.event(sj, 'Normal', 'KEDAScalersStarted', `Scaler ${b.trigger.type} is built`);
            this.stopLoop(key);
            const l = new ScaleLoop({ clock: this.clock, log: this.log, env: this.env, check: (lp, r) => this.check(lp, r) }, key, sj.metadata.uid ?? '', gen, scalers, spec.pollingIntervalS * 1000);
            this.loops.set(key, l);
            l.start();
          } catch (err) {
            this.events.event(sj, 'Warning', 'KEDAScalerFailed', (err as Error).message);
            this.stopLoop(key);
            failure = 'Failed to ensure ScaledJob is correctly created';
          }
        }
      }
    }
    if (failure !== undefined) {
      setCondition(conditions, 'Ready', 'False', 'ScaledJobCheckFailed', failure);
      setCondition(conditions, 'Active', 'Unknown', 'UnknownState', 'ScaledJob check failed');
      this.events.event(sj, 'Warning', 'ScaledJobCheckFailed', failure);
    } else {
      if (getCondition(conditions, 'Ready')?.status !== 'True') this.events.event(sj, 'Normal', 'ScaledJobReady', msg.scaledJobReadyEvent);
      setCondition(conditions, 'Ready', 'True', 'ScaledJobReady', message);
    }
    await patchStatus<ScaledJobStatus & { Paused?: string }>(this.client, scaledJobsRef, ns, name, (s) => {
      s.conditions = conditions;
      s.triggersTypes = typesOf;
      if (getCondition(conditions, 'Paused')?.status === 'True') s.Paused = 'true';
      else delete s.Paused;
    });
  }

  private jobsOf(ns: string, name: string): Job[] {
    return this.client.list<Job>(jobsRef, ns, { labelSelector: `${scaledJobNameLabel}=${name}` });
  }

  private podsOf(job: Job): Pod[] {
    return this.client.list<Pod>(podsRef, job.metadata?.namespace, { labelSelector: `job-name=${job.metadata?.name ?? ''}` });
  }

  private isPending(job: Job, conditions: string[]): boolean {
    const pods = this.podsOf(job);
    if (conditions.length) {
      return !pods.some((p) => conditions.every((c) => p.status?.conditions?.some((pc) => pc.type === c && pc.status === 'True')));
    }
    return !pods.some((p) => p.status?.phase === 'Running' || p.status?.phase === 'Succeeded');
  }

  private async check(loop: ScaleLoop, readings: Map<number, Reading>): Promise<void> {
    const i = loop.key.indexOf('/');
    const ns = loop.key.slice(0, i), name = loop.key.slice(i + 1);
    const sj = this.client.get<ScaledJob>(scaledJobsRef, ns, name);
    if (!sj || sj.metadata.deletionTimestamp || !loop.isFor(sj)) return;
    const spec = scaledJobSpec(sj.spec);
    let isError = false;
    const queues = loop.scalers.map((b) => {
      const r = readings.get(b.index);
      if (!r || r.error !== undefined) {
        if (r?.error !== undefined) this.events.event(sj, 'Warning', 'KEDAScalerFailed', r.error);
        isError = true;
        return queueOf(0, 0, spec.maxReplicaCount, false);
      }
      const t = b.scaler.metricSpec().external?.target;
      const target = parseQuantityString(t?.averageValue ?? '') ?? 0;
      return queueOf(r.value, target, spec.maxReplicaCount, r.active);
    });
    const { isActive, queueLength, maxValue } = combine(queues, spec.strategy.multipleScalersCalculation, spec.minReplicaCount, spec.maxReplicaCount);
    const jobs = this.jobsOf(ns, name);
    const unfinished = jobs.filter((j) => !finishedType(j));
    const running = unfinished.length;
    const pending = unfinished.filter((j) => this.isPending(j, spec.strategy.pendingPodConditions)).length;
    // At most maxJobsPerPoll Jobs a round (the rest follow on later polls), so a huge maxReplicaCount cannot stall the process.
    const n = Math.min(maxJobsPerPoll, jobsToCreate(spec.strategy, spec.minReplicaCount, spec.maxReplicaCount, running, pending, queueLength, maxValue, isActive));
    if (n > 0 && spec.jobTargetRef) {
      let created = 0;
      for (let k = 0; k < n; k++) {
        try {
          await this.client.create(jobsRef, ns, this.jobFor(sj, spec.jobTargetRef));
          created++;
        } catch (err) {
          this.events.event(sj, 'Warning', 'KEDAJobCreateFailed', `Failed to create job ${name}-: ${(err as Error).message}`);
          break;
        }
      }
      this.events.event(sj, 'Normal', 'KEDAJobsCreated', `Created ${created} jobs`);
    }
    const wasActive = getCondition(sj.status?.conditions, 'Active')?.status === 'True';
    if (isActive && !wasActive) this.events.event(sj, 'Normal', 'ScaledJobActive', msg.active);
    if (!isActive && wasActive) this.events.event(sj, 'Normal', 'ScaledJobInactive', msg.notActive);
    await this.cleanUp(jobs, spec);
    await patchStatus<ScaledJobStatus>(this.client, scaledJobsRef, ns, name, (s) => {
      s.conditions ??= initialConditions();
      setCondition(s.conditions, 'Ready', 'True', 'ScaledJobReady', msg.scaledJobReady);
      if (isError) {
        if (isActive) setCondition(s.conditions, 'Ready', 'Unknown', 'PartialTriggerError', 'Some triggers defined in ScaledJob are not working correctly');
        else setCondition(s.conditions, 'Ready', 'False', 'TriggerError', 'Triggers defined in ScaledJob are not working correctly');
      }
      setCondition(s.conditions, 'Active', isActive ? 'True' : 'False', isActive ? 'ScalerActive' : 'ScalerNotActive', isActive ? msg.active : msg.notActive);
      if (isActive) s.lastActiveTime = rfc3339(this.clock.now());
    });
  }

  private jobFor(sj: ScaledJob, jobSpec: Record<string, unknown>): KObject {
    const name = sj.metadata.name ?? '';
    const spec = structuredClone(jobSpec) as { template?: { metadata?: { labels?: Record<string, string>; generateName?: string }; spec?: { restartPolicy?: string } } };
    spec.template ??= {};
    spec.template.metadata = { ...(spec.template.metadata ?? {}), generateName: `${name}-`, labels: { ...(spec.template.metadata?.labels ?? {}), [scaledJobNameLabel]: name } };
    spec.template.spec ??= {};
    if (!spec.template.spec.restartPolicy) spec.template.spec.restartPolicy = 'OnFailure';
    const labels: Record<string, string> = {
      'app.kubernetes.io/name': name, 'app.kubernetes.io/version': kedaVersion, 'app.kubernetes.io/part-of': name,
      'app.kubernetes.io/managed-by': 'keda-operator', [scaledJobNameLabel]: name, ...(sj.metadata.labels ?? {}),
    };
    return {
      apiVersion: 'batch/v1', kind: 'Job',
      metadata: {
        generateName: `${name}-`, namespace: sj.metadata.namespace, labels,
        annotations: { 'scaledjob.keda.sh/generation': String(sj.metadata.generation ?? 0), ...(sj.metadata.annotations ?? {}) },
        ownerReferences: [{ apiVersion, kind: 'ScaledJob', name, uid: sj.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
      },
      spec,
    } as KObject;
  }

  private async cleanUp(jobs: Job[], spec: JobSpecView): Promise<void> {
    const byTime = (a: Job, b: Job) => Date.parse(a.status?.completionTime ?? '') - Date.parse(b.status?.completionTime ?? '') || 0;
    for (const [type, limit] of [['Complete', spec.successfulLimit], ['Failed', spec.failedLimit]] as const) {
      const done = jobs.filter((j) => finishedType(j) === type).sort(byTime);
      for (const j of done.slice(0, Math.max(0, done.length - Math.max(0, limit)))) {
        try {
          await this.client.delete(jobsRef, j.metadata?.namespace ?? '', j.metadata?.name ?? '', { propagationPolicy: 'Background' });
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 404)) throw err;
        }
      }
    }
  }
}
