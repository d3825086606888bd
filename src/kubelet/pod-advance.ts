// Moves a pod's runtime record forward to the current clock time: sandbox, init containers in order, image pulls,
// container starts, probes, exits, restarts with CrashLoopBackOff, and graceful stops. Every transition happens at
// its own due time, so a late reconcile catches up exactly; the earliest future due time is returned.
import type { Container, Pod } from '../generated/k8s/core/v1.js';
import { simAnnotation } from './annotations.js';
import { containerPlan, withOutcome, type ImageOutcome } from './container-plan.js';
import type { Lookup, ScriptResult } from './command-runner.js';
import { containerID, imageSize } from './container-ids.js';
import { formatGoDurationMs } from '../util/duration.js';
import type { LogStore } from './log-store.js';
import type { ContainerRun, PodRun } from './pod-runtime.js';
import { allRuns, containerSpecs, ephemeralSpecs } from './pod-runtime.js';
import { probeFailure, probeTimes } from './probes.js';
import { probeRefused } from './probe-ports.js';
import type { KObject } from '../machinery/types.js';
import type { KubeletTimings } from './types.js';
import type { PullResult } from './registry/image-registry.js';
import { pullStageEnd } from './registry/pull-stage.js';
import { mountStage } from './pod-mount-stage.js';

export interface AdvanceContext {
  now: number;
  pod: Pod;
  timings: KubeletTimings;
  logs: LogStore;
  event(type: 'Normal' | 'Warning', reason: string, message: string, container?: ContainerRun): void;
  imagePresent(image: string): boolean;
  markPulled(image: string): void;
  /** Asks the simulated registry (and the pod's override) whether pulling a container's image works. */
  pull(image: string, container: string): PullResult;
  allocateIP(): string;
  /** The FailedMount messages of the volumes that cannot be set up now (none: every volume can). */
  mountFailures?(): string[];
  /** Why a container's environment cannot be built now (CreateContainerConfigError), or undefined. */
  configError?(spec: Container): string | undefined;
  /**
   * A container has just started (its image's effects on the API run here, see image-effects.ts); an outcome
   * overrides how the container ends (a program that fails at once when what it needs is missing).
   */
  started?(spec: Container): ImageOutcome | void;
  /** What a container's command does when started at `at` ('pending' while it runs; see command-runner.ts). */
  script?(spec: Container, at: number): Lookup;
}

const maxBackoffMs = 300_000;
const initialBackoffMs = 10_000;
const backoffResetMs = 600_000;
/** After a CreateContainerConfigError the pod's next sync comes after the pod worker's back-off (10 s). */
const configRetryMs = 10_000;

export class PodAdvancer {
  private next = Infinity;
  private changed = false;
  private readonly specs: Map<string, Container>;

  constructor(private readonly run: PodRun, private readonly ctx: AdvanceContext) {
    this.specs = new Map([...containerSpecs(ctx.pod).map(({ spec }) => spec), ...ephemeralSpecs(ctx.pod)].map((spec) => [spec.name, spec]));
  }

  private due(at: number): boolean {
    if (at <= this.ctx.now) return true;
    this.next = Math.min(this.next, at);
    return false;
  }

  /** Advances to now; returns the next due time (Infinity: nothing scheduled). */
  advance(): number {
    for (let i = 0; i < 1000; i++) {
      this.changed = false;
      this.next = Infinity;
      this.pass();
      if (!this.changed) break;
    }
    return this.next;
  }

  private pass(): void {
    const run = this.run;
    if (run.sandboxReadyMs === undefined) {
      if (run.terminating) return;
      const mount = mountStage(run, this.ctx.now, () => this.ctx.mountFailures?.() ?? [], (m) => this.ctx.event('Warning', 'FailedMount', m));
      if (!mount.mounted) return void this.due(mount.retryAtMs);
      const at = Math.max(run.firstSeenMs, run.mountedMs ?? run.firstSeenMs) + this.ctx.timings.sandboxMs;
      if (!this.due(at)) return;
      run.sandboxReadyMs = at;
      run.podIP = this.ctx.allocateIP();
      this.changed = true;
    }
    let blocked = false;
    for (const c of run.containers) {
      if (c.kind === 'main') {
        if (blocked) break;
        if (c.stage === 'waiting' && !run.terminating) this.beginStart(c, Math.max(run.sandboxReadyMs, this.initDoneAt()));
        this.step(c);
        continue;
      }
      if (blocked) continue;
      if (c.stage === 'waiting' && !run.terminating) this.beginStart(c, this.previousDoneAt(c));
      this.step(c);
      if (!this.initStepDone(c)) blocked = true;
    }
    // Ephemeral containers start as soon as they are added to a pod whose sandbox is up, whatever the others do.
    for (const c of run.ephemeral) {
      if (c.stage === 'waiting' && !run.terminating) this.beginStart(c, Math.max(run.sandboxReadyMs, c.addedAtMs ?? this.ctx.now));
      this.step(c);
    }
  }

