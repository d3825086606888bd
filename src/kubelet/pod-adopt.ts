// A kubelet process restarting (Bonsai restarted on its data dir) adopts the pods bound to its nodes from the status
// an earlier run wrote, as a real kubelet finds its containers still running in the container runtime: sandbox,
// container states, start times, restart counts, readiness, pod IP and the back-off being waited out. Timers (a
// container's run time, probes, a crash) are rebuilt from those timestamps, so a container that was to exit while the
// server was down exits at its own time in the past, and a pod whose state did not move is written nothing: the
// status built from the adopted record equals the stored one. Logs of adopted containers are regenerated from their
// plans. The images adopted containers run are present on their node from then on (no second pull).
import type { ContainerStatus, Pod } from '../generated/k8s/core/v1.js';
import type { ContainerKind } from './container-plan.js';
import { normalizeImage } from './container-ids.js';
import { iso } from './pod-advance.js';
import { containerSpecs, copyResources, type ContainerRun, type PodRun } from './pod-runtime.js';
import { isReady } from './pod-status.js';
import { recordedGpus } from '../machinery/gpu-devices.js';

/** Back-off bounds as the advancer applies them (initial 10 s, doubling, at most 5 min). */
const initialBackoffMs = 10_000;
const maxBackoffMs = 300_000;

const ms = (t: string | undefined) => {
  const v = t ? Date.parse(t) : NaN;
  return Number.isNaN(v) ? undefined : v;
};

/** The delay a CrashLoopBackOff message names (`back-off 40s restarting…`, `back-off 2m40s restarting…`), in ms. */
export function backoffOfMessage(message: string | undefined): number | undefined {
  const m = /^back-off (?:(\d{1,4})m)?(\d{1,4})s restarting/.exec(message ?? '');
  if (!m) return undefined;
  return (Number(m[1] ?? 0) * 60 + Number(m[2])) * 1000;
}

/** The back-off the next crash waits after `restarts` restarts: none for the first, then 10 s doubling to 5 min. */
export function backoffAfterRestarts(restarts: number): number {
  if (restarts <= 0) return 0;
  return Math.min(maxBackoffMs, initialBackoffMs * 2 ** Math.min(restarts - 1, 16));
}

function adoptContainer(name: string, kind: ContainerKind, st: ContainerStatus | undefined, now: number): ContainerRun {
  const run: ContainerRun = { name, kind, stage: 'waiting', restartCount: st?.restartCount ?? 0, backoffMs: 0 };
  if (!st) return run;
  run.containerID = st.containerID;
  run.last = st.lastState?.terminated;
  run.backoffMs = backoffAfterRestarts(run.restartCount);
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
    // The run that crashed is the last state: its restart counts it and moves it to lastState, as any other.
    run.startedAtMs = ms(run.last?.startedAt);
    run.finishedAtMs = ms(run.last?.finishedAt);
    run.exitCode = run.last?.exitCode;
    run.reason = run.last?.reason;
    // The back-off being waited out ends where it would have: its delay after the last exit (now when unknown).
    const delay = backoffOfMessage(s.waiting.message);
    if (delay !== undefined && run.finishedAtMs !== undefined) {
      run.waitingBackoffMs = delay;
      run.dueMs = Math.max(now, run.finishedAtMs + delay);
      run.backoffMs = Math.min(delay * 2, maxBackoffMs);
    } else run.dueMs = now;
  }
  return run;
}

export interface AdoptedPod {
  run: PodRun;
  /** Images of the containers that ran on the node (their runtime has them). */
  images: string[];
}

/** The runtime record of a pod seen for the first time by this process: fresh, or adopted from its stored status. */
export function adoptPod(pod: Pod, nodeName: string, now: number): AdoptedPod {
  const status = pod.status ?? {};
  const statuses = new Map<string, ContainerStatus>();
  for (const s of status.initContainerStatuses ?? []) statuses.set(s.name, s);
  for (const s of status.containerStatuses ?? []) statuses.set(s.name, s);
  const sandbox = status.conditions?.find((c) => c.type === 'PodReadyToStartContainers' && c.status === 'True');
  const specs = containerSpecs(pod);
  const run: PodRun = {
    uid: pod.metadata?.uid ?? '', namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', nodeName,
    firstSeenMs: ms(status.startTime) ?? now,
    sandboxReadyMs: sandbox ? ms(sandbox.lastTransitionTime) ?? now : undefined,
    podIP: status.podIP,
    containers: specs.map(({ spec, kind }) => adoptContainer(spec.name, kind, statuses.get(spec.name), now)),
    ephemeral: (status.ephemeralContainerStatuses ?? []).map((s) => adoptContainer(s.name, 'ephemeral', s, now)),
    allocated: new Map(), actuated: new Map(),
    finished: status.phase === 'Succeeded' || status.phase === 'Failed',
    gpus: recordedGpus(status),
  };
  const images: string[] = [];
  for (const { spec } of specs) {
    const st = statuses.get(spec.name);
    const res = copyResources(st?.resources ?? spec.resources ?? {});
    run.allocated.set(spec.name, res);
    run.actuated.set(spec.name, copyResources(res));
    if (st?.containerID && spec.image) images.push(spec.image);
  }
  return { run, images };
}

