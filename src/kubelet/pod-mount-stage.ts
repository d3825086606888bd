// The volume set-up that comes before a pod's sandbox: while a Secret or ConfigMap a volume needs is missing, the pod
// stays ContainerCreating and each failed attempt is a Warning FailedMount event. Retries back off as upstream's
// volume manager does (nestedpendingoperations: 500 ms doubling to 2m2s); a watched change of a Secret or ConfigMap
// in the namespace asks for a check at once (reference-waits.ts), without an event unless a retry is due.
import type { PodRun } from './pod-runtime.js';

const initialMountBackoffMs = 500;
const maxMountBackoffMs = 122_000;

export type MountCheck =
  | { mounted: true; changed: boolean }
  /** Not yet: check again at `retryAtMs`. */
  | { mounted: false; retryAtMs: number };

/**
 * Whether the pod's volumes are set up at `now`; `failures` lists the FailedMount messages of the volumes that cannot
 * be set up now (only called when a check is due).
 */
export function mountStage(run: PodRun, now: number, failures: () => string[], event: (message: string) => void): MountCheck {
  if (run.mountedMs !== undefined) return { mounted: true, changed: false };
  const wait = run.mountWait;
  if (wait && !wait.recheck && wait.retryAtMs > now) return { mounted: false, retryAtMs: wait.retryAtMs };
  const failed = failures();
  if (failed.length === 0) {
    run.mountedMs = wait ? now : run.firstSeenMs;
    run.mountWait = undefined;
    return { mounted: true, changed: true };
  }
  if (wait && wait.retryAtMs > now) {
    wait.recheck = false;
    return { mounted: false, retryAtMs: wait.retryAtMs };
  }
  for (const message of failed) event(message);
  const backoffMs = wait ? Math.min(wait.backoffMs * 2, maxMountBackoffMs) : initialMountBackoffMs;
  run.mountWait = { retryAtMs: now + backoffMs, backoffMs };
  return { mounted: false, retryAtMs: run.mountWait.retryAtMs };
}