  /** An init container let the next one start: it completed, or (a sidecar) it started. */
  initStepDone(c: ContainerRun): boolean {
    if (c.kind === 'sidecar') return c.startedAtMs !== undefined && c.startedProbeMs !== undefined && c.startedProbeMs <= this.ctx.now;
    return c.stage === 'terminated' && c.exitCode === 0;
  }

  private doneAt(c: ContainerRun): number {
    return (c.kind === 'sidecar' ? c.startedProbeMs : c.finishedAtMs) ?? this.ctx.now;
  }

  private previousDoneAt(c: ContainerRun): number {
    const idx = this.run.containers.indexOf(c);
    const prev = idx > 0 ? this.run.containers[idx - 1] : undefined;
    return Math.max(this.run.sandboxReadyMs ?? this.ctx.now, prev ? this.doneAt(prev) : 0);
  }

  private initDoneAt(): number {
    let at = 0;
    for (const c of this.run.containers) if (c.kind !== 'main') at = Math.max(at, this.doneAt(c));
    return at;
  }

  private beginStart(c: ContainerRun, at: number): void {
    const spec = this.specs.get(c.name);
    if (!spec) return;
    const image = spec.image ?? '';
    this.changed = true;
    if (spec.imagePullPolicy === 'Always' || (spec.imagePullPolicy !== 'Never' && !this.ctx.imagePresent(image))) {
      c.stage = 'pulling';
      c.pullStartMs = at;
      c.pullFailure = undefined;
      c.dueMs = at + this.pullMs(c);
      this.ctx.event('Normal', 'Pulling', `Pulling image "${image}"`, c);
      return;
    }
    this.ctx.event('Normal', 'Pulled', `Container image "${image}" already present on machine and can be accessed by the pod`, c);
    this.creating(c, at);
  }

  private creating(c: ContainerRun, at: number): void {
    const startAnn = Number(simAnnotation(this.ctx.pod, 'startSeconds', c.name));
    c.stage = 'creating';
    c.dueMs = at + (Number.isFinite(startAnn) && startAnn >= 0 ? startAnn * 1000 : this.ctx.timings.startMs);
  }

  private step(c: ContainerRun): void {
    const spec = this.specs.get(c.name);
    if (!spec) return;
    switch (c.stage) {
      case 'pulling':
        if (c.dueMs === undefined || !this.due(c.dueMs)) return;
        if (pullStageEnd(c, spec.image ?? '', c.dueMs, { event: this.ctx.event, pull: this.ctx.pull, pullMs: () => this.pullMs(c) })) {
          this.changed = true;
          return this.step(c);
        }
        c.pullBackoffMs = 0;
        this.ctx.markPulled(spec.image ?? '');
        {
          const took = formatGoDurationMs(c.dueMs - (c.pullStartMs ?? c.dueMs));
          this.ctx.event('Normal', 'Pulled', `Successfully pulled image "${spec.image}" in ${took} (${took} including waiting). Image size: ${imageSize(spec.image ?? '')} bytes.`, c);
        }
        this.creating(c, c.dueMs);
        this.changed = true;
        return this.step(c);
      case 'creating':
        if (c.dueMs === undefined || !this.due(c.dueMs)) return;
        if (c.configRetry) {
          c.configRetry = undefined;
          this.beginStart(c, c.dueMs);
          return this.step(c);
        }
        if (this.configFailed(c, spec, c.dueMs)) return;
        if (!this.start(c, spec, c.dueMs)) return;
        this.changed = true;
        return this.step(c);
      case 'running':
        return this.stepRunning(c, spec);
      case 'terminated':
      case 'backoff':
        if (c.dueMs === undefined || this.run.terminating || !this.due(c.dueMs)) return;
        if (c.killReason !== 'resize' && !this.restarts(c, c.exitCode ?? 0)) return;
        this.beginStart(c, c.dueMs);
        return this.step(c);
      default:
    }
  }