/** Records adopted images as present on their node (the per-node image sets the lifecycle keeps). */
export function markPresent(present: Map<string, Set<string>>, nodeName: string, images: readonly string[]): void {
  if (!images.length) return;
  let set = present.get(nodeName);
  if (!set) present.set(nodeName, (set = new Set()));
  for (const image of images) set.add(image);
}

/** The kubelet's own conditions, in the order buildStatus writes them, ahead of PodScheduled and anyone else's. */
const steadyConditions = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady'] as const;

/**
 * Whether the stored status of a pod just adopted is already what buildStatus would write for its runtime record now,
 * checked on the few fields that can differ (phase, conditions, readiness, restarts, IPs, images, resources) instead of
 * building the whole status and comparing it. Only for the steady case: a Running pod without init or ephemeral
 * containers, readiness gates, a resize or a termination under way, whose main containers all run and are ready.
 * The rest (start times, container IDs, last states, the conditions' transition times) was read from that same stored
 * status by adoptPod, so it is equal by construction. false means only "build and compare as usual".
 */
export function adoptedStatusCurrent(pod: Pod, run: PodRun, now: number, hostIP: string): boolean {
  const st = pod.status as (Pod['status'] & { observedGeneration?: number }) | undefined;
  const spec = pod.spec;
  if (!st || !spec || st.phase !== 'Running' || st.reason !== undefined || st.message !== undefined) return false;
  if (run.finished || run.terminating || run.deadlineExceeded || run.resizePending || run.resizeInProgressUntilMs !== undefined || run.ephemeral.length) return false;
  if (spec.initContainers?.length || spec.ephemeralContainers?.length || spec.readinessGates?.length || st.initContainerStatuses?.length || st.ephemeralContainerStatuses?.length) return false;
  if (run.sandboxReadyMs === undefined || run.sandboxReadyMs > now) return false;
  const gen = pod.metadata?.generation;
  if (st.observedGeneration !== gen) return false;
  if (st.hostIP !== hostIP || st.hostIPs?.length !== 1 || st.hostIPs[0].ip !== hostIP) return false;
  if (run.podIP !== undefined ? st.podIP !== run.podIP || st.podIPs?.length !== 1 || st.podIPs[0].ip !== run.podIP : st.podIP !== undefined) return false;
  if (st.startTime !== iso(run.firstSeenMs)) return false;
  const conds = st.conditions ?? [];
  if (conds.length < steadyConditions.length + 1) return false;
  for (let i = 0; i < steadyConditions.length; i++) {
    const c = conds[i] as (typeof conds)[number] & { observedGeneration?: number };
    if (c.type !== steadyConditions[i] || c.status !== 'True' || c.reason !== undefined || c.message !== undefined || c.lastProbeTime !== null || !c.lastTransitionTime || c.observedGeneration !== gen) return false;
  }
  if (conds[steadyConditions.length].type !== 'PodScheduled' || conds[steadyConditions.length].status !== 'True') return false;
  const containers = spec.containers ?? [];
  const statuses = st.containerStatuses ?? [];
  if (containers.length !== run.containers.length || statuses.length !== containers.length || run.gpus) return false;
  for (let i = 0; i < containers.length; i++) {
    const c = run.containers[i];
    const want = containers[i];
    if (c.kind !== 'main' || c.name !== want.name || c.stage !== 'running' || c.containerID === undefined || c.finishedAtMs !== undefined) return false;
    if (!isReady(c, now) || (c.startedProbeMs ?? Infinity) > now) return false;
    const s = statuses.find((x) => x.name === c.name);
    if (!s || s.ready !== true || s.started !== true || s.restartCount !== c.restartCount || s.containerID !== c.containerID) return false;
    const state = s.state;
    if (!state?.running || state.waiting || state.terminated || state.running.startedAt !== iso(c.startedAtMs ?? 0)) return false;
    if (s.image !== normalizeImage(want.image ?? '')) return false;
    const res = want.resources ?? {};
    const hasRes = Object.keys(res.requests ?? {}).length > 0 || Object.keys(res.limits ?? {}).length > 0;
    if (!hasRes) {
      if (s.resources !== undefined || s.allocatedResources !== undefined) return false;
      continue;
    }
    const allocated = run.allocated.get(c.name);
    const actuated = run.actuated.get(c.name);
    if (!allocated || !actuated || !sameQuantities(s.allocatedResources, allocated.requests) || !s.resources) return false;
    if (!sameQuantities(s.resources.requests, actuated.requests) || !sameQuantities(s.resources.limits, actuated.limits)) return false;
  }
  // The statuses are sorted by name in what buildStatus writes.
  for (let i = 1; i < statuses.length; i++) if (!(statuses[i - 1].name < statuses[i].name)) return false;
  return true;
}

/** Two resource lists (name → quantity text) hold the same entries; an empty list equals a missing one. */
export function sameQuantities(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  const ka = a ? Object.keys(a) : [];
  const kb = b ? Object.keys(b) : [];
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!Object.prototype.hasOwnProperty.call(b, k) || a![k] !== b![k]) return false;
  return true;
}
