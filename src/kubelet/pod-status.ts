// The pod status the simulated kubelet reports for a runtime record: phase, conditions (in the kubelet's order,
// with stable transition times), container statuses, IPs and start time.
import type { Container, ContainerState, ContainerStatus, Pod, PodCondition, PodStatus } from '../generated/k8s/core/v1.js';
import { normalizeImage, imageID } from './container-ids.js';
import { nullTime } from '../util/clock.js';
import { iso } from './pod-advance.js';
import type { ContainerRun, PodRun } from './pod-runtime.js';
import { containerSpecs, copyResources, ephemeralSpecs } from './pod-runtime.js';
import { gpuResourceName } from '../machinery/dra-names.js';

export type Phase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

const isStopped = (c: ContainerRun) => c.stage === 'terminated' || c.stage === 'backoff' || ((c.stage === 'pulling' || c.stage === 'creating') && c.finishedAtMs !== undefined);
/** The exit code of a container's latest termination. */
const lastExit = (c: ContainerRun) => (c.stage === 'terminated' ? c.exitCode : c.finishedAtMs !== undefined ? c.exitCode : c.last?.exitCode) ?? 0;

export function initDone(c: ContainerRun, now: number): boolean {
  if (c.kind === 'sidecar') return c.stage === 'running' && c.startedProbeMs !== undefined && c.startedProbeMs <= now;
  return c.stage === 'terminated' && c.exitCode === 0;
}

export function podPhase(pod: Pod, run: PodRun, now: number): Phase {
  if (run.deadlineExceeded) return 'Failed';
  const policy = pod.spec?.restartPolicy ?? 'Always';
  const inits = run.containers.filter((c) => c.kind === 'init');
  if (inits.some((c) => c.stage === 'terminated' && c.exitCode !== 0 && policy === 'Never')) return 'Failed';
  if (run.containers.some((c) => c.kind !== 'main' && !initDone(c, now) && !(c.kind === 'sidecar' && run.terminating))) return 'Pending';
  const mains = run.containers.filter((c) => c.kind === 'main');
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let failed = 0;
  for (const c of mains) {
    if (c.stage === 'running') running++;
    else if (isStopped(c)) {
      stopped++;
      if (lastExit(c) !== 0) failed++;
    } else waiting++;
  }
  if (waiting > 0 && !run.terminating) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped === 0) return 'Pending';
  if (run.terminating) return failed > 0 ? 'Failed' : 'Succeeded';
  if (policy === 'Always') return 'Running';
  if (policy === 'OnFailure') return failed === 0 ? 'Succeeded' : 'Running';
  return failed > 0 ? 'Failed' : 'Succeeded';
}

function terminatedState(c: ContainerRun): ContainerState {
  return {
    terminated: {
      exitCode: c.exitCode ?? 0, reason: c.reason, startedAt: c.startedAtMs !== undefined ? iso(c.startedAtMs) : undefined,
      finishedAt: c.finishedAtMs !== undefined ? iso(c.finishedAtMs) : undefined, containerID: c.containerID,
    },
  };
}

function containerState(pod: Pod, c: ContainerRun, initializing: boolean): ContainerState {
  const restarting = c.finishedAtMs !== undefined;
  const backoffWaiting = (): ContainerState => ({
    waiting: {
      reason: 'CrashLoopBackOff',
      message: `back-off ${goBackoff(c.waitingBackoffMs ?? 10_000)} restarting failed container=${c.name} pod=${pod.metadata?.name}_${pod.metadata?.namespace}(${pod.metadata?.uid})`,
    },
  });
  switch (c.stage) {
    case 'running':
      return { running: { startedAt: iso(c.startedAtMs ?? 0) } };
    case 'terminated':
      return terminatedState(c);
    case 'backoff':
      return backoffWaiting();
    default:
      if (c.stage === 'pulling' && c.pullFailure) return { waiting: { reason: c.pullFailure.reason, message: c.pullFailure.message } };
      if (c.configError !== undefined) return { waiting: { reason: 'CreateContainerConfigError', message: c.configError } };
      if (restarting) return c.waitingBackoffMs !== undefined ? backoffWaiting() : terminatedState(c);
      return { waiting: { reason: c.kind === 'ephemeral' || (c.kind === 'main' && !initializing) ? 'ContainerCreating' : 'PodInitializing' } };
  }
}

