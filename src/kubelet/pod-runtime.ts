// The in-memory record of what the simulated runtime is doing for one pod: sandbox, each container's current
// run, restarts and back-off. Rebuilt from the pod's status after a process restart.
import type { Container, ContainerStatus, ContainerStateTerminated, EphemeralContainer, Pod, ResourceRequirements } from 'kubernetes-types/core/v1.js';
import type { ContainerKind, ContainerPlan } from './container-plan.js';

export type Stage =
  /** Not started yet (waiting for the sandbox, earlier init containers, or its turn). */
  | 'waiting'
  | 'pulling'
  | 'creating'
  | 'running'
  /** Exited; `dueMs` is when it restarts (if it does). */
  | 'terminated'
  /** Waiting out CrashLoopBackOff until `dueMs`. */
  | 'backoff';

export interface ContainerRun {
  name: string;
  kind: ContainerKind;
  stage: Stage;
  /** When the current stage ends (pull done, started, restart), in clock ms. */
  dueMs?: number;
  /** When the pull began (for the Pulled message). */
  pullStartMs?: number;
  startedAtMs?: number;
  finishedAtMs?: number;
  exitCode?: number;
  reason?: string;
  /** Why the current run ends (liveness kill, graceful stop), decided before it happens. */
  killReason?: 'liveness' | 'stop' | 'resize';
  restartCount: number;
  last?: ContainerStateTerminated;
  /** The next CrashLoopBackOff delay; 0 until the first restart. */
  backoffMs: number;
  /** The back-off being waited out (for the waiting message). */
  waitingBackoffMs?: number;
  containerID?: string;
  plan?: ContainerPlan;
  /** Probe outcomes for the current run (clock ms; undefined: never). */
  startedProbeMs?: number;
  readyAtMs?: number;
  /** Time of the next failing probe event to record. */
  nextUnhealthyMs?: number;
  livenessKillMs?: number;
  nextLivenessFailMs?: number;
  /** How the current run ends when the pod is being deleted. */
  stopAtMs?: number;
  stopExitCode?: number;
  /** A failed image pull being waited out: ErrImagePull, then ImagePullBackOff until the retry. */
  pullFailure?: { reason: 'ErrImagePull' | 'ImagePullBackOff'; message: string; retryAtMs: number };
  /** The current image pull back-off (0 or undefined: no failure yet). */
  pullBackoffMs?: number;
  /** An ephemeral container: when the kubelet first saw it in the pod spec (it starts from then on). */
  addedAtMs?: number;
}

export interface Terminating {
  startMs: number;
  /** When each container's stop completes. */
  stopAtMs: Map<string, number>;
  graceEndMs: number;
}

export interface PodRun {
  uid: string;
  namespace: string;
  name: string;
  nodeName: string;
  firstSeenMs: number;
  sandboxReadyMs?: number;
  podIP?: string;
  containers: ContainerRun[];
  /** Ephemeral containers, in the order they were added; they take no part in the pod's phase or readiness. */
  ephemeral: ContainerRun[];
  terminating?: Terminating;
  /** Resources the kubelet admitted per container (the resize baseline) and those actuated. */
  allocated: Map<string, ResourceRequirements>;
  actuated: Map<string, ResourceRequirements>;
  resizeInProgressUntilMs?: number;
  resizePending?: { reason: 'Deferred' | 'Infeasible'; message: string };
  /** spec.activeDeadlineSeconds ran out: containers were killed and the pod failed. */
  deadlineExceeded?: boolean;
  /** The terminal phase has been reported and the sandbox released. */
  finished?: boolean;
}

export function containerSpecs(pod: Pod): Array<{ spec: Container; kind: ContainerKind }> {
  return [
    ...(pod.spec?.initContainers ?? []).map((spec) => ({ spec, kind: (spec.restartPolicy === 'Always' ? 'sidecar' : 'init') as ContainerKind })),
    ...(pod.spec?.containers ?? []).map((spec) => ({ spec, kind: 'main' as ContainerKind })),
  ];
}

