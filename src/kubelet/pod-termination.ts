// How a simulated pod's containers stop: spec.activeDeadlineSeconds, how long a preStop hook runs and the exit code
// SIGTERM leaves a container with.
import type { Container, Pod } from '../generated/k8s/core/v1.js';
import type { Lookup } from './command-runner.js';
import { allRuns, type PodRun } from './pod-runtime.js';

/**
 * How a container answers SIGTERM: an image's own server (no command) shuts down cleanly with 0; a command the pod
 * spec gives (a shell, a script) dies of the signal, 128+15, so a Job pod deleted while running ends Failed.
 */
export function sigtermExitCode(pod: Pod, name: string, kind: string): number {
  const list = kind === 'main' ? pod.spec?.containers : kind === 'ephemeral' ? pod.spec?.ephemeralContainers : pod.spec?.initContainers;
  return list?.find((x) => x.name === name)?.command?.length ? 143 : 0;
}

/**
 * How long a container's preStop hook takes (sleep action, or its exec command as the shell runs it); Infinity when it
 * never ends, 'pending' while the command's result is not in.
 */
export function preStopMs(pod: Pod, name: string, run: (spec: Container, argv: string[]) => Lookup): number | 'pending' {
  const spec = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].find((c) => c.name === name);
  const hook = spec?.lifecycle?.preStop;
  if (!spec || !hook) return 0;
  if (hook.sleep) return hook.sleep.seconds * 1000;
  if (hook.exec?.command) {
    const r = run(spec, hook.exec.command);
    return r === 'pending' ? r : r ? r.runMs ?? Infinity : 0;
  }
  return 0;
}

/**
 * spec.activeDeadlineSeconds: once the pod has been active that long its containers are killed and it fails with
 * reason DeadlineExceeded. Returns when the deadline falls due, 'exceeded' when it has just passed (the containers
 * are set to stop; the caller records the event), undefined when none is pending.
 */
export function activeDeadline(pod: Pod, run: PodRun, now: number): number | 'exceeded' | undefined {
  const ads = pod.spec?.activeDeadlineSeconds;
  if (ads === undefined || run.deadlineExceeded) return undefined;
  const at = run.firstSeenMs + ads * 1000;
  if (at > now) return at;
  run.deadlineExceeded = true;
  run.terminating ??= { startMs: at, stopAtMs: new Map(), graceEndMs: at };
  for (const c of allRuns(run)) {
    if (c.stage !== 'running') {
      c.dueMs = undefined;
      continue;
    }
    c.stopAtMs = Math.max(at, c.startedAtMs ?? at);
    c.stopExitCode = 137;
  }
  return 'exceeded';
}