function goBackoff(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${s % 60}s` : `${s}s`;
}

export function isReady(c: ContainerRun, now: number): boolean {
  return c.stage === 'running' && c.readyAtMs !== undefined && c.readyAtMs <= now && (c.startedProbeMs ?? 0) <= now;
}

function containerStatus(pod: Pod, run: PodRun, spec: Container, c: ContainerRun, now: number, initializing: boolean): ContainerStatus {
  const ran = c.containerID !== undefined;
  const state = containerState(pod, c, initializing);
  const st: ContainerStatus = {
    name: c.name,
    state,
    lastState: c.last ? { terminated: c.last } : {},
    ready: c.kind === 'init' ? c.stage === 'terminated' && c.exitCode === 0 : isReady(c, now),
    restartCount: c.restartCount,
    image: ran ? normalizeImage(spec.image ?? '') : spec.image ?? '',
    imageID: ran ? imageID(spec.image ?? '') : '',
    started: c.stage === 'running' && (c.startedProbeMs ?? Infinity) <= now,
  };
  if (c.containerID) st.containerID = c.containerID;
  const gpus = run.gpus?.get(c.name);
  if (gpus) st.allocatedResourcesStatus = [{ name: gpuResourceName, resources: gpus.map((resourceID) => ({ resourceID, health: 'Healthy' })) }];
  const spent = spec.resources ?? {};
  if (Object.keys(spent.requests ?? {}).length || Object.keys(spent.limits ?? {}).length) {
    const allocated = run.allocated.get(c.name) ?? spent;
    const actuated = run.actuated.get(c.name) ?? spent;
    if (allocated.requests && Object.keys(allocated.requests).length) st.allocatedResources = copyResources(allocated.requests);
    st.resources = copyResources({ ...(actuated.limits ? { limits: actuated.limits } : {}), ...(actuated.requests ? { requests: actuated.requests } : {}) });
  }
  return st;
}

function condition(type: string, ok: boolean, old: PodCondition[] | undefined, now: number, generation: number | undefined, reason?: string, message?: string): PodCondition {
  const status = ok ? 'True' : 'False';
  const prev = old?.find((c) => c.type === type);
  const c: PodCondition & { observedGeneration?: number } = { type, status };
  if (generation !== undefined) c.observedGeneration = generation;
  c.lastProbeTime = nullTime;
  c.lastTransitionTime = prev && prev.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : iso(now);
  if (reason) c.reason = reason;
  if (message) c.message = message;
  return c;
}

const kubeletOwned = new Set(['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled', 'PodResizePending', 'PodResizeInProgress']);

export function buildStatus(pod: Pod, run: PodRun, now: number, hostIP: string): PodStatus {
  const old = pod.status ?? {};
  const gen = pod.metadata?.generation;
  const phase = podPhase(pod, run, now);
  const specs = new Map(containerSpecs(pod).map(({ spec }) => [spec.name, spec]));
  const byName = new Map(run.containers.map((c) => [c.name, c]));
  const incomplete = run.containers.filter((c) => c.kind !== 'main' && !initDone(c, now)).map((c) => c.name);
  const initializing = incomplete.length > 0;
  const readyCandidates = run.containers.filter((c) => c.kind !== 'init');
  const unready = readyCandidates.filter((c) => !isReady(c, now)).map((c) => c.name);
  const conds: PodCondition[] = [];
  if (run.resizePending) {
    conds.push(condition('PodResizePending', true, old.conditions, now, gen, run.resizePending.reason, run.resizePending.message));
  }
  if (run.resizeInProgressUntilMs !== undefined && run.resizeInProgressUntilMs > now) conds.push(condition('PodResizeInProgress', true, old.conditions, now, gen));
  conds.push(condition('PodReadyToStartContainers', run.sandboxReadyMs !== undefined && run.sandboxReadyMs <= now && !run.finished, old.conditions, now, gen));
  if (phase === 'Succeeded') conds.push(condition('Initialized', true, old.conditions, now, gen, 'PodCompleted'));
  else if (incomplete.length) conds.push(condition('Initialized', false, old.conditions, now, gen, 'ContainersNotInitialized', `containers with incomplete status: [${incomplete.join(' ')}]`));
  else conds.push(condition('Initialized', true, old.conditions, now, gen));
  let containersReady: [boolean, string?, string?];
  if (phase === 'Succeeded') containersReady = [false, 'PodCompleted'];
  else if (unready.length) containersReady = [false, 'ContainersNotReady', `containers with unready status: [${unready.join(' ')}]`];
  else containersReady = [true];
  let ready = containersReady;
  if (ready[0]) {
    for (const gate of pod.spec?.readinessGates ?? []) {
      const c = old.conditions?.find((x) => x.type === gate.conditionType);
      if (!c) ready = [false, 'ReadinessGatesNotReady', `corresponding condition of pod readiness gate "${gate.conditionType}" does not exist.`];
      else if (c.status !== 'True') ready = [false, 'ReadinessGatesNotReady', `the status of pod readiness gate "${gate.conditionType}" is not "True", but ${c.status}`];
      if (!ready[0]) break;
    }
  }
  conds.push(condition('Ready', ready[0], old.conditions, now, gen, ready[1], ready[2]));
  conds.push(condition('ContainersReady', containersReady[0], old.conditions, now, gen, containersReady[1], containersReady[2]));
  const scheduled = old.conditions?.find((c) => c.type === 'PodScheduled');
  conds.push(scheduled ? { ...scheduled, status: 'True' } : condition('PodScheduled', true, undefined, run.firstSeenMs, gen));
  for (const c of old.conditions ?? []) if (!kubeletOwned.has(c.type)) conds.push(c);

  const status: PodStatus & { observedGeneration?: number } = {};
  if (gen !== undefined) status.observedGeneration = gen;
  status.phase = phase;
  status.conditions = conds;
  status.hostIP = hostIP;
  status.hostIPs = [{ ip: hostIP }];
  if (run.podIP) {
    status.podIP = run.podIP;
    status.podIPs = [{ ip: run.podIP }];
  }
  status.startTime = iso(run.firstSeenMs);
  const statusOf = (c: Container) => containerStatus(pod, run, c, byName.get(c.name)!, now, initializing);
  const inits = (pod.spec?.initContainers ?? []).filter((c) => byName.has(c.name));
  if (inits.length) status.initContainerStatuses = inits.map(statusOf);
  status.containerStatuses = (pod.spec?.containers ?? []).filter((c) => byName.has(c.name) && specs.has(c.name)).map(statusOf)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  status.qosClass = old.qosClass;
  if (run.ephemeral.length) {
    const runs = new Map(run.ephemeral.map((c) => [c.name, c]));
    status.ephemeralContainerStatuses = ephemeralSpecs(pod).filter((c) => runs.has(c.name)).map((c) => {
      // The kubelet reports neither readiness nor a started probe for ephemeral containers.
      const { started: _started, ...st } = containerStatus(pod, run, c, runs.get(c.name)!, now, false);
      return { ...st, ready: false };
    });
  }
  for (const [k, v] of Object.entries(old)) {
    if (!(k in status) && !['message', 'reason'].includes(k)) (status as Record<string, unknown>)[k] = v;
  }
  if (run.deadlineExceeded) {
    status.reason = 'DeadlineExceeded';
    status.message = 'Pod was active on the node longer than the specified deadline';
  } else if (old.reason && phase !== 'Running') {
    status.reason = old.reason;
    if (old.message) status.message = old.message;
  }
  return status;
}