/** spec.ephemeralContainers, as the Container they are run like. */
export function ephemeralSpecs(pod: Pod): Container[] {
  const list: EphemeralContainer[] = Array.isArray(pod.spec?.ephemeralContainers) ? pod.spec.ephemeralContainers : [];
  return list.map((c) => c as Container);
}

/** Every container run of a pod, ephemeral ones last. */
export const allRuns = (run: PodRun): ContainerRun[] => [...run.containers, ...run.ephemeral];

/** Starts following the ephemeral containers the pod spec has gained since the last look. */
export function addEphemeralRuns(pod: Pod, run: PodRun, now: number): void {
  for (const spec of ephemeralSpecs(pod)) {
    if (run.ephemeral.some((c) => c.name === spec.name)) continue;
    run.ephemeral.push({ name: spec.name, kind: 'ephemeral', stage: 'waiting', restartCount: 0, backoffMs: 0, addedAtMs: now });
  }
}

const ms = (t: string | undefined) => (t ? Date.parse(t) : undefined);

function restoreContainer(name: string, kind: ContainerKind, st: ContainerStatus | undefined, now: number): ContainerRun {
  const run: ContainerRun = { name, kind, stage: 'waiting', restartCount: st?.restartCount ?? 0, backoffMs: 0 };
  if (!st) return run;
  run.containerID = st.containerID;
  run.last = st.lastState?.terminated;
  if (run.restartCount > 0) run.backoffMs = 10_000;
  const s = st.state ?? {};
  if (s.running) {
    run.stage = 'running';
    run.startedAtMs = ms(s.running.startedAt) ?? now;
    if (st.started) run.startedProbeMs = run.startedAtMs;
    if (st.ready) run.readyAtMs = run.startedAtMs;
  } else if (s.terminated) {
    run.stage = 'terminated';
    run.startedAtMs = ms(s.terminated.startedAt);
    run.finishedAtMs = ms(s.terminated.finishedAt) ?? now;
    run.exitCode = s.terminated.exitCode;
    run.reason = s.terminated.reason;
    run.dueMs = now;
  } else if (s.waiting?.reason === 'CrashLoopBackOff') {
    run.stage = 'backoff';
    run.dueMs = now;
    run.finishedAtMs = ms(run.last?.finishedAt);
  }
  return run;
}

/** A record for a pod seen for the first time: fresh, or rebuilt from the status an earlier process wrote. */
export function restorePodRun(pod: Pod, nodeName: string, now: number): PodRun {
  const status = pod.status ?? {};
  const statuses = new Map<string, ContainerStatus>();
  for (const s of [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])]) statuses.set(s.name, s);
  const sandbox = status.conditions?.find((c) => c.type === 'PodReadyToStartContainers' && c.status === 'True');
  const run: PodRun = {
    uid: pod.metadata?.uid ?? '', namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', nodeName,
    firstSeenMs: ms(status.startTime) ?? now,
    sandboxReadyMs: sandbox ? ms(sandbox.lastTransitionTime) ?? now : undefined,
    podIP: status.podIP,
    containers: containerSpecs(pod).map(({ spec, kind }) => restoreContainer(spec.name, kind, statuses.get(spec.name), now)),
    ephemeral: (status.ephemeralContainerStatuses ?? []).map((s) => restoreContainer(s.name, 'ephemeral', s, now)),
    allocated: new Map(), actuated: new Map(),
    finished: status.phase === 'Succeeded' || status.phase === 'Failed',
  };
  for (const { spec } of containerSpecs(pod)) {
    const reported = statuses.get(spec.name)?.resources;
    const res = structuredClone(reported ?? spec.resources ?? {});
    run.allocated.set(spec.name, res);
    run.actuated.set(spec.name, structuredClone(res));
  }
  return run;
}
