// Pod annotations that steer the simulated containers (documented in docs/cluster.md).
// A key applies to every container; `<key>.<container>` overrides it for one container.
import type { KObject } from '../machinery/types.js';

export const simAnnotations = {
  /** Seconds a container runs before it exits (default: forever for restartPolicy Always, 1 s otherwise). */
  runSeconds: 'bonsai.dev/run-seconds',
  /** Exit code when the container exits (default 0, or what its command computes). */
  exitCode: 'bonsai.dev/exit-code',
  /** Seconds after start at which the container crashes with exit code 1 (or exit-code if set). */
  crashAfterSeconds: 'bonsai.dev/crash-after-seconds',
  /** "true": the container never passes its readiness probe. */
  neverReady: 'bonsai.dev/never-ready',
  /** Extra log lines, separated by newlines, printed after start-up. */
  logLines: 'bonsai.dev/log-lines',
  /** Simulated CPU use (a quantity such as 250m) reported by metrics.k8s.io. */
  cpuUsage: 'bonsai.dev/cpu-usage',
  /** Simulated memory use (a quantity such as 300Mi); above the container's limit it is OOMKilled. */
  memoryUsage: 'bonsai.dev/memory-usage',
  /** Seconds spent pulling the image (default from the kubelet timings). */
  pullSeconds: 'bonsai.dev/pull-seconds',
  /** Seconds after start at which the container's liveness probe starts failing (it is then killed and restarted). */
  livenessFailAfterSeconds: 'bonsai.dev/liveness-fail-after-seconds',
  /** Seconds the container takes to be created and started (default from the kubelet timings). */
  startSeconds: 'bonsai.dev/start-seconds',
  /** Seconds after start before the container passes its readiness probe (on top of the probe's own delays). */
  readySeconds: 'bonsai.dev/ready-seconds',
  /** "fail": image pulls fail (ErrImagePull, then ImagePullBackOff); "ok": they succeed whatever the registry knows. */
  imagePull: 'bonsai.dev/image-pull',
  /** Node annotation: "true" stops the node's simulated kubelet (no lease renewals, no pod updates). */
  nodeStopped: 'bonsai.dev/stopped',
} as const;

export type SimAnnotation = keyof typeof simAnnotations;

/** The value of a simulation annotation for a container (per-container key first, then the pod-wide key). */
export function simAnnotation(pod: KObject, key: SimAnnotation, container?: string): string | undefined {
  const a = pod.metadata.annotations;
  if (!a) return undefined;
  const base = simAnnotations[key];
  if (container !== undefined && a[`${base}.${container}`] !== undefined) return a[`${base}.${container}`];
  return a[base];
}