  /** The container's environment cannot be built: CreateContainerConfigError, and a retry after the back-off. */
  private configFailed(c: ContainerRun, spec: Container, at: number): boolean {
    const error = this.ctx.configError?.(spec);
    c.configError = error;
    if (error === undefined) return false;
    this.ctx.event('Warning', 'Failed', `Error: ${error}`, c);
    c.configRetry = true;
    c.dueMs = Math.max(at, this.ctx.now) + configRetryMs;
    this.due(c.dueMs);
    this.changed = true;
    return true;
  }

  private pullMs(c: ContainerRun): number {
    const pullAnn = Number(simAnnotation(this.ctx.pod, 'pullSeconds', c.name));
    return Number.isFinite(pullAnn) && pullAnn >= 0 ? pullAnn * 1000 : this.ctx.timings.pullMs;
  }

  /** Starts the container at `at`; false while its command's result is not in yet (it starts once it is). */
  private start(c: ContainerRun, spec: Container, at: number): boolean {
    const script = this.ctx.script?.(spec, at);
    if (script === 'pending') return false;
    if (c.startedAtMs !== undefined && c.finishedAtMs !== undefined) {
      c.restartCount++;
      c.last = {
        exitCode: c.exitCode ?? 0, reason: c.reason, startedAt: iso(c.startedAtMs), finishedAt: iso(c.finishedAtMs), containerID: c.containerID,
      };
    }
    c.stage = 'running';
    c.dueMs = undefined;
    c.waitingBackoffMs = undefined;
    c.startedAtMs = at;
    c.finishedAtMs = undefined;
    c.exitCode = undefined;
    c.reason = undefined;
    c.killReason = undefined;
    c.containerID = containerID(this.run.uid, c.name, c.restartCount);
    this.ctx.event('Normal', 'Created', 'Container created', c);
    this.ctx.event('Normal', 'Started', 'Container started', c);
    const outcome = this.ctx.started?.(spec);
    const t = this.plan(c, spec, at, script, outcome || undefined);
    c.startedProbeMs = t.startedMs;
    c.readyAtMs = t.readyAtMs;
    c.nextUnhealthyMs = t.firstUnhealthyMs;
    return true;
  }

  /** What a container started at `at` will do: its plan, its log lines from then on, and its probe times. */
  private plan(c: ContainerRun, spec: Container, at: number, script: ScriptResult | undefined, outcome?: ImageOutcome): ReturnType<typeof probeTimes> {
    c.plan = containerPlan(this.ctx.pod, spec, c.kind, this.ctx.timings, at, script);
    if (outcome) c.plan = withOutcome(c.plan, outcome, this.ctx.timings.defaultRunMs);
    this.ctx.logs.start(this.run.uid, c.name, at, c.plan.lines);
    const t = probeTimes(spec, c.plan, at, c.kind !== 'init');
    c.livenessKillMs = t.livenessKillMs;
    c.nextLivenessFailMs = t.firstLivenessFailMs;
    return t;
  }

  /**
   * Containers found running in a restored record carry on with the plan they would have had (once their command's
   * result is in: until then they run on).
   */
  resume(): void {
    for (const c of allRuns(this.run)) {
      const spec = this.specs.get(c.name);
      if (c.stage !== 'running' || c.plan || !spec) continue;
      const at = c.startedAtMs ?? this.ctx.now;
      const script = this.ctx.script?.(spec, at);
      if (script === 'pending') continue;
      const t = this.plan(c, spec, at, script);
      c.startedProbeMs ??= t.startedMs;
      c.readyAtMs ??= t.readyAtMs;
    }
  }

