// The in-memory record of what the simulated runtime is doing for one pod: sandbox, each container's current
// run, restarts and back-off. Rebuilt from the pod's status after a process restart (pod-adopt.ts).
import type { Container, ContainerStateTerminated, EphemeralContainer, Pod, ResourceRequirements } from '../generated/k8s/core/v1.js';
import type { ContainerKind, ContainerPlan } from './container-plan.js';
import { copyJson } from '../util/json-tree.js';

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
  /** Its environment could not be built (CreateContainerConfigError): the message, until a start succeeds. */
  configError?: string;
  /** The current `creating` stage is the wait before retrying after a config error (the retry pulls again). */
  configRetry?: boolean;
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
  /** When the pod's volumes were set up (the sandbox follows); undefined while a Secret or ConfigMap is missing. */
  mountedMs?: number;
  /** Volume set-up failing: the next retry (back-off doubling) and whether a watched change asks for a check now. */
  mountWait?: { retryAtMs: number; backoffMs: number; recheck?: boolean };
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
  /** The GPU IDs each container holds through the node's nvidia.com/gpu capacity (dra/capacity-gpus.ts). */
  gpus?: Map<string, string[]>;
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

/** Resource requirements nest three levels (claims[].name); a validated pod's are far within this. */
const resourcesDepth = 8;

/** A copy of resource requirements (cheaper than structuredClone, which a restart runs for every container). */
export function copyResources<T extends object>(r: T): T {
  return copyJson(r, resourcesDepth);
}
