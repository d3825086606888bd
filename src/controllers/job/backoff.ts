// Pod re-creation backoff after failures: 10 s after the first failure since the last success, doubling per
// further failure up to a cap, measured on the clock from when the last failed pod finished. A success resets it.
// Per-index backoff (backoffLimitPerIndex) uses the failure count the index's last failed pod carries.
import type { Pod } from '../../generated/k8s/core/v1.js';
import { finishedAtMs } from './job-pods.js';
import { indexAbsoluteFailureCount } from './indexed.js';

export const defaultPodFailureBackoffMs = 10_000;
/** Upstream's MaxJobPodFailureBackOff. */
export const maxPodFailureBackoffMs = 10 * 60_000;

export interface BackoffRecord {
  failuresAfterLastSuccess: number;
  lastFailureMs?: number;
}

/** The record after newly finished pods: failures that happened after the latest new success still count. */
export function nextBackoffRecord(old: BackoffRecord | undefined, newSucceeded: Pod[], newFailed: Pod[]): BackoffRecord {
  const rec: BackoffRecord = { ...(old ?? { failuresAfterLastSuccess: 0 }) };
  const failedTimes = newFailed.map(finishedAtMs).sort((a, b) => a - b);
  if (!newSucceeded.length) {
    if (!failedTimes.length) return rec;
    return { failuresAfterLastSuccess: rec.failuresAfterLastSuccess + failedTimes.length, lastFailureMs: failedTimes[failedTimes.length - 1] };
  }
  const lastSuccess = Math.max(...newSucceeded.map(finishedAtMs));
  const after = failedTimes.filter((t) => t > lastSuccess);
  return after.length ? { failuresAfterLastSuccess: after.length, lastFailureMs: after[after.length - 1] } : { failuresAfterLastSuccess: 0 };
}

/** The delay owed for `failures` consecutive failures. */
export function backoffFor(failures: number, baseMs = defaultPodFailureBackoffMs, maxMs = maxPodFailureBackoffMs): number {
  if (failures <= 0) return 0;
  let d = baseMs;
  for (let i = 1; i < failures; i++) {
    d *= 2;
    if (d >= maxMs) return maxMs;
  }
  return d;
}

/** How long pod creation must still wait (0: now). */
export function remainingBackoffMs(failures: number, lastFailureMs: number | undefined, nowMs: number): number {
  if (failures <= 0 || lastFailureMs === undefined || Number.isNaN(lastFailureMs)) return 0;
  const elapsed = nowMs - lastFailureMs;
  return Math.max(0, backoffFor(failures) - elapsed);
}

/** Remaining per-index backoff given the index's last failed pod. */
export function remainingIndexBackoffMs(lastFailed: Pod | undefined, nowMs: number): number {
  if (!lastFailed) return 0;
  return remainingBackoffMs(indexAbsoluteFailureCount(lastFailed) + 1, finishedAtMs(lastFailed), nowMs);
}