  private stepRunning(c: ContainerRun, spec: Container): void {
    const plan = c.plan;
    const started = c.startedAtMs ?? this.ctx.now;
    const exitAt = plan?.runMs !== undefined ? started + plan.runMs : Infinity;
    const stopAt = c.stopAtMs ?? Infinity;
    const killAt = c.livenessKillMs ?? Infinity;
    const end = Math.min(exitAt, stopAt, killAt);
    const ip = this.run.podIP ?? '';
    if (c.nextUnhealthyMs !== undefined && c.nextUnhealthyMs < end && this.due(c.nextUnhealthyMs)) {
      // One event for the probes that failed since the last look (a long pause does not flood the event list).
      this.ctx.event('Warning', 'Unhealthy', `Readiness probe failed: ${probeFailure(spec.readinessProbe, ip, false, probeRefused(spec, spec.readinessProbe))}`.trimEnd(), c);
      const period = (spec.readinessProbe?.periodSeconds || 10) * 1000;
      c.nextUnhealthyMs += period * (Math.floor((Math.min(this.ctx.now, end) - c.nextUnhealthyMs) / period) + 1);
      if (c.nextUnhealthyMs < end) this.due(c.nextUnhealthyMs);
      this.changed = true;
    }
    while (c.nextLivenessFailMs !== undefined && c.nextLivenessFailMs <= end && this.due(c.nextLivenessFailMs)) {
      this.ctx.event('Warning', 'Unhealthy', `Liveness probe failed: ${probeFailure(spec.livenessProbe, ip, true, probeRefused(spec, spec.livenessProbe))}`.trimEnd(), c);
      c.nextLivenessFailMs += (spec.livenessProbe?.periodSeconds || 10) * 1000;
      this.changed = true;
    }
    if (c.startedProbeMs !== undefined && c.startedProbeMs > this.ctx.now) this.due(c.startedProbeMs);
    if (c.readyAtMs !== undefined && c.readyAtMs > this.ctx.now) this.due(c.readyAtMs);
    if (end === Infinity || !this.due(end)) return;
    if (end === stopAt) this.exit(c, stopAt, c.stopExitCode ?? 0, (c.stopExitCode ?? 0) === 0 ? 'Completed' : 'Error');
    else if (end === killAt) {
      this.ctx.event('Normal', 'Killing', `Container ${c.name} failed liveness probe, will be restarted`, c);
      this.exit(c, killAt, 137, 'Error');
    } else this.exit(c, exitAt, plan?.exitCode ?? 0, plan?.reason ?? 'Completed');
    this.changed = true;
    this.step(c);
  }

  private exit(c: ContainerRun, at: number, exitCode: number, reason: string): void {
    c.stage = 'terminated';
    c.finishedAtMs = at;
    c.exitCode = exitCode;
    c.reason = reason;
    c.readyAtMs = undefined;
    c.nextUnhealthyMs = undefined;
    c.nextLivenessFailMs = undefined;
    c.livenessKillMs = undefined;
    c.stopAtMs = undefined;
    c.dueMs = undefined;
    this.ctx.logs.end(this.run.uid, c.name, at);
    if (c.killReason === 'resize' && !this.run.terminating) {
      c.dueMs = at; // restarted to apply a resize: no back-off
      return;
    }
    if (this.run.terminating || !this.restarts(c, exitCode)) return;
    if (at - (c.startedAtMs ?? at) >= backoffResetMs) c.backoffMs = 0;
    const delay = c.backoffMs;
    c.backoffMs = delay === 0 ? initialBackoffMs : Math.min(delay * 2, maxBackoffMs);
    if (delay === 0) {
      c.dueMs = at;
      return;
    }
    c.stage = 'backoff';
    c.dueMs = at + delay;
    c.waitingBackoffMs = delay;
    const p = this.ctx.pod.metadata;
    this.ctx.event('Warning', 'BackOff', `Back-off restarting failed container ${c.name} in pod ${p?.name}_${p?.namespace}(${p?.uid})`, c);
  }

  private restarts(c: ContainerRun, exitCode: number): boolean {
    const policy = this.ctx.pod.spec?.restartPolicy ?? 'Always';
    if (c.kind === 'ephemeral') return false;
    if (c.kind === 'sidecar') return true;
    if (c.kind === 'init') return policy !== 'Never' && exitCode !== 0;
    return policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
  }
}

/** The last time formatted: a status asks for the same few instants over and over. */
let isoMs = NaN;
let isoText = '';
export function iso(ms: number): string {
  if (ms !== isoMs) {
    isoText = new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    isoMs = ms;
  }
  return isoText;
}
