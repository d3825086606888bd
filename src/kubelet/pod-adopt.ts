// A kubelet process restarting (Bonsai restarted on its data dir) adopts the pods bound to its nodes from the status
// an earlier run wrote, as a real kubelet finds its containers still running in the container runtime: sandbox,
// container states, start times, restart counts, readiness, pod IP and the back-off being waited out. Timers (a
// container's run time, probes, a crash) are rebuilt from those timestamps, so a container that was to exit while the
// server was down exits at its own time in the past, and a pod whose state did not move is written nothing: the
// status built from the adopted record equals the stored one. Logs of adopted containers are regenerated from their
// plans. The images adopted containers run are present on their node from then on (no second pull).
import type { ContainerStatus, Pod } from 'kubernetes-types/core/v1.js';
import type { ContainerKind } from './container-plan.js';
import { containerSpecs, copyResources, type ContainerRun, type PodRun } from './pod-runtime.js';

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
